/**
 * The API key, which guards every path of the service when one is configured (the service document
 * does not say where it travels: a header, X-API-Key by default, or a query parameter).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export interface KeyOptions {
  apiKeyHeader?: string;
  apiKeyQuery?: string;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/**
 * Whether a request carries `apiKey`, compared in constant time: both are hashed first, so the
 * comparison runs over equal lengths and reveals neither the key's length nor a matching prefix.
 */
export function keyCheck(apiKey: string, options: KeyOptions) {
  const expected = sha256(apiKey);
  const header = (options.apiKeyHeader ?? 'X-API-Key').toLowerCase();
  const param = options.apiKeyQuery;
  return (req: IncomingMessage, query: string): boolean => {
    let given: string | undefined;
    if (param) {
      const values = new URLSearchParams(query).getAll(param);
      given = values.length === 1 ? values[0] : undefined;
    } else {
      const value = req.headers[header];
      given = typeof value === 'string' ? value : undefined;
    }
    return given !== undefined && timingSafeEqual(sha256(given), expected);
  };
}

/** Where the key goes, for the 401 body; never the key itself. */
export function keyHint(options: KeyOptions): string {
  return options.apiKeyQuery
    ? `send the API key in the query parameter ${options.apiKeyQuery}`
    : `send the API key in the ${options.apiKeyHeader ?? 'X-API-Key'} header`;
}

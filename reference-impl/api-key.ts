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
 * A query parameter given twice counts by its first value, as URLSearchParams reads it.
 */
export function keyCheck(apiKey: string, options: KeyOptions) {
  const expected = sha256(apiKey);
  const header = (options.apiKeyHeader ?? 'X-API-Key').toLowerCase();
  const param = options.apiKeyQuery;
  return (req: IncomingMessage, query: string): boolean => {
    const given = param ? new URLSearchParams(query).get(param) : req.headers[header];
    return typeof given === 'string' && timingSafeEqual(sha256(given), expected);
  };
}

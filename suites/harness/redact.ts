/**
 * Secrets never leave the harness in clear: every message, curl line, exchange record and attachment
 * passes through redact(). One registry per worker: the client registers the configured API key (and
 * the header or query parameter that carries it) as soon as it is created, so that a ConformanceError
 * built anywhere later is masked too.
 */

/** What a secret is replaced with. */
export const MASK = '***';

const secrets = new Set<string>();
/** The secrets, longest first, so that a secret containing another is masked whole. */
let ordered: string[] = [];
/** Lower-cased header names whose values are always masked, whatever they hold. */
const secretHeaders = new Set<string>(['authorization', 'proxy-authorization']);
const secretQueryParams = new Set<string>();

/** Registers a secret value; its URL-encoded and JSON-escaped forms are masked too. */
export function registerSecret(value: string | undefined): void {
  if (!value || secrets.has(value)) return;
  secrets.add(value);
  secrets.add(encodeURIComponent(value));
  secrets.add(JSON.stringify(value).slice(1, -1));
  ordered = [...secrets].sort((a, b) => b.length - a.length);
}

/** Registers a header whose value is masked wherever it is shown (the API key's carrier). */
export function registerSecretHeader(name: string): void {
  secretHeaders.add(name.toLowerCase());
}

/** Registers a query parameter whose value is masked in every URL shown (the API key's carrier). */
export function registerSecretQueryParam(name: string): void {
  secretQueryParams.add(name);
}

/** The text with every registered secret replaced by ***. */
export function redact(text: string): string {
  let out = text;
  for (const secret of ordered) {
    if (out.includes(secret)) out = out.split(secret).join(MASK);
  }
  return out;
}

/** Whether a header's value is masked. */
export function isSecretHeader(name: string): boolean {
  return secretHeaders.has(name.toLowerCase());
}

/** Headers with secret values masked (the whole value of a secret header, and secrets anywhere else). */
export function redactHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name] = isSecretHeader(name) ? MASK : redact(value);
  }
  return out;
}

/** A URL with the value of every secret query parameter masked, and secrets anywhere else too. */
export function redactUrl(url: string): string {
  if (secretQueryParams.size === 0) return redact(url);
  const q = url.indexOf('?');
  if (q < 0) return redact(url);
  const pairs = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {}
      return secretQueryParams.has(decoded) ? `${name}=${MASK}` : pair;
    });
  return redact(`${url.slice(0, q)}?${pairs.join('&')}`);
}

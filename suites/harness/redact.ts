/**
 * Secrets never leave the harness in clear: every message, curl line, exchange record and attachment
 * passes through redact(). One registry per worker: the client registers the configured API key (and
 * the header or query parameter that carries it) as soon as it is created, so that a ConformanceError
 * built anywhere later is masked too.
 */

export const MASK = '***';

export interface Redactor {
  /** The text with every secret, and every Authorization value, masked. */
  text(value: string): string;
  /** The same for bytes (report files copied as they are, e.g. Allure attachments). */
  bytes(value: Buffer): Buffer;
}

/**
 * Builds the redactor of a run. Each secret is masked in every spelling a report can hold it in:
 * as is, JSON-escaped, XML-escaped, percent-encoded (a key in a query string) and form-encoded.
 */
export function createRedactor(secrets: readonly (string | undefined)[]): Redactor {
  const spellings = new Set<string>();
  for (const secret of secrets) {
    if (!secret) continue;
    spellings.add(secret);
    spellings.add(JSON.stringify(secret).slice(1, -1));
    spellings.add(escapeXml(secret));
    spellings.add(encodeURIComponent(secret));
    spellings.add(encodeURIComponent(secret).replace(/%20/g, '+'));
    // As new URL() percent-encodes a query (' → %27, as the WHATWG URL standard does for http URLs),
    // and as URLSearchParams form-encodes it.
    spellings.add(whatwgQueryEncoded(secret));
    spellings.add(encodeURIComponent(secret).replace(/'/g, '%27'));
    spellings.add(new URLSearchParams([['k', secret]]).toString().slice(2));
    spellings.add(shellQuoted(secret));
  }
  // Longest first, so that a spelling that contains another is masked whole.
  const ordered = [...spellings].filter((s) => s !== '').sort((a, b) => b.length - a.length);
  const orderedBytes = ordered.map((s) => Buffer.from(s, 'utf8'));

  const text = (value: string): string => {
    let out = value;
    for (const s of ordered) out = out.split(s).join(MASK);
    return maskAuthorization(out);
  };
  return {
    text,
    bytes(value: Buffer): Buffer {
      let out = value;
      for (const s of orderedBytes) out = replaceBytes(out, s, MASK_BYTES);
      // Authorization values are masked in text form only when the bytes are valid UTF-8 text.
      const asText = out.toString('utf8');
      if (Buffer.from(asText, 'utf8').equals(out)) {
        const masked = maskAuthorization(asText);
        if (masked !== asText) return Buffer.from(masked, 'utf8');
      }
      return out;
    },
  };
}

const MASK_BYTES = Buffer.from(MASK, 'utf8');

/**
 * Masks the value of an Authorization (or Proxy-Authorization) header wherever it appears: a raw
 * header line, a curl -H argument, a JSON property, an XML attribute.
 */
export function maskAuthorization(value: string): string {
  return (
    value
      // "authorization": "Bearer x" and 'authorization': 'x' (JSON, JS object dumps)
      .replace(/((?:proxy-)?authorization["']?\s*[:=]\s*)(["'])((?:\\.|(?!\2)[^\\])*)\2/gi, `$1$2${MASK}$2`)
      // "authorization", "Bearer x" in header arrays
      .replace(/((["'])(?:proxy-)?authorization\2\s*,\s*)(["'])((?:\\.|(?!\3)[^\\])*)\3/gi, `$1$3${MASK}$3`)
      // Authorization: Bearer x   (header lines, curl -H 'Authorization: …', up to the quote or line end)
      .replace(/((?:proxy-)?authorization:[ \t]*)(?![ \t]*(?:["'\\]|\*\*\*))[^\r\n'"<&\\]*/gi, `$1${MASK}`)
  );
}

function replaceBytes(haystack: Buffer, needle: Buffer, replacement: Buffer): Buffer {
  let index = haystack.indexOf(needle);
  if (index === -1) return haystack;
  const parts: Buffer[] = [];
  let start = 0;
  while (index !== -1) {
    parts.push(haystack.subarray(start, index), replacement);
    start = index + needle.length;
    index = haystack.indexOf(needle, start);
  }
  parts.push(haystack.subarray(start));
  return Buffer.concat(parts);
}

function escapeXml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** A value as the WHATWG URL parser percent-encodes it in the query of an http(s) URL. */
function whatwgQueryEncoded(s: string): string {
  const url = new URL('http://h/');
  url.search = `?${s}`;
  return url.search.slice(1);
}

/** How a key with a single quote appears inside a single-quoted shell word: ' becomes '\''. */
function shellQuoted(s: string): string {
  return s.replace(/'/g, `'\\''`);
}

// ---------------------------------------------------------------- the harness's registry

const secrets = new Set<string>();
let registered: Redactor = createRedactor([]);
/** Lower-cased header names whose values are always masked, whatever they hold. */
const secretHeaders = new Set<string>(['authorization', 'proxy-authorization']);
const secretQueryParams = new Set<string>();

/** Registers a secret value; every spelling of it that createRedactor knows is masked too. */
export function registerSecret(value: string | undefined): void {
  if (!value || secrets.has(value)) return;
  secrets.add(value);
  registered = createRedactor([...secrets]);
}

/** Registers a header whose value is masked wherever it is shown (the API key's carrier). */
export function registerSecretHeader(name: string): void {
  secretHeaders.add(name.toLowerCase());
}

/** Registers a query parameter whose value is masked in every URL shown (the API key's carrier). */
export function registerSecretQueryParam(name: string): void {
  secretQueryParams.add(name);
}

/** The text with every registered secret, and every Authorization value, replaced by ***. */
export function redact(text: string): string {
  return registered.text(text);
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

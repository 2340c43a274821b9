/**
 * The one redaction pass. Everything that leaves the process (console, every report file, the
 * Allure results written by the reporter) goes through a Redactor built from the run's secrets.
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

/** How a key with a single quote appears inside a single-quoted shell word: ' becomes '\''. */
function shellQuoted(s: string): string {
  return s.replace(/'/g, `'\\''`);
}

/**
 * Routes everything written to a stream through the redactor, vitest's own output included (an
 * error it prints may quote a request). Returns the function that undoes it.
 */
export function redactStream(
  stream: NodeJS.WriteStream | NodeJS.WritableStream,
  redactor: Redactor,
): () => void {
  const original = stream.write;
  const patched = function (this: unknown, chunk: unknown, ...rest: unknown[]): boolean {
    const masked =
      typeof chunk === 'string'
        ? redactor.text(chunk)
        : Buffer.isBuffer(chunk) || chunk instanceof Uint8Array
          ? redactor.bytes(Buffer.from(chunk))
          : chunk;
    return (original as (...args: unknown[]) => boolean).call(stream, masked, ...rest);
  };
  stream.write = patched as typeof stream.write;
  return () => {
    stream.write = original;
  };
}

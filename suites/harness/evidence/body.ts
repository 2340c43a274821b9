/**
 * A body as every report shows it: the one way a request's or a response's bytes become text for a
 * reader (the Allure attachments and so the HTML report, a failure's `received` and so summary.json,
 * JUnit and the console, exchanges.har).
 *
 * - The bytes that arrived, decoded as they are: UTF-8 text when they are UTF-8 (as JSON must be,
 *   RFC 8259 §8.1), else the bytes themselves in base64, said so; never a character made up for a
 *   byte that did not decode.
 * - Masked (redact.ts) before anything is cut: a cut inside a secret would show its first characters.
 * - Cut at a bound, back to a whole character, and a cut body says where it was cut ("cut at 4 KiB
 *   of 9031 bytes"), as does a body the client stopped reading at its cap.
 * - Re-indented for reading only when the text is valid JSON (JSON.parse accepts it), token for
 *   token as written: numbers keep their digits and spellings (int64 ids, 1E5, -0, 1.50), strings
 *   their escapes. Anything else, a cut body included, is shown as it came: `[1 2]` stays `[1 2]`.
 */
import { isUtf8 } from 'node:buffer';
import { redact, redactBytes } from './redact.ts';

/** A body as kept for a report: its size, and its first bytes, masked, as text or base64. */
export interface BodyExcerpt {
  /** Bytes of the body as sent or received (a response's at most the client's read cap). */
  readonly size: number;
  /** The body, masked, up to the bound it was kept to; absent when none of it was kept. */
  readonly text?: string;
  /** 'base64' when the body is not UTF-8 text: `text` holds its bytes in base64. */
  readonly encoding?: 'base64';
  /** `text` holds only the first bytes of the body (the bound). */
  readonly cut?: true;
}

/**
 * Bytes masked past what an excerpt keeps: room for a key of a few hundred characters in its longest
 * spelling (every character escaped several times over) that starts before the cut.
 */
export const MASK_MARGIN = 16 * 1024;

/**
 * The first `bound` bytes of a body, cut back to a whole UTF-8 character; none when `bound` is 0. A
 * body from the server (`fromServer`, the default) is masked before it is cut, in every spelling of a
 * secret (redact.ts), and only the bytes kept and MASK_MARGIN past them are masked: a body of
 * megabytes is not decoded and masked whole to keep its first kilobytes. A body the suite sent is
 * kept as sent: the suite puts no secret in a body.
 */
export function bodyExcerpt(body: Uint8Array | string, bound: number, fromServer = true): BodyExcerpt {
  const bytes =
    typeof body === 'string' ? Buffer.from(body) : Buffer.from(body.buffer, body.byteOffset, body.length);
  if (bytes.length === 0 || bound <= 0) return { size: bytes.length };
  if (!fromServer) return asSent(bytes, bound);
  const head = bytes.subarray(0, bound + MASK_MARGIN);
  if (isUtf8(bytes)) {
    if (bytes.length <= bound) {
      // Most bodies: text kept whole, with nothing to mask.
      const text = bytes.toString('utf8');
      if (redact(text) === text) return { size: bytes.length, text };
    }
    const masked = Buffer.from(redact(head.subarray(0, charBoundary(head, head.length)).toString('utf8')));
    if (masked.length <= bound && head.length === bytes.length)
      return { size: bytes.length, text: masked.toString('utf8') };
    const end = charBoundary(masked, Math.min(bound, masked.length));
    return { size: bytes.length, text: masked.subarray(0, end).toString('utf8'), cut: true };
  }
  const masked = redactBytes(head);
  return {
    size: bytes.length,
    text: masked.subarray(0, bound).toString('base64'),
    encoding: 'base64',
    ...(bytes.length > bound || masked.length > bound ? { cut: true as const } : {}),
  };
}

/** A body the suite sent, kept as sent up to the bound. */
function asSent(bytes: Buffer, bound: number): BodyExcerpt {
  const cut = bytes.length > bound;
  if (isUtf8(bytes)) {
    const end = charBoundary(bytes, Math.min(bound, bytes.length));
    return {
      size: bytes.length,
      text: bytes.subarray(0, end).toString('utf8'),
      ...(cut ? { cut: true as const } : {}),
    };
  }
  return {
    size: bytes.length,
    text: bytes.subarray(0, bound).toString('base64'),
    encoding: 'base64',
    ...(cut ? { cut: true as const } : {}),
  };
}

/** Bytes of the body an excerpt holds. */
export function keptBytes(body: BodyExcerpt): number {
  if (body.text === undefined) return 0;
  return body.encoding === 'base64' ? Buffer.byteLength(body.text, 'base64') : Buffer.byteLength(body.text);
}

/**
 * Where a body was cut, or undefined when it is whole: "cut at 4 KiB of 9031 bytes"; "cut at 4 KiB
 * of the first 1 MiB read: the body was longer, reading stopped there" when the client stopped
 * reading it at its cap (`readStopped`); "not kept (57 bytes)" when none of it was.
 */
export function cutNote(body: BodyExcerpt, readStopped = false): string | undefined {
  const stopped = readStopped
    ? `the first ${formatBytes(body.size)} read: the body was longer, reading stopped there`
    : '';
  if (body.text === undefined)
    return body.size > 0 ? `not kept (${readStopped ? stopped : formatBytes(body.size)})` : undefined;
  if (body.cut)
    return `cut at ${formatBytes(keptBytes(body))} of ${readStopped ? stopped : formatBytes(body.size)}`;
  return readStopped ? `reading stopped at ${formatBytes(body.size)}: the body was longer` : undefined;
}

/**
 * A body as an attachment shows it, on lines of its own: the text as it came, indented when it is
 * valid JSON and whole; the bytes in base64 when they are not UTF-8; where it was cut on a line of
 * its own below it.
 */
export function bodyForReading(body: BodyExcerpt, readStopped = false): string {
  const note = cutNote(body, readStopped);
  const lines: string[] = [];
  if (body.text !== undefined) {
    if (body.encoding === 'base64') lines.push('(not UTF-8 text: its bytes in base64)', body.text);
    else lines.push((body.cut || readStopped ? undefined : indentedJson(body.text)) ?? body.text);
  }
  if (note !== undefined) lines.push(`… (${note})`);
  return lines.join('\n');
}

/**
 * A body within one line of a message (a failure's `received`): the text as it came, as a JSON
 * string literal when `quoted` (its line breaks and control characters escaped, so that it stays on
 * the line and reads exactly), the bytes in base64 when they are not UTF-8, then where it was cut,
 * outside the quotes: `"<h1>oops…"… (cut at 200 bytes of 5000 bytes)`.
 */
export function bodyInline(
  body: BodyExcerpt,
  options: { quoted?: boolean; readStopped?: boolean } = {},
): string {
  const note = cutNote(body, options.readStopped);
  const text =
    body.text === undefined
      ? ''
      : body.encoding === 'base64'
        ? `(not UTF-8 text; base64) ${body.text}`
        : options.quoted
          ? JSON.stringify(body.text)
          : body.text;
  return note === undefined ? text : `${text}… (${note})`;
}

/**
 * Valid JSON text re-indented by two spaces, token for token: strings, escapes and numbers are copied
 * as written (no value is parsed into a number, so no int64 loses a digit and 1E5 stays 1E5); an
 * empty object or array stays on one line, as JSON.stringify(value, null, 2) writes it. Undefined for
 * text that is not valid JSON (JSON.parse refuses it): that is shown as it came.
 */
export function indentedJson(text: string): string | undefined {
  try {
    JSON.parse(text);
  } catch {
    return undefined;
  }
  // Valid JSON from here on: white space is only ever the four of JSON, between tokens.
  const out: string[] = [];
  const n = text.length;
  let depth = 0;
  const newline = () => `\n${'  '.repeat(depth)}`;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // A string, escapes and all, to its closing quote.
      let j = i + 1;
      while (text.charCodeAt(j) !== QUOTE) j += text.charCodeAt(j) === BACKSLASH ? 2 : 1;
      out.push(text.slice(i, j + 1));
      i = j + 1;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      let next = i + 1;
      while (isJsonSpace(text.charCodeAt(next))) next++;
      if (text.charCodeAt(next) === (c === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY)) {
        out.push(c === OPEN_OBJECT ? '{}' : '[]');
        i = next + 1;
        continue;
      }
      depth++;
      out.push(text[i] + newline());
      i++;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
      out.push(newline() + text[i]);
      i++;
    } else if (c === COMMA) {
      out.push(`,${newline()}`);
      i++;
    } else if (c === COLON) {
      out.push(': ');
      i++;
    } else if (isJsonSpace(c)) {
      i++;
    } else {
      // A number or a literal: up to the character that ends it.
      let j = i + 1;
      while (j < n && !isDelimiter(text.charCodeAt(j))) j++;
      out.push(text.slice(i, j));
      i = j;
    }
  }
  return out.join('');
}

/** 4096 → "4 KiB", 1048576 → "1 MiB", 100 → "100 bytes". */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

/** `end`, moved back to the start of the UTF-8 character it falls in (the whole buffer when at its end). */
function charBoundary(bytes: Buffer, end: number): number {
  if (end >= bytes.length) return bytes.length;
  let at = end;
  while (at > 0 && (bytes[at]! & 0xc0) === 0x80) at--;
  return at;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** JSON's white space (RFC 8259 §2): space, tab, line feed, carriage return. */
function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isDelimiter(c: number): boolean {
  return (
    c === QUOTE ||
    c === OPEN_OBJECT ||
    c === CLOSE_OBJECT ||
    c === OPEN_ARRAY ||
    c === CLOSE_ARRAY ||
    c === COMMA ||
    c === COLON ||
    isJsonSpace(c)
  );
}

/**
 * Reading a JSON request body exactly. Numbers are kept as their digits (lossless-json), so an int64
 * id never passes through a JS double; what cannot be read is reported as a message for a 400.
 */
import { isLosslessNumber, parse } from 'lossless-json';

/**
 * Deeper than any pet needs, shallow enough that the recursive parser and serializer cannot exhaust
 * the stack: a body nested deeper is refused before it is parsed.
 */
export const MAX_DEPTH = 256;

/**
 * The most digits a number may have and still be read by JSON.parse: every integer of 15 digits is a
 * safe integer, so the double holds it exactly and `String()` gives back the same digits.
 */
const MAX_FAST_DIGITS = 15;

const utf8 = new TextDecoder('utf-8', { fatal: true });

export type ReadResult =
  | {
      ok: true;
      /** The value to keep: numbers are LosslessNumbers, or (fast path) JS numbers that print as sent. */
      value: unknown;
      /** The same value with every number a JS number, for the schema validator (see validationView). */
      view: unknown;
      /** Which parser read it: JSON.parse ('fast') or lossless-json; for the tests. */
      parser: 'fast' | 'lossless';
    }
  | { ok: false; detail: string };

/**
 * The body as a JSON value whose numbers keep their text digit for digit, or why it is not JSON:
 * invalid UTF-8, nesting deeper than MAX_DEPTH, a syntax error, a repeated key with another value.
 * Keys named `__proto__` become own properties, never prototypes (JSON.parse defines them so, and
 * lossless-json does as JSON.parse does). `fast: false` always takes lossless-json (the tests run
 * every edge case through both parsers).
 */
export function readJson(body: Buffer, { fast = true } = {}): ReadResult {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    return { ok: false, detail: 'the body is not valid UTF-8' };
  }
  if (text.trim() === '') return { ok: false, detail: 'the body is empty; a JSON Pet object is required' };
  const scan = scanJson(text);
  if (scan.tooDeep)
    return { ok: false, detail: `the body nests arrays or objects deeper than ${MAX_DEPTH} levels` };

  // The fast path. lossless-json costs about twice JSON.parse plus a copy for the validator, and a
  // usual pet holds no number a double could change. When the scan found only plain integers of at
  // most 15 digits (no fraction, no exponent, no -0), JSON.parse reads every number exactly and the
  // store prints each back as it was sent, so the two parsers give the same pet. JSON.parse keeps the
  // last of repeated keys silently, so a text with more keys than the parsed objects hold is handed
  // to lossless-json, which accepts a repeat only with an equal value. Whatever JSON.parse refuses is
  // handed over too, so that the 400 tells lossless-json's message. Anything else (1.0, 1e2, -0,
  // longer digits) is read by lossless-json only.
  if (fast && scan.plainNumbers) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined; // not JSON: lossless-json below says why
    }
    if (value !== undefined && countKeys(value) === scan.keys)
      return { ok: true, value, view: value, parser: 'fast' };
  }

  try {
    const value = parse(text);
    return { ok: true, value, view: validationView(value), parser: 'lossless' };
  } catch (error) {
    return { ok: false, detail: `the body is not valid JSON: ${(error as Error).message}` };
  }
}

interface Scan {
  /** Brackets nest deeper than MAX_DEPTH. */
  tooDeep: boolean;
  /** Colons outside strings: in valid JSON, one per key of every object. */
  keys: number;
  /** Every number is a plain integer of at most MAX_FAST_DIGITS digits, and none is -0. */
  plainNumbers: boolean;
}

/**
 * One linear pass over the text, outside strings, that does not check the syntax (the parsers do):
 * how deep brackets nest (the parsers are recursive), how many keys there are, and whether every
 * number can go through a double unchanged.
 */
function scanJson(text: string): Scan {
  let depth = 0;
  let keys = 0;
  let plainNumbers = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // skip the string, escapes included
      for (i++; i < text.length; i++) {
        const s = text.charCodeAt(i);
        if (s === 0x5c /* \ */) i++;
        else if (s === 0x22) break;
      }
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > MAX_DEPTH) return { tooDeep: true, keys, plainNumbers };
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
    else if (c === 0x3a /* : */) keys++;
    else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39) /* 0-9 */) {
      // a number: its whole token, then whether it is plain and short
      const start = i;
      while (i + 1 < text.length && isNumberChar(text.charCodeAt(i + 1))) i++;
      if (plainNumbers) plainNumbers = isPlainShortInteger(text, start, i + 1);
    }
  }
  return { tooDeep: false, keys, plainNumbers };
}

/** Characters a JSON number token may hold: digits, `-`, `+`, `.`, `e`, `E`. */
function isNumberChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45;
}

/** text[start, end) is `-?digits` with 1 to MAX_FAST_DIGITS digits, and not `-0`. */
function isPlainShortInteger(text: string, start: number, end: number): boolean {
  const negative = text.charCodeAt(start) === 0x2d;
  const first = negative ? start + 1 : start;
  const digits = end - first;
  if (digits < 1 || digits > MAX_FAST_DIGITS) return false;
  for (let i = first; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return !(negative && digits === 1 && text.charCodeAt(first) === 0x30);
}

/** How many keys the objects of a parsed value hold, nested ones included. */
function countKeys(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (const item of value) count += countKeys(item);
    return count;
  }
  for (const key of Object.keys(value)) count += 1 + countKeys((value as Record<string, unknown>)[key]);
  return count;
}

/**
 * A copy of a lossless value with every number as a JS number, for the schema validator: ajv checks
 * types, enums and required properties on it, which a double judges correctly. What a double cannot
 * judge, whether an integer lies within int64, is checked on the digits (store.ts int64Text).
 * Recursion is bounded by MAX_DEPTH.
 */
export function validationView(value: unknown): unknown {
  if (isLosslessNumber(value)) return Number(value.toString());
  if (Array.isArray(value)) return value.map(validationView);
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      // defineProperty, not assignment: a `__proto__` key stays an own property of the copy
      Object.defineProperty(copy, key, { value: validationView(item), enumerable: true, writable: true });
    }
    return copy;
  }
  return value;
}

/**
 * JSON read exactly: numbers keep their digits (lossless-json), so that an int64 id never passes
 * through a JS double; what cannot be read is reported as a message for a 400.
 */
import { parse } from 'lossless-json';
import { MAX_DEPTH } from './limits.ts';
import { nestingDepth } from './nesting-limit.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });

export type ReadResult =
  | {
      ok: true;
      /** The value to keep: every number is a LosslessNumber, digit for digit. */
      value: unknown;
      /**
       * The same text as JSON.parse reads it, every number a JS double: what the schema validator
       * judges. A double judges types, enums and required properties correctly; what it cannot judge,
       * whether an integer lies within int64, is checked on the digits (int64Text).
       */
      view: unknown;
    }
  | { ok: false; detail: string };

/**
 * The body as a JSON value whose numbers keep their text digit for digit, or why it is not JSON:
 * invalid UTF-8, empty, nesting deeper than MAX_DEPTH, a syntax error, a repeated key with another
 * value (lossless-json accepts a repeat only with an equal value). Keys named `__proto__` become own
 * properties, never prototypes.
 */
export function readJson(body: Buffer): ReadResult {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    return { ok: false, detail: 'the body is not valid UTF-8' };
  }
  if (text.trim() === '') return { ok: false, detail: 'the body is empty; a JSON Pet object is required' };
  // The parser is recursive: nesting is bounded before it runs (nesting-limit.ts).
  if (nestingDepth(text) > MAX_DEPTH)
    return { ok: false, detail: `the body nests arrays or objects deeper than ${MAX_DEPTH} levels` };
  let value: unknown;
  try {
    value = parse(text);
  } catch (error) {
    return { ok: false, detail: `the body is not valid JSON: ${(error as Error).message}` };
  }
  // lossless-json accepted the text, so JSON.parse reads the same structure: the same keys in the
  // same order, each number the double of its digits.
  return { ok: true, value, view: JSON.parse(text) };
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/** A JSON integer in its plain form: an optional minus sign and digits, no fraction, no exponent. */
const PLAIN_INTEGER = /^-?(0|[1-9][0-9]*)$/;

/**
 * The canonical decimal text of an int64 written in plain digits (`-0` gives `0`), or undefined when
 * the text is not a plain integer or lies outside int64. Digit strings longer than any int64 are
 * refused before BigInt sees them, so a long run of digits costs nothing.
 */
export function int64Text(text: string): string | undefined {
  if (text.length > 20 || !PLAIN_INTEGER.test(text)) return undefined;
  const value = BigInt(text);
  return value >= INT64_MIN && value <= INT64_MAX ? value.toString() : undefined;
}

/**
 * JSON read exactly: numbers keep their digits (lossless-json), so that an int64 id never passes
 * through a JS double; what cannot be read throws, in the words of the library that read it (a 400).
 */
import { parse } from 'lossless-json';
import { withinNestingLimit } from './nesting-limit.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A body read as JSON. */
export interface ReadJson {
  /** The value to keep: every number is a LosslessNumber, digit for digit. */
  value: unknown;
  /**
   * The same text as JSON.parse reads it, every number a JS double: what the schema validator
   * judges. A double judges types, enums and required properties correctly; what it cannot judge,
   * whether an integer lies within int64, is checked on the digits (int64Text).
   */
  view: unknown;
}

/**
 * The body as a JSON value whose numbers keep their text digit for digit. Throws, as JSON.parse
 * does, when the body is not JSON, with the reading library's words: invalid UTF-8 (a TypeError of
 * TextDecoder), nesting deeper than MAX_DEPTH (a RangeError, nesting-limit.ts), a syntax error or a
 * key repeated with another value (a SyntaxError of lossless-json, which accepts a repeat only with
 * an equal value). Keys named `__proto__` become own properties, never prototypes.
 */
export function readJson(body: Buffer): ReadJson {
  const text = utf8.decode(body);
  // The parser is recursive: nesting is bounded before it runs (nesting-limit.ts).
  const value = parse(withinNestingLimit(text));
  // lossless-json accepted the text, so JSON.parse reads the same structure: the same keys in the
  // same order, each number the double of its digits.
  return { value, view: JSON.parse(text) };
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/** A JSON integer in its plain form: an optional minus sign and digits, no fraction, no exponent. */
const PLAIN_INTEGER = /^-?(0|[1-9][0-9]*)$/;

/**
 * The canonical decimal text of an int64 written in plain digits (`-0` gives `0`), or undefined when
 * the text is not a plain integer or lies outside int64. (A body is at most 8 KiB, so BigInt never
 * reads more digits than that.)
 */
export function int64Text(text: string): string | undefined {
  if (!PLAIN_INTEGER.test(text)) return undefined;
  const value = BigInt(text);
  return value >= INT64_MIN && value <= INT64_MAX ? value.toString() : undefined;
}

import {
  isLosslessNumber,
  LosslessNumber,
  parse as parseLossless,
  stringify as stringifyLossless,
} from 'lossless-json';

/**
 * int64-exact JSON. JSON.parse reads every number as a double, so 9007199254740993 becomes ...992
 * and 2^63 cannot be told from 2^63 - 1. Bodies are therefore also parsed without loss: numbers stay
 * their decimal text (LosslessNumber) and exactInteger() turns them into bigints, digit for digit.
 */

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

/** A value parsed without loss: numbers are LosslessNumber objects holding their text. */
export type ExactJson = unknown;

/** Parses JSON text without losing digits; throws a SyntaxError with the position on invalid JSON. */
export function parseExact(text: string): ExactJson {
  return parseLossless(text);
}

/**
 * The lossless parse of `text`, given `value`, JSON.parse's value of it. When the text is compact
 * JSON (no white space between tokens, as most servers write it) whose strings and keys are written
 * as JSON.stringify writes them, the lossless value is `value` with each number replaced by the
 * LosslessNumber of its literal, read from the text while the value is walked alongside it; a text
 * that departs from that anywhere (white space, another escaping, a repeated key, keys in another
 * order than JavaScript keeps them) is parsed by lossless-json. lossless-json's parser, in
 * JavaScript, was the larger part of reading an answer.
 */
export function exactOfParsed(text: string, value: unknown): ExactJson {
  const walk = new CompactWalk(text);
  try {
    const exact = walk.value(value);
    if (walk.at === text.length) return exact;
  } catch (error) {
    if (error !== DEPARTS) throw error;
  }
  return parseExact(text);
}

const DEPARTS = Symbol('the text is not the compact form of the value');
/** What JSON.stringify escapes in a string: quotes, backslashes, control characters, lone surrogates. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching the control characters is the point
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;
const QUOTE = 0x22;
const NUMBER_LITERAL = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

class CompactWalk {
  at = 0;
  constructor(private readonly text: string) {}

  value(v: unknown): unknown {
    if (typeof v === 'number') {
      NUMBER_LITERAL.lastIndex = this.at;
      const literal = NUMBER_LITERAL.exec(this.text)?.[0];
      if (literal === undefined) throw DEPARTS;
      this.at += literal.length;
      return new LosslessNumber(literal);
    }
    if (typeof v === 'string') {
      this.expectString(v);
      return v;
    }
    if (typeof v !== 'object' || v === null) {
      this.expect(JSON.stringify(v));
      return v;
    }
    if (Array.isArray(v)) {
      this.expect('[');
      const out = v.map((item, i) => {
        if (i > 0) this.expect(',');
        return this.value(item);
      });
      this.expect(']');
      return out;
    }
    this.expect('{');
    const out: Record<string, unknown> = {};
    let first = true;
    for (const key of Object.keys(v)) {
      if (!first) this.expect(',');
      first = false;
      this.expectString(key);
      this.expect(':');
      const item = this.value((v as Record<string, unknown>)[key]);
      // As JSON.parse and lossless-json do: "__proto__" is an own property, not the prototype.
      if (key === '__proto__')
        Object.defineProperty(out, key, {
          value: item,
          writable: true,
          enumerable: true,
          configurable: true,
        });
      else out[key] = item;
    }
    this.expect('}');
    return out;
  }

  private expect(token: string): void {
    if (!this.text.startsWith(token, this.at)) throw DEPARTS;
    this.at += token.length;
  }

  /** A string as JSON.stringify writes it; one that needs no escape is compared where it stands. */
  private expectString(s: string): void {
    if (NEEDS_ESCAPE.test(s)) {
      this.expect(JSON.stringify(s));
      return;
    }
    const { text, at } = this;
    if (
      text.charCodeAt(at) !== QUOTE ||
      !text.startsWith(s, at + 1) ||
      text.charCodeAt(at + 1 + s.length) !== QUOTE
    )
      throw DEPARTS;
    this.at = at + s.length + 2;
  }
}

/** A body parsed both ways, or why it could not be: JSON.parse's value, and the lossless parse. */
export type ParsedBody =
  | { readonly ok: true; readonly value: unknown; readonly exact: ExactJson }
  | { readonly ok: false; readonly valueError?: Error; readonly exactError?: Error };

const parsedBodies = new WeakMap<Uint8Array, ParsedBody>();

/**
 * A response body parsed as JSON.parse reads it and without loss, once per body: the checks
 * (expect.ts) and the run's model (model.ts) read the same answers, and a list of 100 pets is not
 * parsed twice.
 */
export function parseBody(body: Uint8Array, text: string): ParsedBody {
  let parsed = parsedBodies.get(body);
  if (parsed === undefined) {
    try {
      const value: unknown = JSON.parse(text);
      try {
        parsed = { ok: true, value, exact: exactOfParsed(text, value) };
      } catch (exactError) {
        parsed = { ok: false, exactError: exactError as Error };
      }
    } catch (valueError) {
      parsed = { ok: false, valueError: valueError as Error };
    }
    parsedBodies.set(body, parsed);
  }
  return parsed;
}

/** JSON text of a value whose bigints are written as exact integers (ids beyond 2^53). */
export function stringifyExact(value: unknown): string {
  const text = stringifyLossless(value);
  if (text === undefined) throw new TypeError('stringifyExact: the value has no JSON form');
  return text;
}

/** Whether a value is a number read without loss. */
export function isExactNumber(value: unknown): value is { value: string } {
  return isLosslessNumber(value);
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;
const INTEGER = /^-?\d+$/;

/**
 * The exact integer a JSON number stands for (1e3 and 1.0 are integers, as in JSON Schema), or
 * undefined when the value is not a number or not a whole number. Accepts LosslessNumber, bigint and
 * number (a safe integer only); a string is not a number, whatever its digits.
 */
export function exactInteger(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : undefined;
  return isLosslessNumber(value) ? integerOfText(value.value) : undefined;
}

/** The exact integer a decimal text stands for ("9223372036854775807", "1e3"), or undefined. */
export function integerOfText(text: string): bigint | undefined {
  // Most numbers a run reads are plain integers (ids, limits): their digits are the integer.
  if (INTEGER.test(text)) return BigInt(text);
  const m = DECIMAL.exec(text);
  if (!m) return undefined;
  const [, sign, int = '', frac = '', exp = '0'] = m;
  const e = Number(exp) - frac.length;
  let digits = (int + frac).replace(/^0+(?=\d)/, '');
  if (/^0+$/.test(digits)) return 0n;
  if (e < 0) {
    const cut = digits.slice(e);
    if (!/^0*$/.test(cut)) return undefined;
    digits = digits.slice(0, e) || '0';
  } else if (e > 0) {
    // Anything this long is far outside int64 but still an integer; keep it bounded.
    if (digits.length + e > 400) return BigInt(sign === '-' ? -1 : 1) * 10n ** 400n;
    digits += '0'.repeat(e);
  }
  const n = BigInt(digits);
  return sign === '-' ? -n : n;
}

/** Whether an exact integer lies within int64. */
export function inInt64(n: bigint): boolean {
  return n >= INT64_MIN && n <= INT64_MAX;
}

/** The decimal text of a JSON number as it came (LosslessNumber), JSON text for other values, "(missing)" for none. */
export function exactText(value: unknown): string {
  if (value === undefined) return '(missing)';
  if (isLosslessNumber(value)) return value.value;
  if (typeof value === 'bigint') return value.toString();
  try {
    return stringifyExact(value);
  } catch {
    return String(value);
  }
}

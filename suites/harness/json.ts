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
 * The lossless parse of `text`, given `value`, JSON.parse's value of it. When the text is exactly
 * JSON.stringify(value) (compact JSON, as most servers write it), every number in it is written as
 * JavaScript writes that number back (so none lost a digit), no key is repeated and no string is
 * escaped otherwise: the lossless value is `value` with each number as the LosslessNumber of its text,
 * made without parsing the text again (lossless-json's parser, in JavaScript, was the larger part of
 * reading an answer). Any other text is parsed by lossless-json.
 */
export function exactOfParsed(text: string, value: unknown): ExactJson {
  return JSON.stringify(value) === text ? losslessOf(value) : parseExact(text);
}

function losslessOf(value: unknown): unknown {
  if (typeof value === 'number') return new LosslessNumber(String(value));
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(losslessOf);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = losslessOf((value as Record<string, unknown>)[key]);
    // As JSON.parse and lossless-json do: "__proto__" is an own property, not the prototype.
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: item, writable: true, enumerable: true, configurable: true });
    else out[key] = item;
  }
  return out;
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

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

const utf8 = new TextDecoder('utf-8', { fatal: true });

export type ReadResult = { ok: true; value: unknown } | { ok: false; detail: string };

/**
 * The body as a JSON value whose numbers are LosslessNumbers (their text, digit for digit), or why it
 * is not JSON: invalid UTF-8, nesting deeper than MAX_DEPTH, a syntax error, a repeated key with
 * another value. Keys named `__proto__` become own properties, never prototypes (lossless-json defines
 * them as JSON.parse does).
 */
export function readJson(body: Buffer): ReadResult {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    return { ok: false, detail: 'the body is not valid UTF-8' };
  }
  if (text.trim() === '') return { ok: false, detail: 'the body is empty; a JSON Pet object is required' };
  if (nestedDeeperThan(text, MAX_DEPTH))
    return { ok: false, detail: `the body nests arrays or objects deeper than ${MAX_DEPTH} levels` };
  try {
    return { ok: true, value: parse(text) };
  } catch (error) {
    return { ok: false, detail: `the body is not valid JSON: ${(error as Error).message}` };
  }
}

/**
 * True when brackets outside strings nest deeper than `max`. A linear scan that does not check the
 * syntax (the parser does); it only makes sure the parser will not recurse too deep.
 */
function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > max) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return false;
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

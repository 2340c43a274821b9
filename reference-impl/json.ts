/**
 * Reading a JSON request body exactly. Numbers are kept as their digits (lossless-json), so an int64
 * id never passes through a JS double; what cannot be read is reported as a message for a 400.
 */
import { parse } from 'lossless-json';
import { MAX_DEPTH } from './limits.ts';

export { MAX_DEPTH };

const utf8 = new TextDecoder('utf-8', { fatal: true });

export type ReadResult =
  | {
      ok: true;
      /** The value to keep: every number is a LosslessNumber, digit for digit. */
      value: unknown;
      /**
       * The same text as JSON.parse reads it, every number a JS double: what the schema validator
       * judges. A double judges types, enums and required properties correctly; what it cannot judge,
       * whether an integer lies within int64, is checked on the digits (store.ts int64Text).
       */
      view: unknown;
    }
  | { ok: false; detail: string };

/**
 * The body as a JSON value whose numbers keep their text digit for digit, or why it is not JSON:
 * invalid UTF-8, nesting deeper than MAX_DEPTH, a syntax error, a repeated key with another value
 * (lossless-json accepts a repeat only with an equal value). Keys named `__proto__` become own
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
  if (nestingDepth(text) > MAX_DEPTH)
    return { ok: false, detail: `the body nests arrays or objects deeper than ${MAX_DEPTH} levels` };
  let value: unknown;
  try {
    value = parse(text);
  } catch (error) {
    return { ok: false, detail: `the body is not valid JSON: ${(error as Error).message}` };
  }
  // lossless-json accepted the text, so JSON.parse reads the same structure: the same keys in the
  // same order (a key repeated with another value was refused above; JSON.parse, too, makes
  // `__proto__` an own property), each number the double of its digits.
  return { ok: true, value, view: JSON.parse(text) };
}

/**
 * How deeply brackets nest outside strings, counted before parsing because the parser is recursive.
 * The syntax is not checked here (the parser does that).
 */
function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
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
      if (++depth > deepest) deepest = depth;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return deepest;
}

/**
 * The nesting limit, which guards the stack: the JSON parser and serializer are recursive, so a body
 * nesting arrays or objects deeper than MAX_DEPTH (256) levels is refused (400) before it is parsed.
 */
import { MAX_DEPTH } from './limits.ts';

/** The text as it is, when it nests no deeper than MAX_DEPTH; else a RangeError, before any parser sees it. */
export function withinNestingLimit(text: string): string {
  if (nestingDepth(text) > MAX_DEPTH)
    throw new RangeError(
      `arrays or objects nest deeper than ${MAX_DEPTH} levels, the most this server reads`,
    );
  return text;
}

/**
 * How deeply brackets nest outside strings, in one pass over the text. The syntax is not checked here
 * (the parser does that).
 */
export function nestingDepth(text: string): number {
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

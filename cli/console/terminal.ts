/**
 * The terminal: colours where the stream and the environment want them, and lines fitted to its
 * width. What the run, compare and merge print is painted and fitted here.
 */

export interface Paint {
  green(s: string): string;
  red(s: string): string;
  yellow(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
}

/**
 * Whether to colour a stream, as the NO_COLOR (no-color.org) and FORCE_COLOR conventions say:
 * NO_COLOR set to anything but '' turns colours off, whatever else is set; FORCE_COLOR=0 or false
 * turns them off; FORCE_COLOR=1, 2, 3, true or '' (set, empty) turns them on, on a pipe too (a CI
 * log that renders them); otherwise colours go to a terminal that is not TERM=dumb.
 */
export function colourOn(
  stream: { isTTY?: boolean },
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) {
    const value = force.trim().toLowerCase();
    if (value === '0' || value === 'false') return false;
    if (value === '' || value === 'true' || /^[1-3]$/.test(value)) return true;
  }
  return Boolean(stream.isTTY) && env.TERM !== 'dumb';
}

/** Colours as colourOn() decides for the stream. */
export function paintFor(
  stream: { isTTY?: boolean },
  env: Readonly<Record<string, string | undefined>>,
): Paint {
  const on = colourOn(stream, env);
  const wrap = (open: number, close: number) => (s: string) =>
    on ? `\u001b[${open}m${s}\u001b[${close}m` : s;
  return {
    green: wrap(32, 39),
    red: wrap(31, 39),
    yellow: wrap(33, 39),
    dim: wrap(2, 22),
    bold: wrap(1, 22),
  };
}

/** Items joined by ", " after `head`, wrapped to `width`, later lines indented as far as the first item. */
export function wrapList(head: string, items: readonly string[], width: number): string[] {
  const lines: string[] = [];
  let line = head;
  for (const [i, item] of items.entries()) {
    const piece = `${item}${i < items.length - 1 ? ',' : ''}`;
    if (line.length > head.length && line.length + 1 + piece.length > width) {
      lines.push(line);
      line = `${' '.repeat(head.length)}${piece}`;
    } else {
      line = line.length > head.length ? `${line} ${piece}` : `${line}${piece}`;
    }
  }
  lines.push(line);
  return lines;
}

/** The text cut to `width` characters, with "…" where cut. */
export function clipTo(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, Math.max(1, width - 1))}…`;
}

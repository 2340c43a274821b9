/**
 * Text for people, wherever it goes: escaping for the Markdown and HTML that summary.md, compare and
 * merge write, lines clipped, counts with their noun.
 */

/**
 * Markdown text, in a table cell or anywhere else: backslashes, pipes and HTML's angle brackets
 * escaped (GitHub renders raw HTML), line breaks folded, so that it reads as it was written.
 */
export function mdCell(value: string): string {
  return value
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\r?\n/g, ' ');
}

/**
 * Inline code in a table cell that survives backticks and pipes in the value (GFM takes `\|` as a
 * pipe even inside code; a backslash is literal there, so it is not escaped).
 */
export function mdCode(value: string): string {
  const text = value.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
  return text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``;
}

/** HTML text and attribute values (double-quoted): &, <, >, " and ' escaped. */
export function html(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** At most `max` characters, cut with an ellipsis, on one line. */
export function clipLine(value: string, max: number): string {
  const line = value.replace(/\s*\r?\n\s*/g, ' ');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** "1 requirement", "2 requirements". */
export function plural(n: number, noun: string, nouns = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : nouns}`;
}

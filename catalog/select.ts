/**
 * Which requirements a run checks: `--only` and `--exclude` take requirement id prefixes. One rule,
 * used by the command (options, preflight, roll-up, console) and by the suites (requirement()), so
 * that what is counted and what runs can never disagree:
 *
 * - a prefix matches an id that starts with it, ignoring case (prefixes are upper-cased when parsed);
 * - no `--only` selects every requirement; `--exclude` then leaves out what it matches;
 * - a requirement left out says why, with one of the two stable reasons below.
 */

/** The skip reason of a requirement `--only` does not select (published: reports and scripts read it). */
export const NOT_SELECTED = 'not selected by --only';
/** The skip reason of a requirement `--exclude` leaves out. */
export const EXCLUDED = 'excluded by --exclude';

export interface Selection {
  /** Upper-case id prefixes; empty selects every requirement. */
  readonly only: readonly string[];
  /** Upper-case id prefixes left out after `--only`; absent or empty leaves out nothing. */
  readonly exclude?: readonly string[];
}

/** What a prefix may hold once upper-cased: the characters of requirement ids. */
export const PREFIX_PATTERN = /^[A-Z0-9-]+$/;

/**
 * Comma-separated prefixes as given on the command line (the option may repeat): split on commas,
 * trimmed, upper-cased, empties dropped, first occurrence kept. Validity is checked by the caller
 * against PREFIX_PATTERN, so that it can name the option in its message.
 */
export function parsePrefixes(values: readonly string[]): string[] {
  const items = values.flatMap((v) => v.split(',')).map((s) => s.trim().toUpperCase());
  return [...new Set(items.filter((s) => s !== ''))];
}

/** Whether an id starts with one of the prefixes, ignoring case. */
export function matchesAny(id: string, prefixes: readonly string[]): boolean {
  const upper = id.toUpperCase();
  return prefixes.some((prefix) => upper.startsWith(prefix.toUpperCase()));
}

/** Why a run leaves a requirement out (NOT_SELECTED or EXCLUDED), or undefined when it checks it. */
export function selectionSkipReason(id: string, selection: Selection): string | undefined {
  if (selection.only.length > 0 && !matchesAny(id, selection.only)) return NOT_SELECTED;
  if (selection.exclude && selection.exclude.length > 0 && matchesAny(id, selection.exclude)) return EXCLUDED;
  return undefined;
}

/** Whether a run checks a requirement. */
export function isSelected(id: string, selection: Selection): boolean {
  return selectionSkipReason(id, selection) === undefined;
}

/** The prefixes that match none of the ids: a typo, which the command refuses. */
export function unmatchedPrefixes(ids: readonly string[], prefixes: readonly string[]): string[] {
  return prefixes.filter((prefix) => !ids.some((id) => matchesAny(id, [prefix])));
}

/**
 * What is wrong with a run's selection over the catalog's ids, or undefined: each --only and
 * --exclude prefix must match at least one requirement, or the user mistyped it; and together they
 * must leave something to check.
 */
export function selectionProblem(ids: readonly string[], selection: Selection): string | undefined {
  const operations = [...new Set(ids.map((id) => id.split('-')[0]))].join(', ');
  for (const [flag, prefixes] of [
    ['--only', selection.only],
    ['--exclude', selection.exclude ?? []],
  ] as const) {
    const [unmatched] = unmatchedPrefixes(ids, prefixes);
    if (unmatched !== undefined)
      return `${flag} ${unmatched} ${flag === '--only' ? 'selects' : 'matches'} no requirement (id prefixes include ${operations}; petstore-conformance requirements lists them all)`;
  }
  if (!ids.some((id) => isSelected(id, selection))) {
    const only = selection.only.length > 0 ? `--only ${selection.only.join(',')} and ` : '';
    return `${only}--exclude ${(selection.exclude ?? []).join(',')} leave no requirement to check`;
  }
  return undefined;
}

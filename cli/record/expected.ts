/**
 * --expected <file>: deviations a team ships with knowingly, each with its reason, a link and an
 * optional end date. Pure functions: which failures an entry excuses, which entries are stale, and
 * the gate that follows (with --baseline too). The file is read and checked by cli/run/expected.ts.
 *
 * - A failed or blocked requirement that an unexpired entry names is excused: it is still failed
 *   (the verdict says what the deployment does), shown as expected with the entry's reason, and does
 *   not fail the run. A requirement blocked only by excused ones is excused with them.
 * - An entry is stale when its requirement passes now, when it matches nothing (the requirement was
 *   checked and neither failed nor blocked: skipped, say), or when it has expired (an expired entry
 *   excuses nothing). Stale entries are listed; under --strict they fail the run.
 * - Entries of requirements the run leaves out (--only, --exclude) are neither used nor stale.
 */
import { EXCLUDED, NOT_SELECTED } from '../../catalog/select.ts';
import { isBlockedResult, type RequirementResult } from './rollup.ts';

/** One entry of the file, as checked. */
export interface ExpectedEntry {
  readonly id: string;
  readonly reason: string;
  readonly link?: string;
  /** YYYY-MM-DD: the entry excuses nothing after this day (UTC). */
  readonly expires?: string;
}

/** The file, as given and as read. */
export interface ExpectedFile {
  /** The path as given (--expected). */
  readonly given: string;
  readonly entries: readonly ExpectedEntry[];
}

/** A failure the file excuses. */
export interface Excused {
  readonly id: string;
  /** The entry's reason; for a requirement blocked by excused ones, says so. */
  readonly reason: string;
  readonly link?: string;
  readonly expires?: string;
  /** Whether it would have failed the run without the entry. */
  readonly gating: boolean;
}

export interface StaleEntry {
  readonly id: string;
  /** "passes now", "expired on 2026-01-31", "matched nothing: skipped (--read-only: needs writes)". */
  readonly why: string;
}

/** The expected block of a record: summary.json's `expectedFailures`, and the lines of the console and summary.md. */
export interface ExpectedOutcome {
  readonly file: string;
  readonly excused: readonly Excused[];
  readonly stale: readonly StaleEntry[];
  /** Gating requirements bad now that nothing excuses (with --baseline: new ones only): these fail the run. */
  readonly unexcused: readonly string[];
  /** passed: the run exits 0 whatever its verdict; failed: exit 1 (unexcused failures, or stale entries under --strict). */
  readonly gate: 'passed' | 'failed';
}

/** Whether an entry has expired on `today` (YYYY-MM-DD, UTC): the expiry day itself still counts. */
export function hasExpired(entry: Pick<ExpectedEntry, 'expires'>, today: string): boolean {
  return entry.expires !== undefined && entry.expires < today;
}

/**
 * The file against the run's results. `gatingBad` is what would fail the run without the file: the
 * gating requirements failed or blocked, or, with --baseline, its new failures only. `today` is the
 * day the run started, YYYY-MM-DD (UTC).
 */
export function applyExpected(
  file: ExpectedFile,
  results: readonly RequirementResult[],
  options: { readonly strict: boolean; readonly today: string; readonly gatingBad: readonly string[] },
): ExpectedOutcome {
  const byId = new Map(results.map((r) => [r.id, r]));
  const isBad = (r: RequirementResult) => r.status === 'failed' || isBlockedResult(r);
  const excused = new Map<string, Excused>();
  const stale: StaleEntry[] = [];
  for (const entry of file.entries) {
    const r = byId.get(entry.id);
    if (r === undefined) continue; // the file was checked against the catalog: not reached
    if (r.status === 'skipped' && (r.message === NOT_SELECTED || r.message === EXCLUDED)) continue;
    if (hasExpired(entry, options.today)) {
      stale.push({ id: entry.id, why: `expired on ${entry.expires}` });
    } else if (isBad(r)) {
      excused.set(r.id, {
        id: r.id,
        reason: entry.reason,
        ...(entry.link === undefined ? {} : { link: entry.link }),
        ...(entry.expires === undefined ? {} : { expires: entry.expires }),
        gating: r.gating,
      });
    } else if (r.status === 'passed') {
      stale.push({ id: entry.id, why: 'passes now: remove the entry' });
    } else {
      stale.push({ id: entry.id, why: `matched nothing: skipped (${r.message ?? 'not checked'})` });
    }
  }
  // A requirement blocked only by excused failures is excused with them, until none is left to add.
  for (let grew = true; grew; ) {
    grew = false;
    for (const r of results) {
      if (!isBlockedResult(r) || excused.has(r.id)) continue;
      const by = r.blockedBy ?? [];
      if (by.length > 0 && by.every((id) => excused.has(id))) {
        excused.set(r.id, {
          id: r.id,
          reason: `blocked by ${by.join(', ')}, expected to fail`,
          gating: r.gating,
        });
        grew = true;
      }
    }
  }
  const ordered = results.filter((r) => excused.has(r.id)).map((r) => excused.get(r.id)!);
  const unexcused = options.gatingBad.filter((id) => !excused.has(id));
  const staleInOrder = results.flatMap((r) => stale.filter((s) => s.id === r.id));
  const failed = unexcused.length > 0 || (options.strict && staleInOrder.length > 0);
  return {
    file: file.given,
    excused: ordered,
    stale: staleInOrder,
    unexcused,
    gate: failed ? 'failed' : 'passed',
  };
}

/** What a result shows of its excuse: "expected: <reason> (<link>, until <date>)". */
export function excuseText(e: Pick<Excused, 'reason' | 'link' | 'expires'>): string {
  const extra = [e.link, e.expires === undefined ? undefined : `until ${e.expires}`].filter(Boolean);
  return `${e.reason}${extra.length > 0 ? ` (${extra.join(', ')})` : ''}`;
}

/**
 * `rerun`: a run of exactly the requirements an earlier run failed or left blocked (and what blocked
 * them), with its seed and options. Pure functions: which requirements a rerun checks, and what it
 * says of each (fixed, still failing, blocked). The subcommand is cli/across/rerun.ts; the run
 * carries its source (RerunSource) into its record, where every writer shows the outcome.
 */
import type { Level } from '../../catalog/catalog.ts';
import { gates, isBlockedResult, type Status } from './rollup.ts';

/** One result of the earlier run, as its summary.json gives it. */
export interface EarlierResult {
  readonly id: string;
  readonly level: Level;
  readonly status: Status;
  readonly blockedBy?: readonly string[];
}

/** The run a rerun repeats. */
export interface RerunSource {
  /** Its summary.json (or report folder) as given. */
  readonly file: string;
  readonly startedAt: string;
  readonly target: string;
  /** Its results, in catalog order. */
  readonly results: readonly EarlierResult[];
}

export type Before = 'failed' | 'blocked';
export type Now = 'fixed' | 'still failing' | 'blocked' | 'not checked';

export interface RerunItem {
  readonly id: string;
  readonly level: Level;
  readonly before: Before;
  readonly now: Now;
  /** Still failing or blocked at the gating level: it fails the rerun. */
  readonly gating: boolean;
  /** Why it was not checked (a skip's reason), or what blocks it now. */
  readonly note?: string;
}

/** The rerun block of a record: summary.json's `rerun`, the console's and summary.md's lines. */
export interface RerunOutcome {
  readonly file: string;
  readonly startedAt: string;
  readonly target: string;
  /** Each requirement the earlier run failed or left blocked, in catalog order. */
  readonly items: readonly RerunItem[];
  /** Checked again only because a requirement above was blocked by it. */
  readonly preconditions: readonly string[];
}

/** The state a result is in, when bad: failed, or blocked (results.ts isBlockedResult). */
function badState(r: Pick<EarlierResult, 'status' | 'blockedBy'>): Before | undefined {
  if (r.status === 'failed') return 'failed';
  if (isBlockedResult(r)) return 'blocked';
  return undefined;
}

/**
 * What a rerun checks: every requirement failed or blocked in the earlier run, and, following
 * blockedBy from each blocked one (chains too), the requirements that blocked it, whatever their
 * status: a blocked check can only be judged again with its precondition. Catalog order.
 */
export function rerunSelection(results: readonly EarlierResult[]): {
  bad: string[];
  preconditions: string[];
} {
  const byId = new Map(results.map((r) => [r.id, r]));
  const bad = results.filter((r) => badState(r) !== undefined).map((r) => r.id);
  const needed = new Set(bad);
  const queue = [...bad];
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    for (const by of byId.get(id)?.blockedBy ?? []) {
      if (!needed.has(by) && byId.has(by)) {
        needed.add(by);
        queue.push(by);
      }
    }
  }
  const preconditions = results.map((r) => r.id).filter((id) => needed.has(id) && !bad.includes(id));
  return { bad, preconditions };
}

/**
 * The rerun's outcome from its results: for each requirement that was bad, fixed (passed now),
 * still failing, blocked, or not checked (skipped now, for the reason given). `strict` is the
 * gating level of the rerun.
 */
export function rerunOutcome(
  source: RerunSource,
  now: readonly (EarlierResult & { readonly message?: string; readonly gating?: boolean })[],
  strict: boolean,
): RerunOutcome {
  const nowById = new Map(now.map((r) => [r.id, r]));
  const { bad, preconditions } = rerunSelection(source.results);
  const items = bad.map((id): RerunItem => {
    const before = badState(source.results.find((r) => r.id === id)!)!;
    const r = nowById.get(id);
    const level = r?.level ?? source.results.find((x) => x.id === id)!.level;
    if (r === undefined)
      return { id, level, before, now: 'not checked', gating: false, note: 'not in this catalog' };
    const state = badState(r);
    const gating = state !== undefined && gates(level, strict);
    if (r.status === 'passed') return { id, level, before, now: 'fixed', gating: false };
    if (state === 'failed') return { id, level, before, now: 'still failing', gating };
    if (state === 'blocked')
      return {
        id,
        level,
        before,
        now: 'blocked',
        gating,
        note: `blocked by ${(r.blockedBy ?? []).join(', ')}`,
      };
    return {
      id,
      level,
      before,
      now: 'not checked',
      gating: false,
      ...(r.message ? { note: r.message } : {}),
    };
  });
  return { file: source.file, startedAt: source.startedAt, target: source.target, items, preconditions };
}

/** The ids of the items in one state. */
export function idsNow(outcome: RerunOutcome, now: Now): string[] {
  return outcome.items.filter((i) => i.now === now).map((i) => i.id);
}

/**
 * What a rerun checked, in one line, of the earlier failures only (not of the requirements it left
 * alone): "1 requirement checked: fixed", "2 requirements checked: 1 fixed, 1 still failing", and
 * those it could not check now ("; 1 not checked: --read-only: needs writes").
 */
export function checkedText(outcome: RerunOutcome): string {
  const checked = outcome.items.filter((i) => i.now !== 'not checked');
  const states = (['fixed', 'still failing', 'blocked'] as const)
    .map((now) => ({ now, n: checked.filter((i) => i.now === now).length }))
    .filter(({ n }) => n > 0);
  const head =
    checked.length === 0
      ? 'no requirement checked'
      : `${checked.length} requirement${checked.length === 1 ? '' : 's'} checked: ${
          checked.length === 1 ? states[0]!.now : states.map(({ now, n }) => `${n} ${now}`).join(', ')
        }`;
  const skipped = outcome.items.filter((i) => i.now === 'not checked');
  const notes = [...new Set(skipped.map((i) => i.note).filter((n): n is string => n !== undefined))];
  const tail =
    skipped.length === 0
      ? ''
      : `; ${skipped.length} not checked${notes.length > 0 ? `: ${notes.join('; ')}` : ''}`;
  return `${head}${tail}`;
}

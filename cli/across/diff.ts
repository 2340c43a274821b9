/**
 * Requirement by requirement, how one run differs from another: what compare prints and what
 * --baseline gates on. Pure functions over summary.json results.
 *
 * A result is in one of five states: passed, failed, blocked (skipped because another requirement
 * failed first: its `blockedBy`), skipped (for any other reason: not selected, --read-only, not
 * offered, needs a key…) or absent (not in that run's catalog). Failed and blocked are "bad": a
 * run is never conformant while a gating requirement is either.
 *
 * A requirement regressed when it is bad now and was not bad before: failed now and not failed
 * before, or blocked now and neither failed nor blocked before. Failed before and blocked now is
 * no regression (it was not working then either); blocked before and failed now is one (nobody
 * saw it fail before). Skipped now, for whatever reason, is never a regression: a run that did not
 * check a requirement says nothing about it.
 */
import type { Level } from '../../catalog/catalog.ts';
import type { BaselineOutcome } from '../record/record.ts';
import { gates, isBlockedResult } from '../record/rollup.ts';
import type { SummaryResult } from './summary-file.ts';

export type State = 'passed' | 'failed' | 'blocked' | 'skipped' | 'absent';

/** The part of a result the comparison reads; summary.json results and the roll-up's both fit. */
export type Comparable = Pick<SummaryResult, 'id' | 'level' | 'title' | 'status' | 'message' | 'blockedBy'>;

export function stateOf(result: Pick<Comparable, 'status' | 'blockedBy'> | undefined): State {
  if (result === undefined) return 'absent';
  return isBlockedResult(result) ? 'blocked' : result.status;
}

export function isBad(state: State): boolean {
  return state === 'failed' || state === 'blocked';
}

/** Bad now, and not bad in the same way before (see the module's comment). */
export function isRegression(before: State, after: State): boolean {
  if (after === 'failed') return before !== 'failed';
  if (after === 'blocked') return before !== 'failed' && before !== 'blocked';
  return false;
}

export type ChangeKind =
  /** Bad now, not bad before. */
  | 'regression'
  /** Bad before, passed now. */
  | 'fixed'
  /** In the catalog of one run only, and not a regression. */
  | 'added'
  | 'removed'
  /** Any other difference of state: checked in one run only, failed → blocked, … */
  | 'changed';

export interface Change {
  readonly id: string;
  /** The level in the after run (the before run's for a removed requirement). */
  readonly level: Level;
  readonly title: string;
  readonly before: State;
  readonly after: State;
  readonly kind: ChangeKind;
  /** A regression at the gating level: it fails the comparison. */
  readonly gating: boolean;
  /** The message of each side (a failure's expected/received, a skip's reason), when it has one. */
  readonly beforeMessage?: string;
  readonly afterMessage?: string;
}

const ORDER: Record<ChangeKind, number> = { regression: 0, fixed: 1, changed: 2, added: 3, removed: 4 };

/**
 * Every requirement whose state differs between the two runs: gating regressions first, then the
 * other regressions, fixes, other changes, added and removed ones; each group in catalog order
 * (the after run's, then the before run's for removed ones). `strict` is the gating level.
 */
export function diffResults(
  before: readonly Comparable[],
  after: readonly Comparable[],
  strict: boolean,
): Change[] {
  const beforeById = new Map(before.map((r) => [r.id, r]));
  const afterIds = new Set(after.map((r) => r.id));
  const changes: Change[] = [];
  const push = (b: Comparable | undefined, a: Comparable | undefined) => {
    const was = stateOf(b);
    const now = stateOf(a);
    if (was === now) return;
    const current = (a ?? b)!;
    const regression = isRegression(was, now);
    const kind: ChangeKind = regression
      ? 'regression'
      : isBad(was) && now === 'passed'
        ? 'fixed'
        : was === 'absent'
          ? 'added'
          : now === 'absent'
            ? 'removed'
            : 'changed';
    changes.push({
      id: current.id,
      level: current.level,
      title: current.title,
      before: was,
      after: now,
      kind,
      gating: regression && gates(current.level, strict),
      ...(b?.message === undefined ? {} : { beforeMessage: b.message }),
      ...(a?.message === undefined ? {} : { afterMessage: a.message }),
    });
  };
  for (const a of after) push(beforeById.get(a.id), a);
  for (const b of before) if (!afterIds.has(b.id)) push(b, undefined);
  const rank = (c: Change) => (c.kind === 'regression' && !c.gating ? 0.5 : ORDER[c.kind]);
  // Array.prototype.sort is stable: catalog order holds within a group.
  return changes.sort((x, y) => rank(x) - rank(y));
}

/** What a baseline says of the run now, at the gating level (see cli/run/plan.ts loadBaseline). */
export type BaselineDiff = Pick<BaselineOutcome, 'newFailures' | 'stillFailing' | 'fixed'>;

/** The run's results against the baseline's, both judged at the same gating level `strict`. */
export function againstBaseline(
  baseline: readonly Comparable[],
  now: readonly Comparable[],
  strict: boolean,
): BaselineDiff {
  const before = new Map(baseline.map((r) => [r.id, r]));
  const newFailures: string[] = [];
  const stillFailing: string[] = [];
  const fixed: string[] = [];
  for (const r of now) {
    const was = before.get(r.id);
    const wasState = stateOf(was);
    const state = stateOf(r);
    if (isBad(state) && gates(r.level, strict)) {
      (isRegression(wasState, state) ? newFailures : stillFailing).push(r.id);
    } else if (state === 'passed' && was !== undefined && isBad(wasState) && gates(was.level, strict)) {
      fixed.push(r.id);
    }
  }
  return { newFailures, stillFailing, fixed };
}

/**
 * From test outcomes to one result per requirement of the catalog, and from those to the verdict.
 * Pure functions: the reporters, the console and the tests all see the same roll-up.
 */
import type { Catalog, Level, Requirement } from '../../catalog/catalog.ts';
import { EXCLUDED, NOT_SELECTED, selectionSkipReason, isSelected as selects } from '../../catalog/select.ts';
import { type Flakiness, flakinessOf, type TestRetries } from './flaky.ts';
import { RESPONSE_TIME_ID, type SlowAnswers, slowAnswerFailure } from './slow.ts';

export { EXCLUDED, NOT_SELECTED };

export type Status = 'passed' | 'failed' | 'skipped';

/** What a failed check says: the suites' ConformanceError carries expected/received/reproduce. */
export interface Failure {
  readonly message: string;
  readonly expected?: string;
  readonly received?: string;
  readonly reproduce?: string;
}

/** A 5xx answer a test received, whatever it checked (task.meta.serverErrors); masked. */
export interface ServerErrorSeen {
  readonly method: string;
  readonly url: string;
  readonly status: number;
  readonly reproduce: string;
}

/** The MUST that no request of the suite is answered with a 5xx: every test's 5xx answers fail it. */
export const NO_5XX_ID = 'ANY-NO-5XX';

/** One vitest test, reduced to what the roll-up needs. */
export interface TestOutcome {
  /** From testCase.meta().requirementId; undefined when a test carries none (a suite bug). */
  readonly requirementId: string | undefined;
  readonly name: string;
  /** The suite file, relative to the package root. */
  readonly file: string;
  readonly state: Status;
  /** Why it was skipped (ctx.skip(reason)). */
  readonly note?: string;
  readonly failures: readonly Failure[];
  readonly durationMs: number;
  /** The 5xx answers this test received (the first few). */
  readonly serverErrors?: readonly ServerErrorSeen[];
  /**
   * Skipped because a precondition could not be had: the requirements whose failure blocks it
   * (task.meta.blockedBy). Its `failures` then hold the evidence: what was needed and what came back.
   */
  readonly blockedBy?: readonly string[];
  /** Failed by an exception of the check itself, not an HTTP expectation: a bug of the suite. */
  readonly suiteError?: string;
  /** Requests sent again because the transport failed (--retries). */
  readonly retries?: TestRetries;
  /** Each answer's time: method, path under the base URL, milliseconds (the reports' response times). */
  readonly timings?: readonly (readonly [string, string, number])[];
  /** Answers slower than --max-response-time (the first few) and how many: ANY-RESPONSE-TIME fails on them. */
  readonly slowAnswers?: SlowAnswers;
}

export interface RequirementResult {
  readonly id: string;
  readonly level: Level;
  readonly title: string;
  readonly operation: Requirement['operation'];
  readonly status: Status;
  /** Failed: what was expected and what came back. Skipped: the reason. */
  readonly message?: string;
  readonly expected?: string;
  readonly received?: string;
  readonly reproduce?: string;
  /**
   * Blocked (status skipped): the requirements whose failure kept it from being judged; `message`
   * says what came back. A blocked gating requirement never makes a run conformant.
   */
  readonly blockedBy?: readonly string[];
  /** Failed or blocked: whether this decides the verdict (MUST; SHOULD with --strict). */
  readonly gating: boolean;
  readonly tests: { readonly passed: number; readonly failed: number; readonly skipped: number };
  readonly durationMs: number;
  /** Passed, but only after requests were sent again (--retries): flaky.ts. */
  readonly flaky?: Flakiness['flaky'];
  readonly retries?: Flakiness['retries'];
  readonly retried?: Flakiness['retried'];
}

export interface RollUp {
  readonly results: readonly RequirementResult[];
  readonly verdict: 'conformant' | 'non-conformant';
  /** `skipped` counts every skipped requirement, the blocked ones included; `blocked` counts those. */
  readonly totals: {
    readonly passed: number;
    readonly failed: number;
    readonly skipped: number;
    readonly blocked: number;
  };
  /** Selected requirements that no test reported on: the suite broke, the run cannot judge. */
  readonly unjudged: readonly string[];
  /** Problems of the suite that do not stop the verdict (tests without or with an unknown id). */
  readonly suiteWarnings: readonly string[];
}

/** Whether a run checks a requirement: --only selects it (no prefixes selects all) and --exclude does not leave it out. */
export function isSelected(id: string, only: readonly string[], exclude: readonly string[] = []): boolean {
  return selects(id, { only, exclude });
}

/** Whether a failure of this level fails the run. */
export function gates(level: Level, strict: boolean): boolean {
  return level === 'MUST' || (level === 'SHOULD' && strict);
}

/**
 * One result per catalog requirement, in catalog order: failed if any of its tests failed, else
 * passed if any passed, else skipped with the reason its tests gave. A requirement --only leaves
 * out is skipped "not selected by --only", one --exclude leaves out "excluded by --exclude", whatever ran.
 */
export function rollUp(
  catalog: Pick<Catalog, 'requirements' | 'get'>,
  outcomes: readonly TestOutcome[],
  options: {
    readonly only: readonly string[];
    readonly exclude?: readonly string[];
    readonly strict: boolean;
  },
): RollUp {
  const byId = new Map<string, TestOutcome[]>();
  const suiteWarnings: string[] = [];
  for (const outcome of outcomes) {
    if (outcome.requirementId === undefined) {
      suiteWarnings.push(
        `${outcome.file}: test "${outcome.name}" carries no requirement id; its result is ignored`,
      );
      continue;
    }
    if (!catalog.get(outcome.requirementId)) {
      suiteWarnings.push(
        `${outcome.file}: test "${outcome.name}" names ${outcome.requirementId}, which is not in the catalog; its result is ignored`,
      );
      continue;
    }
    const list = byId.get(outcome.requirementId) ?? [];
    list.push(outcome);
    byId.set(outcome.requirementId, list);
  }

  const unjudged: string[] = [];
  const fiveHundreds = outcomes.flatMap((o) =>
    (o.serverErrors ?? []).map((e) => ({ ...e, checking: o.requirementId ?? o.name })),
  );
  const results = catalog.requirements.map((r): RequirementResult => {
    const tests = byId.get(r.id) ?? [];
    const count = (s: Status) => tests.filter((t) => t.state === s).length;
    const base = {
      id: r.id,
      level: r.level,
      title: r.title,
      operation: r.operation,
      tests: { passed: count('passed'), failed: count('failed'), skipped: count('skipped') },
      durationMs: tests.reduce((sum, t) => sum + t.durationMs, 0),
    };
    const leftOut = selectionSkipReason(r.id, options);
    if (leftOut !== undefined) return { ...base, status: 'skipped', message: leftOut, gating: false };
    const failed = tests.filter((t) => t.state === 'failed');
    const slow = r.id === RESPONSE_TIME_ID && failed.length === 0 ? slowAnswerFailure(outcomes) : undefined;
    if (slow !== undefined)
      return { ...base, status: 'failed', ...slow, gating: gates(r.level, options.strict) };
    if (r.id === NO_5XX_ID && failed.length === 0 && fiveHundreds.length > 0) {
      // A 5xx seen by any check breaks this MUST ("no request the suite sends … is answered with a 5xx").
      const [first, ...others] = fiveHundreds as [(typeof fiveHundreds)[0], ...typeof fiveHundreds];
      const received = `${first.method} ${pathOf(first.url)} answered ${first.status} (seen while checking ${first.checking})${
        others.length > 0 ? `; ${others.length} more 5xx seen by other checks` : ''
      }`;
      const expected = 'no 5xx status to any request the suite sends';
      return {
        ...base,
        status: 'failed',
        message: describeFailure({ message: received, expected, received }),
        expected,
        received,
        reproduce: first.reproduce,
        gating: gates(r.level, options.strict),
      };
    }
    if (failed.length > 0) {
      const failures = failed.flatMap((t) => t.failures);
      const first = failures.find((f) => f.reproduce !== undefined) ?? failures[0];
      const ofTotal = tests.length > 1 ? ` (${failed.length} of ${tests.length} checks failed)` : '';
      return {
        ...base,
        status: 'failed',
        message: `${describeFailure(first)}${ofTotal}`,
        ...(first?.expected === undefined ? {} : { expected: first.expected }),
        ...(first?.received === undefined ? {} : { received: first.received }),
        ...(first?.reproduce === undefined ? {} : { reproduce: first.reproduce }),
        gating: gates(r.level, options.strict),
      };
    }
    const blockedTests = tests.filter((t) => t.state === 'skipped' && t.blockedBy !== undefined);
    if (blockedTests.length > 0) {
      const [first] = blockedTests as [TestOutcome, ...TestOutcome[]];
      const evidence = first.failures[0];
      const ofTotal = tests.length > 1 ? ` (${blockedTests.length} of ${tests.length} checks blocked)` : '';
      return {
        ...base,
        status: 'skipped',
        blockedBy: [...new Set(blockedTests.flatMap((t) => t.blockedBy ?? []))],
        message: `${first.note ?? 'blocked'}${ofTotal}`,
        ...(evidence?.expected === undefined ? {} : { expected: evidence.expected }),
        ...(evidence?.received === undefined ? {} : { received: evidence.received }),
        ...(evidence?.reproduce === undefined ? {} : { reproduce: evidence.reproduce }),
        gating: gates(r.level, options.strict),
      };
    }
    if (tests.some((t) => t.state === 'passed'))
      return { ...base, status: 'passed', gating: false, ...flakinessOf(tests) };
    if (tests.length > 0) {
      const reasons = [...new Set(tests.map((t) => t.note?.trim() || 'skipped by the suite'))];
      return { ...base, status: 'skipped', message: reasons.join('; '), gating: false };
    }
    unjudged.push(r.id);
    return { ...base, status: 'skipped', message: 'no test reported on this requirement', gating: false };
  });

  const judged = results.map((r) => unblockWhereTheBlockerPassed(r, results));
  const totals = {
    passed: judged.filter((r) => r.status === 'passed').length,
    failed: judged.filter((r) => r.status === 'failed').length,
    skipped: judged.filter((r) => r.status === 'skipped').length,
    blocked: judged.filter(isBlockedResult).length,
  };
  const verdict = judged.some((r) => (r.status === 'failed' || isBlockedResult(r)) && r.gating)
    ? 'non-conformant'
    : 'conformant';
  return { results: judged, verdict, totals, unjudged, suiteWarnings };
}

/** Whether a result is blocked: skipped because requirements it depends on failed. */
export function isBlockedResult(r: RequirementResult): boolean {
  return r.status === 'skipped' && r.blockedBy !== undefined && r.blockedBy.length > 0;
}

/**
 * A blocked requirement whose blockers all passed their own checks met a real failure that those
 * checks did not see (a create refused only for this check's pet, say): it fails, with that evidence.
 */
function unblockWhereTheBlockerPassed(
  r: RequirementResult,
  results: readonly RequirementResult[],
): RequirementResult {
  if (!isBlockedResult(r)) return r;
  const blockers = (r.blockedBy ?? []).map((id) => results.find((other) => other.id === id));
  if (!blockers.every((b) => b?.status === 'passed')) return r;
  const { blockedBy: _blockedBy, ...rest } = r;
  const detail = describeFailure({ message: r.message ?? '', ...pick(r) });
  return {
    ...rest,
    status: 'failed',
    message: `${detail} (a precondition of this check failed, although ${(r.blockedBy ?? []).join(', ')} passed its own checks)`,
  };
}

function pick(r: RequirementResult): Pick<Failure, 'expected' | 'received' | 'reproduce'> {
  return {
    ...(r.expected === undefined ? {} : { expected: r.expected }),
    ...(r.received === undefined ? {} : { received: r.received }),
    ...(r.reproduce === undefined ? {} : { reproduce: r.reproduce }),
  };
}

/**
 * The roll-up of a run that could not judge: every requirement skipped with the reason, totals zero,
 * and the verdict non-conformant, so that a gate never reads a run that judged nothing as conformant.
 */
export function cannotJudgeRollUp(requirements: readonly Requirement[], reason: string): RollUp {
  return {
    results: requirements.map((r) => ({
      id: r.id,
      level: r.level,
      title: r.title,
      operation: r.operation,
      status: 'skipped',
      message: `could not judge: ${reason}`,
      gating: false,
      tests: { passed: 0, failed: 0, skipped: 0 },
      durationMs: 0,
    })),
    verdict: 'non-conformant',
    totals: { passed: 0, failed: 0, skipped: 0, blocked: 0 },
    unjudged: [],
    suiteWarnings: [],
  };
}

/** "what was expected and what came back", in one line. */
export function describeFailure(failure: Failure | undefined): string {
  if (!failure) return 'failed without an error message';
  if (failure.expected !== undefined || failure.received !== undefined) {
    return [
      failure.expected === undefined ? '' : `expected ${failure.expected}`,
      failure.received === undefined ? '' : `received ${failure.received}`,
    ]
      .filter(Boolean)
      .join('; ');
  }
  return firstLine(failure.message) || 'failed';
}

/** A URL without its scheme and host: "/v1/pets/12abc". */
function pathOf(url: string): string {
  return url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '') || '/';
}

function firstLine(text: string): string {
  return (text.split('\n').find((line) => line.trim() !== '') ?? '').trim();
}

/**
 * What a run's results are made of: a test's outcome, a requirement's result, the roll-up. The bottom
 * of cli/record/: the roll-up (rollup.ts) and the blocking rules (blocking.ts) both read it.
 */
import type { Level, Requirement } from '../../catalog/catalog.ts';
import type { Flakiness, TestRetries } from './flaky.ts';
import type { SlowAnswers } from './slow.ts';

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

/**
 * A failure of another requirement's rule that a test saw while checking its own (task.meta.findings):
 * an answer that disagrees with what the run created (suites/harness/model/model.ts). It fails the
 * requirement it names, not the test that saw it; masked.
 */
export interface Finding {
  readonly requirementId: string;
  readonly expected: string;
  readonly received: string;
  readonly reproduce: string;
  /** Requirements whose failure explains it: when one fails, the one named is blocked by it instead. */
  readonly unless?: readonly string[];
}

/** One vitest test, reduced to what the roll-up needs. */
export interface TestOutcome {
  /** From testCase.meta().requirementId; undefined when a test carries none (a suite bug). */
  readonly requirementId: string | undefined;
  readonly name: string;
  /** The suite file, relative to the package root. */
  readonly file: string;
  /** Its place in its file, as declared; a requirement's checks are taken in that order. */
  readonly declared?: number;
  readonly state: Status;
  /** Why it was skipped (ctx.skip(reason)). */
  readonly note?: string;
  readonly failures: readonly Failure[];
  readonly durationMs: number;
  /** When it started, in milliseconds since the epoch (vitest's startTime); absent when it never ran. */
  readonly startedAt?: number;
  /** The 5xx answers this test received (the first few). */
  readonly serverErrors?: readonly ServerErrorSeen[];
  /**
   * Skipped because a precondition could not be had: the requirements whose failure blocks it
   * (task.meta.blockedBy). Its `failures` then hold the evidence: what was needed and what came back.
   */
  readonly blockedBy?: readonly string[];
  /**
   * Blocked on suspicion (suites/harness/requirement/blocked.ts suspected): the check fails itself, saying this,
   * unless one of blockedBy fails.
   */
  readonly ownFault?: string;
  /** Failed by an exception of the check itself, not an HTTP expectation: a bug of the suite. */
  readonly suiteError?: string;
  /** Failures of other requirements' rules this test saw (the first few). */
  readonly findings?: readonly Finding[] /** Requests sent again because the transport failed (--retries). */;
  readonly retries?: TestRetries;
  /** Answers slower than --max-response-time (the first few) and how many: ANY-RESPONSE-TIME fails on them. */
  readonly slowAnswers?: SlowAnswers;
  /**
   * Not judged: the deployment's rate limit kept one of its requests from an answer longer than a
   * run waits (task.meta.rateLimited; suites/harness/evidence/errors.ts RateLimited): what it says, masked,
   * and the requests a second the run's pace was down to then, when it had been cut.
   */
  readonly rateLimited?: { readonly message: string; readonly paceRate?: number };
  /**
   * Not judged: a cause of the deployment's that no requirement's rule names kept it from judging
   * (task.meta.notJudged; suites/harness/requirement/not-judged.ts): which cause, and what it met, masked.
   */
  readonly notJudged?: NotJudgedCause;
  /**
   * A 5xx it met that the same request, sent again, did not get (task.meta.comeAndGo): the deployment
   * fails now and then, and the test is blocked by ANY-NO-5XX.
   */
  /**
   * The run saw the deployment answer from more than one store (a pet it created found by one show
   * and not by another): the first answer that shows it (task.meta.moreThanOneStore), masked.
   */
  readonly moreThanOneStore?: {
    readonly expected: string;
    readonly received: string;
    readonly reproduce: string;
  };
  /** Failed on an answer about what the store holds (a pet the run created, the list): with more than one store, that explains it. */
  readonly aboutStoredPets?: true;
  readonly comeAndGo?: {
    readonly method: string;
    readonly url: string;
    readonly status: number;
    readonly again: number;
  };
}

/** A cause that keeps checks from being judged, and what the deployment did, in one line. */
export interface NotJudgedCause {
  /** 'rate-limit', 'api-key', 'store-full', …: the run names each cause once. */
  readonly cause: string;
  readonly message: string;
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
  /**
   * Blocked on suspicion: what its failure says when none of blockedBy fails (cli/record/blocking.ts).
   * Not written to any report: once blocking is resolved it is either a failure or a block.
   */
  readonly ownFault?: string;
  /**
   * Not judged (status skipped, message "not judged: …"): the cause that kept its checks from
   * judging. A gating requirement not judged leaves the run's verdict could-not-judge.
   */
  readonly notJudged?: NotJudgedCause;
  /** Failed or blocked: whether this decides the verdict (MUST; SHOULD with --strict). */
  readonly gating: boolean;
  readonly tests: { readonly passed: number; readonly failed: number; readonly skipped: number };
  readonly durationMs: number /** Passed, but only after requests were sent again (--retries): flaky.ts. */;
  readonly flaky?: Flakiness['flaky'];
  readonly retries?: Flakiness['retries'];
  readonly retried?: Flakiness['retried'];
}

/**
 * conformant: no gating requirement failed or blocked, and every gating one judged; non-conformant:
 * a gating one failed or is blocked (whatever was left unjudged); could-not-judge: none failed, and a
 * cause of the deployment's (a rate limit, a key not given, a full store) kept gating ones unjudged.
 */
export type Verdict = 'conformant' | 'non-conformant' | 'could-not-judge';

export interface RollUp {
  readonly results: readonly RequirementResult[];
  readonly verdict: Verdict;
  /** `skipped` counts every skipped requirement, the blocked ones included; `blocked` counts those. */
  readonly totals: {
    readonly passed: number;
    readonly failed: number;
    readonly skipped: number;
    readonly blocked: number;
  };
  /** Selected requirements that no test reported on: the suite broke, the run cannot judge. */
  readonly unjudged: readonly string[];
  /**
   * Gating requirements the deployment's rate limit kept from being judged (a check of theirs was
   * refused longer than a run waits): with no gating failure, the run cannot judge (run/judge.ts).
   */
  readonly rateLimited: readonly string[];
  /** The lowest pace (requests a second) the run was down to when the rate limit kept a check from an answer. */
  readonly rateLimitedPace?: number;
  /**
   * Gating requirements a cause of the deployment's kept from being judged (the rate limit's among
   * them), in catalog order: with no gating failure, the run could not judge.
   */
  readonly notJudged: readonly string[];
  /** Problems of the suite that do not stop the verdict (tests without or with an unknown id). */
  readonly suiteWarnings: readonly string[];
}

/**
 * Whether a result is blocked: skipped because requirements it depends on failed (its `blockedBy`).
 * The one definition: the roll-up, the blocking rules, every report, rerun and compare ask it, of
 * the roll-up's results and of a summary.json's alike.
 */
export function isBlockedResult(r: Pick<RequirementResult, 'status' | 'blockedBy'> | undefined): boolean {
  return r !== undefined && r.status === 'skipped' && (r.blockedBy?.length ?? 0) > 0;
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

function firstLine(text: string): string {
  return (text.split('\n').find((line) => line.trim() !== '') ?? '').trim();
}

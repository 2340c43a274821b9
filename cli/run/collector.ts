/**
 * The vitest reporter of the CLI, on the suites' thread (vitest-run.ts): turns each finished test
 * into a CheckOutcome (its outcome for the roll-up, and when it ran), through vitest's public
 * reporter API only (TestCase.meta(), .result(), .diagnostic()); tells progress, and keeps what the
 * run needs to tell "the server failed" from "the suite broke". What the Allure results show of a
 * check is allure-vitest's (suites/harness/requirement/report.ts).
 */
import path from 'node:path';
import type { SerializedError } from 'vitest';
import type { Reporter, TestCase, TestModule, TestSuite, Vitest } from 'vitest/node';
import type { RetriedAttempt, TestRetries } from '../record/flaky.ts';
import type { CheckOutcome } from '../record/record.ts';
import type { Failure, Finding, ServerErrorSeen } from '../record/rollup.ts';
import type { SlowAnswers } from '../record/slow.ts';

/** A suite file that failed to load: no test of it ran, so its requirements cannot be judged. */
export interface BrokenModule {
  readonly file: string;
  readonly message: string;
}

export interface CollectorEvents {
  /** A test started (--events). */
  onStart?(test: TestCase): void;
  /** A test finished (progress). */
  onOutcome?(outcome: CheckOutcome, done: number, collected: number): void;
  /** The tests of a file were collected: the run's deadline grows with them. */
  onCollected?(tests: readonly TestCase[]): void;
}

export class OutcomeCollector implements Reporter {
  readonly outcomes: CheckOutcome[] = [];
  readonly brokenModules: BrokenModule[] = [];
  readonly unhandledErrors: string[] = [];
  vitest: Vitest | undefined;
  runEnded = false;
  /** Set when the run's deadline cancels it: tests vitest then reports skipped did not finish. */
  deadlineHit = false;
  private collected = 0;
  /** Each test's place in its file, as declared: a requirement's checks are judged in that order. */
  private readonly declared = new Map<string, number>();
  private readonly seen = new Set<string>();

  constructor(
    private readonly root: string,
    private readonly events: CollectorEvents = {},
  ) {}

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestModuleCollected(module: TestModule): void {
    const tests = [...module.children.allTests()];
    for (const [i, test] of tests.entries()) this.declared.set(test.id, i);
    this.collected += tests.length;
    this.events.onCollected?.(tests);
  }

  onTestCaseReady(test: TestCase): void {
    this.events.onStart?.(test);
  }

  onTestCaseResult(test: TestCase): void {
    this.record(test);
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    for (const module of modules) {
      const tests = [...module.children.allTests()];
      // Tests vitest never reported one by one (a module that failed around them).
      for (const test of tests) this.record(test);
      const errors = module.errors();
      if (tests.length === 0 && errors.length > 0) {
        this.brokenModules.push({ file: this.relative(module.moduleId), message: errorsText(errors) });
      }
    }
    for (const error of unhandledErrors) this.unhandledErrors.push(errorsText([error]));
    this.runEnded = true;
  }

  /** Tests collected but not finished (the run was cut short): their outcomes as failures. */
  unfinished(reason: string): CheckOutcome[] {
    const modules = this.vitest?.state.getTestModules() ?? [];
    const out: CheckOutcome[] = [];
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        if (this.seen.has(test.id)) continue;
        out.push({
          requirementId: requirementIdOf(test),
          name: test.name,
          file: this.relative(test.module.moduleId),
          state: 'failed',
          failures: [{ message: reason }],
          durationMs: 0,
        });
      }
    }
    return out;
  }

  private record(test: TestCase): void {
    if (this.seen.has(test.id)) return;
    const result = test.result();
    if (result.state === 'pending') return;
    this.seen.add(test.id);
    const serverErrors = serverErrorsOf(test);
    const findings = findingsOf(test);
    const retries = retriesOf(test);
    const slowAnswers = slowAnswersOf(test);
    const meta = test.meta() as {
      blockedBy?: unknown;
      suiteError?: unknown;
      blockedEvidence?: unknown;
      blockedOwnFault?: unknown;
      rateLimited?: { message?: unknown; paceRate?: unknown };
      notJudged?: { cause?: unknown; message?: unknown };
      comeAndGo?: { method?: unknown; url?: unknown; status?: unknown; again?: unknown };
      moreThanOneStore?: { expected?: unknown; received?: unknown; reproduce?: unknown };
      aboutStoredPets?: unknown;
    };
    const blockedBy = Array.isArray(meta.blockedBy)
      ? meta.blockedBy.filter((id) => typeof id === 'string')
      : [];
    const diagnostic = test.diagnostic();
    const base = {
      requirementId: requirementIdOf(test),
      name: test.name,
      file: this.relative(test.module.moduleId),
      ...(this.declared.has(test.id) ? { declared: this.declared.get(test.id)! } : {}),
      durationMs: Math.round(diagnostic?.duration ?? 0),
      ...(diagnostic === undefined ? {} : { startedAt: diagnostic.startTime }),
      ...(serverErrors.length > 0 ? { serverErrors } : {}),
      ...(findings.length > 0 ? { findings } : {}),
      ...(retries ? { retries } : {}),
      ...(slowAnswers ? { slowAnswers } : {}),
      ...(result.state === 'skipped' && blockedBy.length > 0
        ? {
            blockedBy,
            ...(typeof meta.blockedOwnFault === 'string' ? { ownFault: meta.blockedOwnFault } : {}),
          }
        : {}),
      ...(result.state === 'failed' && typeof meta.suiteError === 'string'
        ? { suiteError: meta.suiteError }
        : {}),
      ...(result.state === 'skipped' && typeof meta.rateLimited?.message === 'string'
        ? {
            rateLimited: {
              message: meta.rateLimited.message,
              ...(typeof meta.rateLimited.paceRate === 'number'
                ? { paceRate: meta.rateLimited.paceRate }
                : {}),
            },
          }
        : {}),
      ...(result.state === 'skipped' &&
      typeof meta.notJudged?.cause === 'string' &&
      typeof meta.notJudged.message === 'string'
        ? { notJudged: { cause: meta.notJudged.cause, message: meta.notJudged.message } }
        : {}),
      ...comeAndGoOf(meta.comeAndGo),
      ...(typeof meta.moreThanOneStore?.expected === 'string' &&
      typeof meta.moreThanOneStore.received === 'string' &&
      typeof meta.moreThanOneStore.reproduce === 'string'
        ? {
            moreThanOneStore: {
              expected: meta.moreThanOneStore.expected,
              received: meta.moreThanOneStore.received,
              reproduce: meta.moreThanOneStore.reproduce,
            },
          }
        : {}),
      ...(meta.aboutStoredPets === true ? { aboutStoredPets: true as const } : {}),
    };
    let outcome: CheckOutcome;
    if (result.state === 'failed') {
      outcome = { ...base, state: 'failed', failures: result.errors.map(toFailure) };
    } else if (result.state === 'skipped') {
      // A test skipped without a note under a failed hook did not run because its setup failed:
      // the server failed the setup, so the test fails with the hook's error.
      const setupErrors = ancestorErrors(test);
      outcome =
        result.note === undefined && setupErrors.length > 0
          ? { ...base, state: 'failed', failures: setupErrors.map(toFailure) }
          : this.deadlineHit && isCancelNote(result.note)
            ? // Cut by the deadline ("The test run was aborted by the user."): not a skip, a check not finished.
              { ...base, state: 'failed', failures: [{ message: NOT_FINISHED }] }
            : {
                ...base,
                state: 'skipped',
                ...(result.note ? { note: result.note } : {}),
                // A blocked check keeps its evidence: what it needed and what came back.
                failures: 'blockedBy' in base ? blockedEvidence(meta) : [],
              };
    } else {
      outcome = { ...base, state: 'passed', failures: [] };
    }
    this.outcomes.push(outcome);
    this.events.onOutcome?.(outcome, this.outcomes.length, this.collected);
  }

  private relative(file: string): string {
    return path.relative(this.root, file).split(path.sep).join('/');
  }
}

/** Why a check cut by the run's deadline fails. */
export const NOT_FINISHED = "not finished before the run's deadline (the server kept the run waiting)";

/** A skip vitest gives the tests a cancelled run did not finish (no note, or its "aborted" note). */
function isCancelNote(note: string | undefined): boolean {
  return note === undefined || /\baborted\b/i.test(note);
}

function requirementIdOf(test: TestCase): string | undefined {
  const id = (test.meta() as { requirementId?: unknown }).requirementId;
  return typeof id === 'string' ? id : undefined;
}

/** The 5xx answers a test received (task.meta.serverErrors, set by the harness), well-formed ones only. */
function serverErrorsOf(test: TestCase): ServerErrorSeen[] {
  const seen = (test.meta() as { serverErrors?: unknown }).serverErrors;
  if (!Array.isArray(seen)) return [];
  return seen.filter(
    (e): e is ServerErrorSeen =>
      typeof e === 'object' &&
      e !== null &&
      typeof e.method === 'string' &&
      typeof e.url === 'string' &&
      typeof e.status === 'number' &&
      typeof e.reproduce === 'string',
  );
}

/** Failures of other requirements' rules a test saw (task.meta.findings, set by the harness), well-formed ones only. */
function findingsOf(test: TestCase): Finding[] {
  const seen = (test.meta() as { findings?: unknown }).findings;
  if (!Array.isArray(seen)) return [];
  return seen.filter(
    (f): f is Finding =>
      typeof f === 'object' &&
      f !== null &&
      typeof f.requirementId === 'string' &&
      typeof f.expected === 'string' &&
      typeof f.received === 'string' &&
      typeof f.reproduce === 'string' &&
      (f.unless === undefined ||
        (Array.isArray(f.unless) && f.unless.every((u: unknown) => typeof u === 'string'))),
  );
}

/** The attempts a test sent again (task.meta.retried and retryCount, set by the harness), well-formed ones only. */
function retriesOf(test: TestCase): TestRetries | undefined {
  const meta = test.meta() as { retried?: unknown; retryCount?: unknown };
  if (typeof meta.retryCount !== 'number' || meta.retryCount <= 0) return undefined;
  const first = (Array.isArray(meta.retried) ? meta.retried : []).filter(
    (r): r is RetriedAttempt =>
      typeof r === 'object' &&
      r !== null &&
      typeof r.method === 'string' &&
      typeof r.url === 'string' &&
      typeof r.error === 'string',
  );
  return { count: meta.retryCount, first };
}

/** The answers slower than --max-response-time a test saw (task.meta.slowAnswers and slowCount). */
function slowAnswersOf(test: TestCase): SlowAnswers | undefined {
  const meta = test.meta() as { slowAnswers?: unknown; slowCount?: unknown };
  if (typeof meta.slowCount !== 'number' || meta.slowCount <= 0 || !Array.isArray(meta.slowAnswers))
    return undefined;
  const first = meta.slowAnswers.filter(
    (a): a is SlowAnswers['first'][number] =>
      typeof a === 'object' &&
      a !== null &&
      typeof a.method === 'string' &&
      typeof a.url === 'string' &&
      typeof a.status === 'number' &&
      typeof a.ms === 'number' &&
      typeof a.budgetMs === 'number' &&
      typeof a.reproduce === 'string',
  );
  return first.length > 0 ? { count: meta.slowCount, first } : undefined;
}

/** A 5xx the test met that the same request, sent again, did not get (task.meta.comeAndGo), well-formed. */
function comeAndGoOf(
  seen: { method?: unknown; url?: unknown; status?: unknown; again?: unknown } | undefined,
): Pick<CheckOutcome, 'comeAndGo'> {
  if (
    typeof seen?.method !== 'string' ||
    typeof seen.url !== 'string' ||
    typeof seen.status !== 'number' ||
    typeof seen.again !== 'number'
  )
    return {};
  return { comeAndGo: { method: seen.method, url: seen.url, status: seen.status, again: seen.again } };
}

/** The evidence a blocked check left in task.meta.blockedEvidence, as a Failure. */
function blockedEvidence(meta: { blockedEvidence?: unknown }): Failure[] {
  const e = meta.blockedEvidence;
  if (typeof e !== 'object' || e === null) return [];
  return [toFailure({ ...(e as Record<string, unknown>), name: 'ConformanceError', message: 'blocked' })];
}

/** Errors of the describe blocks and the file around a test (failed beforeAll/afterAll hooks). */
function ancestorErrors(test: TestCase): SerializedError[] {
  const errors: SerializedError[] = [];
  let parent: TestSuite | TestModule = test.parent;
  for (;;) {
    errors.push(...parent.errors());
    if (parent.type === 'module') return errors;
    parent = parent.parent;
  }
}

/**
 * A serialized error as a Failure. The suites' ConformanceError has own string props expected,
 * received and reproduce; a plain assertion has expected/actual; anything else only a message.
 */
export function toFailure(error: SerializedError | { message?: unknown; [key: string]: unknown }): Failure {
  const e = error as Record<string, unknown>;
  const str = (v: unknown): string | undefined =>
    typeof v === 'string' ? v : v === undefined || v === null ? undefined : safeJson(v);
  const message = typeof e.message === 'string' && e.message !== '' ? e.message : String(e.name ?? 'error');
  if (typeof e.reproduce === 'string' || e.name === 'ConformanceError') {
    return {
      message,
      ...optional('expected', str(e.expected)),
      ...optional('received', str(e.received)),
      ...optional('reproduce', typeof e.reproduce === 'string' ? e.reproduce : undefined),
    };
  }
  if (e.name === 'AssertionError' && ('expected' in e || 'actual' in e)) {
    return { message, ...optional('expected', str(e.expected)), ...optional('received', str(e.actual)) };
  }
  return { message };
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

function errorsText(errors: ReadonlyArray<SerializedError>): string {
  return errors.map((e) => `${e.name ? `${e.name}: ` : ''}${e.message}`).join('\n');
}

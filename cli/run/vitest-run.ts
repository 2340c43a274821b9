/**
 * One run of the conformance suites under vitest's programmatic API, bounded in time whatever the
 * server does: the run's deadline grows with the tests collected (each test and hook has its own
 * timeout), and past it the run is cancelled and its unfinished tests fail. It runs on the suites'
 * thread (suites-thread.ts), which suites.ts starts: vitest's process-wide habits (the signal
 * listeners its logger adds, its exit after a teardown that outlasts teardownTimeout) end a thread
 * there, never the command.
 *
 * Reporters: the CLI's (collector.ts), and allure-vitest's, which writes the Allure results of the
 * checks (the harness records what they show through allure-js-commons' runtime API).
 */
import path from 'node:path';
import type { Writable } from 'node:stream';
import AllureVitestReporter from 'allure-vitest/reporter';
import { startVitest, type TestCase } from 'vitest/node';
import type { Level } from '../../catalog/catalog.ts';
import { CONFIG_KEY } from '../../suites/harness/config/config.ts';
import { rateLimitPatienceMs } from '../../suites/harness/http/pace.ts';
import type { CheckOutcome } from '../record/record.ts';
import type { CheckInfo } from '../reports/events.ts';
import { type BrokenModule, OutcomeCollector } from './collector.ts';

export type VitestOptions = NonNullable<Parameters<typeof startVitest>[2]>;

export interface SuiteRun {
  readonly outcomes: readonly CheckOutcome[];
  /** Suite files that failed to load: the suite is broken, the run cannot judge. */
  readonly brokenModules: readonly BrokenModule[];
  readonly unhandledErrors: readonly string[];
  /** Vitest could not run at all (a configuration error): the run cannot judge. */
  readonly startError?: string;
  /** The run was cut at its deadline; unfinished tests are in outcomes as failures. */
  readonly deadlineHit: boolean;
  /** The run was cancelled because it was interrupted (RunSuitesOptions.stop); it judges nothing. */
  readonly interrupted?: boolean;
}

/** What a run tells as it goes, in plain data (it crosses from the suites' thread). */
export interface SuiteEvents {
  /** A suite file's tests were collected. */
  onCollected?(checks: readonly CheckInfo[]): void;
  /** A test started (--events). */
  onStart?(check: CheckInfo): void;
  /** A test finished: its outcome, how many have, of how many collected. */
  onOutcome?(outcome: CheckOutcome, done: number, collected: number): void;
}

export interface VitestRunInput {
  readonly suiteOptions: VitestOptions;
  /** The package root: test files are reported relative to it. */
  readonly root: string;
  /** Time allowed before any test is collected (vitest start-up, suite files loading). */
  readonly startupMs?: number;
  /** Where allure-vitest writes the checks' Allure results; none: no Allure results. */
  readonly allureResultsDir?: string;
  /** Where vitest's own messages go (startVitest's stdout and stderr options). */
  readonly stdout?: Writable;
  readonly stderr?: Writable;
  readonly events?: SuiteEvents;
  /** Aborted when the run is interrupted: the checks are cancelled, as at the deadline. */
  readonly stop?: AbortSignal;
}

/** Runs the suites once. Never rejects for what a server does; returns what vitest reported. */
export async function runVitest(input: VitestRunInput): Promise<SuiteRun> {
  const { suiteOptions } = input;
  const testTimeout = suiteOptions.testTimeout ?? 5_000;
  const hookTimeout = suiteOptions.hookTimeout ?? 10_000;
  const maxConcurrency = suiteOptions.maxConcurrency ?? 5;
  let deadlineAt = Date.now() + (input.startupMs ?? 60_000) + 2 * hookTimeout;
  const patienceMs = rateLimitPatienceMs(suiteOptions.provide?.[CONFIG_KEY]?.timeoutMs ?? 10_000);
  const events = input.events ?? {};
  const info = (test: TestCase) => checkInfo(test, input.root);

  // A run held back by the deployment's rate limit goes on as long as its checks keep finishing: each
  // check that ends leaves the rest at least a check's budget and a request's patience for the limit.
  const collector = new OutcomeCollector(input.root, {
    onCollected(tests) {
      deadlineAt += worstCaseMs(tests, { testTimeout, hookTimeout, maxConcurrency });
      events.onCollected?.(tests.map(info));
    },
    ...(events.onStart ? { onStart: (test: TestCase) => events.onStart?.(info(test)) } : {}),
    onOutcome(outcome, done, collected) {
      deadlineAt = Math.max(deadlineAt, Date.now() + testTimeout + patienceMs);
      events.onOutcome?.(outcome, done, collected);
    },
  });
  let deadlineHit = false;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'deadline'>((resolve) => {
    timer = setInterval(() => {
      if (Date.now() > deadlineAt) resolve('deadline');
    }, 250);
    timer.unref();
  });

  let startError: string | undefined;
  const allure = input.allureResultsDir
    ? [new AllureVitestReporter({ resultsDir: input.allureResultsDir })]
    : [];
  const run = startVitest(
    'test',
    [],
    { ...suiteOptions, config: false, watch: false, reporters: [collector, ...allure] },
    undefined,
    { ...(input.stdout ? { stdout: input.stdout } : {}), ...(input.stderr ? { stderr: input.stderr } : {}) },
  ).then(
    () => 'done' as const,
    (error: unknown) => {
      startError = error instanceof Error ? error.message : String(error);
      return 'done' as const;
    },
  );

  const stop = input.stop;
  const stopped = new Promise<'stopped'>((resolve) => {
    if (stop?.aborted) resolve('stopped');
    stop?.addEventListener('abort', () => resolve('stopped'), { once: true });
  });
  let interrupted = false;
  try {
    const first = await Promise.race([run, deadline, stopped]);
    if (first === 'deadline') {
      deadlineHit = true;
      collector.deadlineHit = true;
      await cutShort(collector, run);
    } else if (first === 'stopped') {
      interrupted = true;
      await cutShort(collector, run, 1_000);
    }
  } finally {
    clearInterval(timer);
  }

  const outcomes = [...collector.outcomes];
  if (deadlineHit) {
    outcomes.push(
      ...collector.unfinished(
        'the run reached its deadline before this check finished (the server kept it waiting past every timeout)',
      ),
    );
  }
  return {
    outcomes,
    brokenModules: collector.brokenModules,
    unhandledErrors: collector.unhandledErrors,
    ...(startError === undefined && (collector.runEnded || deadlineHit)
      ? {}
      : { startError: startError ?? 'vitest ended without finishing the run' }),
    deadlineHit,
    ...(interrupted ? { interrupted } : {}),
  };
}

/** A test as the events name it. */
function checkInfo(test: TestCase, root: string): CheckInfo {
  const meta = test.meta() as { requirementId?: string; requirementLevel?: Level };
  return {
    requirement: meta.requirementId,
    level: meta.requirementLevel,
    check: test.name,
    file: path.relative(root, test.module.moduleId).split(path.sep).join('/'),
  };
}

/**
 * The longest a file's tests can take: its hooks, plus each test that runs alone and each batch of
 * concurrent tests running to its timeout (each with its per-test hooks). Files are counted one after the other, though they run in
 * parallel: the deadline is a backstop against a stuck run, never meant to cut a slow one.
 */
export function worstCaseMs(
  tests: readonly TestCase[],
  limits: { testTimeout: number; hookTimeout: number; maxConcurrency: number },
): number {
  // A test's own timeout, and its beforeEach and afterEach hooks.
  // A check with no timeout of vitest's keeps a budget of its own of testTimeout (harness/requirement/requirement.ts).
  const timeoutOf = (t: TestCase) => (t.options.timeout || limits.testTimeout) + 2 * limits.hookTimeout;
  const running = tests.filter((t) => t.options.mode !== 'skip' && t.options.mode !== 'todo');
  const alone = running.filter((t) => !t.options.concurrent).reduce((sum, t) => sum + timeoutOf(t), 0);
  const together = running.filter((t) => t.options.concurrent).map(timeoutOf);
  const longest = together.length ? Math.max(...together) : 0;
  const batches = Math.ceil(together.length / Math.max(1, limits.maxConcurrency));
  return 4 * limits.hookTimeout + alone + batches * longest;
}

/**
 * Cancels the run and closes vitest (its workers included), each step bounded by `stepMs` (closing
 * by two and a half times that).
 */
async function cutShort(collector: OutcomeCollector, run: Promise<unknown>, stepMs = 2_000): Promise<void> {
  // A run stopped as it starts: vitest can be cancelled once it has initialised.
  for (let waited = 0; collector.vitest === undefined && waited < stepMs; waited += 50) {
    await new Promise((r) => setTimeout(r, 50).unref());
  }
  const vitest = collector.vitest;
  if (!vitest) return;
  const within = (ms: number, p: Promise<unknown>) =>
    Promise.race([p.catch(() => undefined), new Promise((r) => setTimeout(r, ms).unref())]);
  await within(stepMs, vitest.cancelCurrentRun('keyboard-input'));
  await within(stepMs, run);
  await within(2.5 * stepMs, vitest.close());
}

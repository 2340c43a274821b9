/**
 * Runs the conformance suites with vitest's programmatic API, bounded in time whatever the server
 * does: the run's deadline grows with the tests collected (each test and hook has its own timeout),
 * and past it the run is cancelled and its unfinished tests fail.
 */
import { type Reporter, startVitest, type TestCase } from 'vitest/node';
import { CONFIG_KEY } from '../../suites/harness/config/config.ts';
import { rateLimitPatienceMs } from '../../suites/harness/http/pace.ts';
import type { CheckOutcome } from '../record/record.ts';
import { type BrokenModule, type CollectorEvents, OutcomeCollector } from './collector.ts';
import { mark, STAGE } from './timeline.ts';

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

export interface RunSuitesOptions {
  /** The package root: test files are reported relative to it. */
  readonly root: string;
  readonly events?: CollectorEvents;
  /** Time allowed before any test is collected (vitest start-up, suite files loading). */
  readonly startupMs?: number;
  /** Aborted when the run is interrupted (run/interrupt.ts): the checks are cancelled, as at the deadline. */
  readonly stop?: AbortSignal;
}

/** Runs the suites once. Never rejects for what a server does; returns what vitest reported. */
export async function runSuites(suiteOptions: VitestOptions, options: RunSuitesOptions): Promise<SuiteRun> {
  const testTimeout = suiteOptions.testTimeout ?? 5_000;
  const hookTimeout = suiteOptions.hookTimeout ?? 10_000;
  const maxConcurrency = suiteOptions.maxConcurrency ?? 5;
  let deadlineAt = Date.now() + (options.startupMs ?? 60_000) + 2 * hookTimeout;
  const patienceMs = rateLimitPatienceMs(suiteOptions.provide?.[CONFIG_KEY]?.timeoutMs ?? 10_000);

  // A run held back by the deployment's rate limit goes on as long as its checks keep finishing: each
  // check that ends leaves the rest at least a check's budget and a request's patience for the limit.
  const collector = new OutcomeCollector(options.root, {
    ...options.events,
    onCollected(tests) {
      deadlineAt += worstCaseMs(tests, { testTimeout, hookTimeout, maxConcurrency });
      options.events?.onCollected?.(tests);
    },
    onOutcome(outcome, done, collected) {
      deadlineAt = Math.max(deadlineAt, Date.now() + testTimeout + patienceMs);
      options.events?.onOutcome?.(outcome, done, collected);
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
  const releaseSignals = options.stop ? keepSignals() : () => undefined;
  mark(STAGE.vitestStarting);
  const run = startVitest('test', [], {
    ...suiteOptions,
    config: false,
    watch: false,
    reporters: [collector, stageReporter()],
  }).then(
    () => 'done' as const,
    (error: unknown) => {
      startError = error instanceof Error ? error.message : String(error);
      return 'done' as const;
    },
  );

  const stop = options.stop;
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
    releaseSignals();
    clearInterval(timer);
    mark(STAGE.testsDone);
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
 * A reporter that marks the first file collected and the first test done, and has every suite file
 * transformed as the run starts: the main thread does it while the worker starts, instead of while
 * the worker waits for each file in turn (about 0.08 s for the first, 0.02 s for each next one).
 * A file that does not transform is left to fail where it always has, when the worker asks for it.
 */
function stageReporter(): Reporter {
  const once = new Set<string>();
  const first = (stage: Parameters<typeof mark>[0]) => () => {
    if (once.has(stage)) return;
    once.add(stage);
    mark(stage);
  };
  return {
    onTestRunStart(specifications) {
      for (const { project, moduleId } of specifications)
        project.vite.environments.ssr?.transformRequest(moduleId).catch(() => undefined);
    },
    onTestModuleCollected: first(STAGE.collected),
    onTestCaseResult: first(STAGE.firstTest),
  };
}

/**
 * Leaves SIGINT and SIGTERM to the run until the returned function is called: vitest's logger ends
 * the process on either as it starts, and a run stops on them itself (run/interrupt.ts), first
 * cleanly, with a report saying it was stopped. A listener added meanwhile is removed before any
 * signal can reach it (signals are delivered by the event loop, after the current tick).
 */
function keepSignals(): () => void {
  const onNew = (event: string | symbol, listener: (...args: unknown[]) => void) => {
    if (event === 'SIGINT' || event === 'SIGTERM') process.nextTick(() => process.off(event, listener));
  };
  process.on('newListener', onNew);
  return () => process.off('newListener', onNew);
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

/**
 * Runs the conformance suites with vitest's programmatic API, bounded in time whatever the server
 * does: the run's deadline grows with the tests collected (each test and hook has its own timeout),
 * and past it the run is cancelled and its unfinished tests fail.
 */
import { type Reporter, startVitest, type TestCase } from 'vitest/node';
import { CONFIG_KEY, REQUIREMENTS_KEY } from '../../suites/harness/config.ts';
import { rateLimitPatienceMs } from '../../suites/harness/pace.ts';
import type { AllureFiles } from '../record/record.ts';
import type { TestOutcome } from '../record/rollup.ts';
import { type BrokenModule, type CollectorEvents, OutcomeCollector } from './collector.ts';
import { LateReporter } from './late-reporter.ts';
import { mark, STAGE } from './timeline.ts';

export type VitestOptions = NonNullable<Parameters<typeof startVitest>[2]>;

export interface SuiteRun {
  readonly outcomes: readonly TestOutcome[];
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
  /**
   * Where the allure-vitest reporter's results go, held in memory (reports/allure.ts writes them
   * into the report folder through redaction); filled by the time runSuites resolves.
   */
  readonly allureResults: AllureFiles;
  /**
   * A private folder for the allure-vitest reporter, which is given one: written into only should
   * its results not reach allureResults (then read back from it when the run ends).
   */
  readonly allureResultsDir: string;
  /**
   * Called with what each test staged into allureResults once it has finished (while the checks go
   * on): its result and its attachments, which stay as they are.
   */
  readonly onAllureStaged?: (files: ReadonlyMap<string, Buffer>) => void;
  /** Shown on the Allure report's environment panel (no secrets). */
  readonly environmentInfo: Record<string, string>;
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
  // allure-vitest is loaded as the first test ends, rather than before vitest starts (about 25 ms
  // of the main thread then, on the run's critical path; late-reporter.ts). Loaded while the worker
  // starts instead, it delayed the worker's first file, which the main thread serves.
  const allure = new LateReporter(async () => {
    const { StagingAllureReporter } = await import('./allure-staging.ts');
    return new StagingAllureReporter(
      { resultsDir: options.allureResultsDir },
      suiteOptions.provide?.[REQUIREMENTS_KEY],
      options.allureResults,
      options.environmentInfo,
      options.onAllureStaged,
    );
  });

  let deadlineHit = false;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'deadline'>((resolve) => {
    timer = setInterval(() => {
      if (Date.now() > deadlineAt) resolve('deadline');
    }, 250);
    timer.unref();
  });

  // From the package root, so that the Allure results name suite files the same wherever the
  // command was started (allure-vitest names them relative to the working folder).
  const cwd = process.cwd();
  process.chdir(options.root);
  let startError: string | undefined;
  const releaseSignals = options.stop ? keepSignals() : () => undefined;
  mark(STAGE.vitestStarting);
  const run = startVitest('test', [], {
    ...suiteOptions,
    config: false,
    watch: false,
    reporters: [collector, allure, stageReporter(() => void allure.load().catch(() => undefined))],
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
    process.chdir(cwd);
    try {
      (await allure.load()).collect();
    } catch (error) {
      startError ??= `the Allure reporter could not be loaded: ${error instanceof Error ? error.message : String(error)}`;
    }
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
  // A check with no timeout of vitest's keeps a budget of its own of testTimeout (harness/requirement.ts).
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
 * `onFirstResult` is called as the first test ends: the worker has loaded what it needs, and the
 * main thread, which answers it until then, has time to spare while the checks run.
 */
function stageReporter(onFirstResult: () => void): Reporter {
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
    onTestCaseResult: () => {
      if (!once.has(STAGE.firstTest)) onFirstResult();
      first(STAGE.firstTest)();
    },
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

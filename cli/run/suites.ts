/**
 * Runs the conformance suites with vitest's programmatic API, bounded in time whatever the server
 * does: the run's deadline grows with the tests collected (each test and hook has its own timeout),
 * and past it the run is cancelled and its unfinished tests fail.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { stringifyEnvInfo, type Writer } from 'allure-js-commons/sdk/reporter';
import type { RunnerTask } from 'vitest';
import { type Reporter, startVitest, type TestCase } from 'vitest/node';
import { REQUIREMENTS_KEY } from '../../suites/harness/config.ts';
import { RequirementAllureReporter } from '../../suites/reporter.ts';
import type { AllureFiles } from '../record/record.ts';
import type { TestOutcome } from '../record/rollup.ts';
import { type BrokenModule, type CollectorEvents, OutcomeCollector } from './collector.ts';
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

  const collector = new OutcomeCollector(options.root, {
    ...options.events,
    onCollected(tests) {
      deadlineAt += worstCaseMs(tests, { testTimeout, hookTimeout, maxConcurrency });
      options.events?.onCollected?.(tests);
    },
  });
  const allure = new StagingAllureReporter(
    { resultsDir: options.allureResultsDir },
    suiteOptions.provide?.[REQUIREMENTS_KEY],
    options.allureResults,
    options.environmentInfo,
    options.onAllureStaged,
  );

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
    reporters: [collector, allure, stageReporter()],
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
    allure.collect();
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
  const timeoutOf = (t: TestCase) => (t.options.timeout ?? limits.testTimeout) + 2 * limits.hookTimeout;
  const running = tests.filter((t) => t.options.mode !== 'skip' && t.options.mode !== 'todo');
  const alone = running.filter((t) => !t.options.concurrent).reduce((sum, t) => sum + timeoutOf(t), 0);
  const together = running.filter((t) => t.options.concurrent).map(timeoutOf);
  const longest = together.length ? Math.max(...together) : 0;
  const batches = Math.ceil(together.length / Math.max(1, limits.maxConcurrency));
  return 4 * limits.hookTimeout + alone + batches * longest;
}

/**
 * allure-vitest's reporter, its results held in memory (`files`) rather than written to disk: its
 * own writer makes every result and attachment durable (a temporary file, fsync, rename), all of them
 * on the main thread once the last check ends, for files that publish reads once and writes again
 * into the report folder (about 0.3 s on a slow disk for a default run's 260 files). The results are
 * the same. Should allure-vitest keep its runtime elsewhere one day, its own writer stays in place
 * and writes into its results folder, which collect() then reads.
 *
 * Each test is handled (allure-vitest's handleTask) as soon as it has finished, on the main thread
 * while the checks go on, rather than all of them once the last check ends (about 40 ms then, on the
 * run's critical path); what it wrote is kept aside and put in place, in the order allure-vitest
 * handles the tests at the run's end, when the run ends. A test not finished by then is handled then.
 */
class StagingAllureReporter extends RequirementAllureReporter {
  private writer: StagingWriter | undefined;
  /** Tests handled as they finished, by task id: the files each wrote and the global messages it left. */
  private readonly finished = new Map<string, { files: AllureFiles; globals: unknown[] }>();

  constructor(
    private readonly staging: ConstructorParameters<typeof RequirementAllureReporter>[0] & {
      resultsDir: string;
    },
    requirements: ConstructorParameters<typeof RequirementAllureReporter>[1],
    private readonly files: AllureFiles,
    private readonly environmentInfo: Record<string, string>,
    private readonly onStaged?: (files: ReadonlyMap<string, Buffer>) => void,
  ) {
    super(staging, requirements);
  }

  override onInit(vitest: Parameters<RequirementAllureReporter['onInit']>[0]): void {
    super.onInit(vitest);
    const runtime = (this as unknown as { allureReporterRuntime?: { writer: Writer } }).allureReporterRuntime;
    const writer = new StagingWriter(this.files);
    if (runtime) {
      runtime.writer = writer;
      this.writer = writer;
    }
    // Written here rather than by onInit (the reporter's config has none): through the writer in use.
    (runtime?.writer ?? writer).writeEnvironmentInfo(this.environmentInfo);
  }

  onTestCaseResult(test: TestCase): void {
    const task = (test as unknown as { task?: RunnerTask }).task;
    const globals = this.globalMessages();
    const writer = this.writer;
    if (!writer || !task || task.type !== 'test' || !globals || this.finished.has(task.id)) return;
    const files: AllureFiles = new Map();
    const before = globals.length;
    writer.target = files;
    try {
      super.handleTask(task);
    } catch {
      // Left to the run's end, where allure-vitest handles it as it always has.
      globals.splice(before);
      return;
    } finally {
      writer.target = this.files;
    }
    this.finished.set(task.id, { files, globals: globals.splice(before) });
    this.onStaged?.(files);
  }

  override handleTask(task: RunnerTask): void {
    const done = task.type === 'test' ? this.finished.get(task.id) : undefined;
    if (!done) {
      super.handleTask(task);
      return;
    }
    for (const [name, content] of done.files) this.files.set(name, content);
    this.globalMessages()?.push(...done.globals);
  }

  /** allure-vitest's global messages of the run so far (hooks that failed), or undefined should it keep them elsewhere. */
  private globalMessages(): unknown[] | undefined {
    const messages = (this as unknown as { globalRuntimeMessages?: unknown }).globalRuntimeMessages;
    return Array.isArray(messages) ? messages : undefined;
  }

  /** Once the run has ended: the results, read back from the folder when they were written there. */
  collect(): void {
    if (this.writer) return;
    readTree(this.staging.resultsDir, '', this.files);
  }
}

/** The files of a folder tree into `files`, by their path relative to it ("a/b.json"); none when it is missing. */
function readTree(dir: string, prefix: string, files: AllureFiles): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) readTree(file, `${prefix}${name}/`, files);
    else files.set(`${prefix}${name}`, readFileSync(file));
  }
}

/**
 * allure-js-commons' Writer, holding what its FileSystemWriter would write into a results folder in
 * memory instead: file name → the same bytes.
 */
export class StagingWriter implements Writer {
  /** Where the files go (the run's files, or those of one test while it is handled). */
  constructor(public target: AllureFiles) {}

  private json(name: string, data: unknown): void {
    this.target.set(name, Buffer.from(JSON.stringify(data), 'utf-8'));
  }

  writeResult(result: Parameters<Writer['writeResult']>[0]): void {
    this.json(`${result.uuid}-result.json`, result);
  }

  writeGroup(result: Parameters<Writer['writeGroup']>[0]): void {
    this.json(`${result.uuid}-container.json`, result);
  }

  writeAttachment(distFileName: string, content: Buffer): void {
    this.target.set(distFileName, content);
  }

  writeAttachmentFromPath(distFileName: string, from: string): void {
    this.target.set(distFileName, readFileSync(from));
  }

  writeEnvironmentInfo(info: Parameters<Writer['writeEnvironmentInfo']>[0]): void {
    this.target.set('environment.properties', Buffer.from(stringifyEnvInfo(info), 'utf-8'));
  }

  writeCategoriesDefinitions(categories: Parameters<Writer['writeCategoriesDefinitions']>[0]): void {
    this.json('categories.json', categories);
  }

  writeGlobals(distFileName: string, info: Parameters<Writer['writeGlobals']>[1]): void {
    this.json(distFileName, info);
  }
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

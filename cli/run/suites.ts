/**
 * Runs the conformance suites on a thread of their own (suites-thread.ts, vitest-run.ts) and hears
 * how they go: each check's outcome as it ends, the run when it is over. The thread is started ahead
 * (prepareSuites) so that vitest loads while the main thread plans and opens the target.
 *
 * The main thread keeps the process: its signals (run/interrupt.ts stops the run on the first one,
 * then posts `stop` to the thread), its streams (what the thread writes is masked here, as a server's
 * text, before it reaches the terminal), its exit. From the sources (the project's own tests), where
 * a thread cannot load TypeScript, the run takes place in this thread.
 */
import { Worker } from 'node:worker_threads';
import { PathOrder } from '../../suites/vitest.shared.ts';
import type { CheckOutcome } from '../record/record.ts';
import { maskedStream, type Redactor } from '../reports/redact.ts';
import type { FromSuites, ToSuites } from './suites-thread.ts';
import { mark, STAGE } from './timeline.ts';
import type { SuiteEvents, SuiteRun, VitestOptions } from './vitest-run.ts';

export type { SuiteEvents, SuiteRun, VitestOptions } from './vitest-run.ts';

export interface RunSuitesOptions {
  /** The package root: test files are reported relative to it. */
  readonly root: string;
  readonly events?: SuiteEvents;
  /** Time allowed before any test is collected (vitest start-up, suite files loading). */
  readonly startupMs?: number;
  /** Aborted when the run is interrupted (run/interrupt.ts): the checks are cancelled, as at the deadline. */
  readonly stop?: AbortSignal;
  /** Where allure-vitest writes the checks' Allure results (the report folder's allure-results/). */
  readonly allureResultsDir?: string;
  /**
   * Where vitest's messages go, each chunk masked by `redactor` (they may quote a request or an
   * answer): stdout and stderr, which may be one stream (stderr, when the events take stdout). By
   * default the process's own streams, unmasked.
   */
  readonly output?: {
    readonly stdout: NodeJS.WritableStream;
    readonly stderr: NodeJS.WritableStream;
    readonly redactor: Redactor;
  };
}

const compiled = import.meta.url.endsWith('.js');
/**
 * Suites' threads ready for a run: the one started ahead (prepareSuites), and those whose run ended
 * as runs end, kept for the next run of the process (a program calling main() more than once: the
 * project's own tests do, hundreds of times). Idle, they keep no process alive.
 */
const ready: Worker[] = [];

/** Starts the suites' thread ahead of the run, which loads vitest meanwhile, unless one is ready. */
export function prepareSuites(): void {
  if (!compiled || ready.length > 0) return;
  const worker = new Worker(new URL('./suites-thread.js', import.meta.url), { stdout: true, stderr: true });
  worker.unref();
  // One that ends while it waits is not handed a run.
  worker.once('exit', () => ready.includes(worker) && ready.splice(ready.indexOf(worker), 1));
  ready.push(worker);
}

/** Runs the suites once. Never rejects for what a server does; returns what vitest reported. */
export async function runSuites(suiteOptions: VitestOptions, options: RunSuitesOptions): Promise<SuiteRun> {
  mark(STAGE.vitestStarting);
  const marks = stageMarks(options.events);
  try {
    if (!compiled) {
      const { runVitest } = await import('./vitest-run.ts');
      const { output } = options;
      return await runVitest({
        ...options,
        events: marks,
        suiteOptions,
        // startVitest's own stdout and stderr options.
        ...(output
          ? {
              stdout: maskedStream(output.stdout, output.redactor),
              stderr: maskedStream(output.stderr, output.redactor),
            }
          : {}),
      });
    }
    return await onThread(suiteOptions, { ...options, events: marks });
  } finally {
    mark(STAGE.testsDone);
  }
}

/** The run on the suites' thread: the prepared one, or one started now. */
async function onThread(suiteOptions: VitestOptions, options: RunSuitesOptions): Promise<SuiteRun> {
  prepareSuites();
  const worker = ready.pop()!;
  worker.ref();
  const unpipe = pipeMasked(worker, options.output);
  let reusable = false;
  const outcomes: CheckOutcome[] = [];
  const onStop = () => worker.postMessage({ type: 'stop' } satisfies ToSuites);
  options.stop?.addEventListener('abort', onStop, { once: true });
  let settle: (run: SuiteRun) => void = () => undefined;
  const onMessage = (message: FromSuites) => {
    if (message.type === 'collected') options.events?.onCollected?.(message.checks);
    else if (message.type === 'start') options.events?.onStart?.(message.check);
    else if (message.type === 'outcome') {
      outcomes.push(message.outcome);
      options.events?.onOutcome?.(message.outcome, message.done, message.collected);
    } else settle(message.run);
  };
  const onError = (error: Error) => settle(failed(`the suites' thread failed: ${error.message}`));
  const onExit = (code: number) => settle(failed(`the suites' thread ended (exit code ${code})`));
  try {
    const done = await new Promise<SuiteRun>((resolve) => {
      settle = resolve;
      worker.on('message', onMessage).once('error', onError).once('exit', onExit);
      const { sequencer, ...sequence } = suiteOptions.sequence ?? {};
      worker.postMessage({
        type: 'run',
        suiteOptions: { ...suiteOptions, sequence },
        pathOrder: sequencer === PathOrder,
        root: options.root,
        ...(options.startupMs === undefined ? {} : { startupMs: options.startupMs }),
        ...(options.allureResultsDir === undefined ? {} : { allureResultsDir: options.allureResultsDir }),
        starts: options.events?.onStart !== undefined,
      } satisfies ToSuites);
      if (options.stop?.aborted) onStop();
    });
    // A run that ended as runs end leaves its thread fit for the next; one cut short does not.
    reusable =
      !done.deadlineHit && !done.interrupted && done.startError === undefined && !options.stop?.aborted;
    return { ...done, outcomes: [...outcomes, ...done.outcomes] };
  } finally {
    options.stop?.removeEventListener('abort', onStop);
    worker.off('message', onMessage).off('error', onError).off('exit', onExit);
    unpipe();
    // It keeps the process alive no longer: kept for the next run, or ended.
    worker.unref();
    if (reusable) ready.push(worker);
    else void worker.terminate();
  }
}

/** A run that could not start, as vitest's own failure to start reads. */
function failed(startError: string): SuiteRun {
  return { outcomes: [], brokenModules: [], unhandledErrors: [], startError, deadlineHit: false };
}

/**
 * What the thread writes (vitest's messages), to `output`, masked; without `output`, to the process's
 * streams as it is. Worker's stdout and stderr options keep it from reaching them by any other way.
 */
function pipeMasked(worker: Worker, output: RunSuitesOptions['output']): () => void {
  const to = (target: NodeJS.WritableStream) => (output ? maskedStream(target, output.redactor) : target);
  const stdout = to(output?.stdout ?? process.stdout);
  const stderr = to(output?.stderr ?? process.stderr);
  worker.stdout.pipe(stdout, { end: false });
  worker.stderr.pipe(stderr, { end: false });
  return () => {
    worker.stdout.unpipe(stdout);
    worker.stderr.unpipe(stderr);
  };
}

/** The events, with the timeline's marks of the first file collected and the first test done. */
function stageMarks(events: SuiteEvents = {}): SuiteEvents {
  let collected = false;
  let finished = false;
  return {
    ...events,
    onCollected(checks) {
      if (!collected) mark(STAGE.collected);
      collected = true;
      events.onCollected?.(checks);
    },
    onOutcome(outcome, done, total) {
      if (!finished) mark(STAGE.firstTest);
      finished = true;
      events.onOutcome?.(outcome, done, total);
    },
  };
}

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
let prepared: Worker | undefined;

/** Starts the suites' thread ahead of the run, which loads vitest meanwhile; idle, it keeps no process alive. */
export function prepareSuites(): void {
  if (!compiled || prepared) return;
  prepared = new Worker(new URL('./suites-thread.js', import.meta.url), { stdout: true, stderr: true });
  prepared.unref();
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
  const worker = prepared!;
  prepared = undefined;
  worker.ref();
  pipeMasked(worker, options.output);
  const outcomes: CheckOutcome[] = [];
  const onStop = () => worker.postMessage({ type: 'stop' } satisfies ToSuites);
  options.stop?.addEventListener('abort', onStop, { once: true });
  const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
  try {
    const done = await new Promise<SuiteRun>((resolve) => {
      worker.on('message', (message: FromSuites) => {
        if (message.type === 'collected') options.events?.onCollected?.(message.checks);
        else if (message.type === 'start') options.events?.onStart?.(message.check);
        else if (message.type === 'outcome') {
          outcomes.push(message.outcome);
          options.events?.onOutcome?.(message.outcome, message.done, message.collected);
        } else resolve(message.run);
      });
      worker.once('error', (error) => resolve(failed(`the suites' thread failed: ${error.message}`)));
      void exited.then((code) => resolve(failed(`the suites' thread ended (exit code ${code})`)));
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
    return { ...done, outcomes: [...outcomes, ...done.outcomes] };
  } finally {
    options.stop?.removeEventListener('abort', onStop);
    // The thread ends by itself once vitest has closed, which can take a few hundred ms the run
    // need not wait for; one that does not is ended. It keeps the process alive no longer.
    worker.unref();
    const timer = setTimeout(() => void worker.terminate(), 2_000).unref();
    void exited.then(() => clearTimeout(timer));
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
function pipeMasked(worker: Worker, output: RunSuitesOptions['output']): void {
  const to = (target: NodeJS.WritableStream) => (output ? maskedStream(target, output.redactor) : target);
  worker.stdout.pipe(to(output?.stdout ?? process.stdout), { end: false });
  worker.stderr.pipe(to(output?.stderr ?? process.stderr), { end: false });
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

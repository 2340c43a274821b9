/**
 * The suites' thread: vitest runs here (vitest-run.ts), started by suites.ts as soon as the command
 * knows it will run checks, so that vitest loads on the second core while the main thread makes the
 * plan and opens the target.
 *
 * A worker thread, because there Node delivers no signal and process.exit() ends the thread alone
 * (Node's worker_threads documentation): what vitest does on the process it thinks it owns (its
 * logger exits on SIGINT and SIGTERM; a teardown that outlasts teardownTimeout exits too) cannot end
 * the command, which stops a run itself, cleanly, on the first signal (run/interrupt.ts).
 *
 * Messages in: { type: 'run', … }, then { type: 'stop' } when the run is interrupted. Out:
 * 'collected', 'start' and 'outcome' as the run goes (plain data), then 'done' with the rest of the
 * run. A thread whose run ended as runs end (not cut short) may be handed the next run of the
 * process: each run is a vitest of its own (startVitest), and only the modules this thread loaded
 * are kept (suites.ts keeps such threads for a program that runs the command more than once).
 * Everything written here (vitest's messages) leaves on this thread's stdout and stderr, which the
 * main thread masks before they reach a terminal (suites.ts).
 */
import { parentPort } from 'node:worker_threads';
import { PathOrder } from '../../suites/vitest.shared.ts';
import type { CheckOutcome } from '../record/record.ts';
import type { CheckInfo } from '../reports/events.ts';
import { runVitest, type SuiteRun, type VitestOptions } from './vitest-run.ts';

export type ToSuites =
  | {
      readonly type: 'run';
      /** The suites' options as data: a class does not cross threads, so PathOrder is named (`pathOrder`). */
      readonly suiteOptions: VitestOptions;
      readonly pathOrder: boolean;
      readonly root: string;
      readonly startupMs?: number;
      readonly allureResultsDir?: string;
      /** Report each test's start (--events). */
      readonly starts: boolean;
    }
  | { readonly type: 'stop' };

export type FromSuites =
  | { readonly type: 'collected'; readonly checks: readonly CheckInfo[] }
  | { readonly type: 'start'; readonly check: CheckInfo }
  | {
      readonly type: 'outcome';
      readonly outcome: CheckOutcome;
      readonly done: number;
      readonly collected: number;
    }
  /** The run's end; its `outcomes` are only those no 'outcome' message carried (checks the deadline cut). */
  | { readonly type: 'done'; readonly run: SuiteRun };

type RunMessage = Extract<ToSuites, { type: 'run' }>;

const port = parentPort;
if (port) {
  let stop = new AbortController();
  const send = (message: FromSuites) => port.postMessage(message);
  port.on('message', (message: ToSuites) => {
    if (message.type === 'stop') {
      stop.abort();
      return;
    }
    stop = new AbortController();
    void run(message, send, stop.signal).then(send);
  });
}

/** The run a 'run' message asks for, told as it goes through `send`. */
async function run(
  message: RunMessage,
  send: (message: FromSuites) => void,
  signal: AbortSignal,
): Promise<FromSuites> {
  let reported = 0;
  const { suiteOptions } = message;
  const result = await runVitest({
    suiteOptions: message.pathOrder
      ? { ...suiteOptions, sequence: { ...suiteOptions.sequence, sequencer: PathOrder } }
      : suiteOptions,
    root: message.root,
    ...(message.startupMs === undefined ? {} : { startupMs: message.startupMs }),
    ...(message.allureResultsDir === undefined ? {} : { allureResultsDir: message.allureResultsDir }),
    events: {
      onCollected: (checks) => send({ type: 'collected', checks }),
      ...(message.starts ? { onStart: (check: CheckInfo) => send({ type: 'start', check }) } : {}),
      onOutcome(outcome, done, collected) {
        reported++;
        send({ type: 'outcome', outcome, done, collected });
      },
    },
    stop: signal,
  });
  return { type: 'done', run: { ...result, outcomes: result.outcomes.slice(reported) } };
}

/**
 * Every run ends: Ctrl-C (SIGINT) and a cancelled CI job (SIGTERM) stop it.
 *
 * The first signal stops the run cleanly: `signal` aborts, the stages stop where they are (the
 * checks are cancelled, run/suites.ts), the record of a run that was stopped is published (its
 * summary.json says so: no stale verdict stays in the report folder) and what the run started is
 * closed; the command then exits 130 (SIGINT) or 143 (SIGTERM), as a shell reports a process ended
 * by that signal. The second signal, or the first one's grace running out, ends the process at once,
 * whatever it is doing: a CI runner that sends SIGINT and then SIGTERM gets its process back.
 */

/** The signals a run answers, with the exit status of a run they stopped (128 + the signal's number). */
const STATUS = { SIGINT: 130, SIGTERM: 143 } as const;
type StopSignal = keyof typeof STATUS;

/** How long the clean stop may take before the process ends anyway. */
export const GRACE_MS = 10_000;

export interface Interrupt {
  /** Aborted by the first SIGINT or SIGTERM; its reason is the signal's name. */
  readonly signal: AbortSignal;
  /** The exit status of a run the signal stopped (130, 143), or undefined while none came. */
  status(): number | undefined;
  /** Stops watching: the signals do what they do without it again. */
  dispose(): void;
}

export interface InterruptOptions {
  /** Prints one line on stderr. */
  say(line: string): void;
  readonly graceMs?: number;
  /** Ends the process (process.exit; tests give another). */
  exit?(status: number): void;
}

/** Watches SIGINT and SIGTERM for the length of a run. */
export function watchInterrupts(options: InterruptOptions): Interrupt {
  const controller = new AbortController();
  const exit = options.exit ?? ((status: number) => process.exit(status));
  let received: StopSignal | undefined;
  let grace: NodeJS.Timeout | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    const name = signal as StopSignal;
    if (received === undefined) {
      received = name;
      options.say(
        `petstore-conformance: ${name} received: stopping the run (a second Ctrl-C or SIGTERM stops it at once)`,
      );
      const graceMs = options.graceMs ?? GRACE_MS;
      grace = setTimeout(() => {
        const within = graceMs < 1_000 ? `${graceMs} ms` : `${Math.round(graceMs / 1_000)} s`;
        options.say(
          `petstore-conformance: the run did not stop within ${within} of ${name}: stopped at once`,
        );
        exit(STATUS[name]);
      }, graceMs);
      controller.abort(name);
      return;
    }
    options.say(`petstore-conformance: ${name} received again: stopped at once`);
    exit(STATUS[received]);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    status: () => (received === undefined ? undefined : STATUS[received]),
    dispose() {
      clearTimeout(grace);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/** Thrown by a stage that stopped because the run was interrupted. */
export class Interrupted extends Error {
  override name = 'Interrupted';

  constructor(readonly signalName: string) {
    super(`stopped by ${signalName} before the run could judge`);
  }
}

/** `promise`, or Interrupted as soon as `signal` aborts (the promise is left to settle unobserved). */
export function unlessInterrupted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(new Interrupted(String(signal.reason)));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Interrupted(String(signal.reason)));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

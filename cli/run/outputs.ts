/**
 * Before stage 2: where a run writes while it runs. The console's lines and the events stream are
 * the run's own words, written as they are: every secret in what they show was masked where it was
 * put or where the server's text entered the run (suites/harness/evidence/redact.ts). What the run does not
 * write itself, vitest's messages (which reach the run on streams of their own, run/suites.ts), may
 * quote anything (an error's text): that is masked as a server's text, with the key, its near misses
 * and the proxy's password. No stream of the process is patched. The events stream (--events) is
 * opened first, so that a file that cannot be written stops the run before any request; with the
 * events on stdout, everything else goes to stderr, vitest's messages too.
 */
import { keySecrets } from '../../suites/harness/evidence/keys.ts';
import { proxySecrets } from '../../suites/harness/http/network.ts';
import { paintFor } from '../console/terminal.ts';
import type { Env, Io } from '../record/command.ts';
import { EventStream } from '../reports/events.ts';
import { createRedactor, type Redactor } from '../reports/redact.ts';
import type { Console } from '../reports/writer.ts';
import type { RunPlan } from './options.ts';

export interface Outputs {
  /** Masks the run's secrets in a text that did not come from the run itself (an error's). */
  readonly redactor: Redactor;
  readonly console: Console;
  /** --events: the stream the run writes its events to. */
  readonly events?: EventStream;
  /** Where vitest's messages go, masked by the redactor: stdout is stderr when the events take stdout. */
  readonly vitest: {
    readonly stdout: Io['stdout'];
    readonly stderr: Io['stderr'];
    readonly redactor: Redactor;
  };
}

/** Opens the run's outputs; throws UsageError when the events file cannot be written. */
export function openOutputs(plan: RunPlan, io: Io, env: Env): Outputs {
  // The key with its near misses (AUTH-WRONG-KEY-REFUSED sends them), each as secret as the key.
  const redactor = createRedactor([...keySecrets(plan.config.apiKey), ...proxySecrets(plan.config.network)]);
  const toStderr = plan.events === '-';
  const out: Io['stdout'] = toStderr ? io.stderr : io.stdout;
  const writeOut = out.write.bind(out);
  const writeErr = io.stderr.write.bind(io.stderr);
  const events =
    plan.events === undefined ? undefined : EventStream.open(plan.events, io.stdout.write.bind(io.stdout));
  // The console: the run's own lines, colours only on a terminal.
  const console: Console = {
    p: paintFor(out, env),
    width: Math.min(120, Math.max(60, out.columns ?? 100)),
    out: (line = '') => writeOut(`${line}\n`),
    err: (line: string) => writeErr(`${line}\n`),
    warn: (line: string) => writeErr(`${paintFor(io.stderr, env).yellow(`warning: ${line}`)}\n`),
  };
  return {
    redactor,
    console,
    ...(events ? { events } : {}),
    vitest: { stdout: out, stderr: io.stderr, redactor },
  };
}

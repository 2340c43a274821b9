/**
 * Before stage 2: where a run writes while it runs. Every line goes through one redactor (the key
 * and the proxy's credentials never printed); the events stream (--events) is opened first, so that
 * a file that cannot be written stops the run before any request; with the events on stdout,
 * everything else goes to stderr, vitest's messages too.
 */
import { keySecrets } from '../../suites/harness/keys.ts';
import { proxySecrets } from '../../suites/harness/network.ts';
import { paintFor } from '../console/terminal.ts';
import type { Env, Io } from '../record/command.ts';
import { EventStream } from '../reports/events.ts';
import { createRedactor, type Redactor, redactStream } from '../reports/redact.ts';
import type { Console } from '../reports/writer.ts';
import type { RunPlan } from './options.ts';

export interface Outputs {
  readonly redactor: Redactor;
  readonly console: Console;
  /** --events: the stream the run writes its events to. */
  readonly events?: EventStream;
  /** Gives the process's streams back as they were. */
  restore(): void;
}

/** Opens the run's outputs; throws UsageError when the events file cannot be written. */
export function openOutputs(plan: RunPlan, io: Io, env: Env): Outputs {
  // The key with its near misses (AUTH-WRONG-KEY-REFUSED sends them), each as secret as the key.
  const redactor = createRedactor([...keySecrets(plan.config.apiKey), ...proxySecrets(plan.config.network)]);
  const stdout = io.stdout.write.bind(io.stdout);
  const events = plan.events === undefined ? undefined : EventStream.open(plan.events, stdout, redactor);
  const toStderr = plan.events === '-';
  const undo = [
    ...(toStderr && io.stdout === process.stdout ? [divertStream(process.stdout, process.stderr)] : []),
    // Whatever reaches the process's own streams (vitest's messages too) is redacted as well.
    ...[process.stdout, process.stderr].map((s) => redactStream(s, redactor)),
  ];
  // The console: every line through the redactor, colours only on a terminal.
  const out: Io['stdout'] = toStderr ? io.stderr : io.stdout;
  const console: Console = {
    p: paintFor(out, env),
    width: Math.min(120, Math.max(60, out.columns ?? 100)),
    out: (line = '') => out.write(`${redactor.text(line)}\n`),
    err: (line: string) => io.stderr.write(`${redactor.text(line)}\n`),
    warn: (line: string) =>
      io.stderr.write(`${redactor.text(paintFor(io.stderr, env).yellow(`warning: ${line}`))}\n`),
  };
  return {
    redactor,
    console,
    ...(events ? { events } : {}),
    restore: () => {
      for (const step of undo.reverse()) step();
    },
  };
}

/** Sends what is written to `from` to `to` instead (stdout's other writers, while the events use it). */
function divertStream(from: NodeJS.WriteStream, to: NodeJS.WriteStream): () => void {
  const original = from.write;
  from.write = ((...args: Parameters<typeof to.write>) => to.write(...args)) as typeof from.write;
  return () => {
    from.write = original;
  };
}

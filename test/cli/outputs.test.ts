// Where a run writes while it runs: its own lines as they are, vitest's messages on the process's
// streams masked, since they may quote anything (an error's text).
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, test } from 'vitest';
import { parseInvocation, type RunPlan } from '../../cli/run/options.ts';
import { openOutputs } from '../../cli/run/outputs.ts';

/** A stream that keeps what is written to it. */
function sink() {
  const stream = new PassThrough();
  const written: string[] = [];
  stream.on('data', (c: Buffer) => written.push(c.toString('utf8')));
  return { stream, text: () => written.join('') };
}

const restores: (() => void)[] = [];
afterEach(() => {
  for (const restore of restores.splice(0).reverse()) restore();
});

/** What the process's stderr receives while `fn` runs, kept from the real stream. */
function captureProcessStderr(): () => string {
  const original = process.stderr.write;
  const seen: string[] = [];
  process.stderr.write = ((chunk: unknown) => {
    seen.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  restores.push(() => {
    process.stderr.write = original;
  });
  return () => seen.join('');
}

describe('the outputs of a run with the key wrong', () => {
  test("the console writes the run's words as they are; vitest's messages are masked", () => {
    const stderrSeen = captureProcessStderr();
    const out = sink();
    const err = sink();
    const plan = parseInvocation(['--api-key', 'wrong'], {}, process.cwd()) as RunPlan;
    const outputs = openOutputs(plan, { stdout: out.stream, stderr: err.stream, cwd: process.cwd() }, {});
    restores.push(() => outputs.restore());
    outputs.console.out('  CREATE-WRONG-TYPE  MUST  FAILED');
    outputs.console.warn('AUTH-WRONG-KEY-REFUSED is checked with --auth-required only');
    // vitest writes on the process's streams: an error it prints may quote a request.
    process.stderr.write("Unhandled error: GET /v1/pets?api_key=wrong answered 'WRONG'\n");
    expect(out.text()).toBe('  CREATE-WRONG-TYPE  MUST  FAILED\n');
    expect(err.text()).toContain('warning: AUTH-WRONG-KEY-REFUSED is checked with --auth-required only');
    expect(stderrSeen()).toBe("Unhandled error: GET /v1/pets?api_key=*** answered '***'\n");
    // An unexpected error's text is masked with the same secrets.
    expect(outputs.redactor.text('TypeError: bad key wrong0')).toBe('TypeError: bad key ***');
  });
});

// Where a run writes while it runs: its own lines as they are, vitest's messages masked, since they
// may quote anything (an error's text). No stream of the process is patched for it.
import { PassThrough } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { maskedStream } from '../../cli/reports/redact.ts';
import { parseInvocation, type RunPlan } from '../../cli/run/options.ts';
import { openOutputs } from '../../cli/run/outputs.ts';

/** A stream that keeps what is written to it. */
function sink() {
  const stream = new PassThrough();
  const written: string[] = [];
  stream.on('data', (c: Buffer) => written.push(c.toString('utf8')));
  return { stream, text: () => written.join('') };
}

/** Writes `text` to `stream` and waits until it has passed through. */
function write(stream: NodeJS.WritableStream, text: string): Promise<void> {
  return new Promise((resolve) => stream.write(text, () => resolve()));
}

describe('the outputs of a run with the key wrong', () => {
  test("the console writes the run's words as they are; vitest's messages are masked", async () => {
    const stdoutWrite = process.stdout.write;
    const stderrWrite = process.stderr.write;
    const out = sink();
    const err = sink();
    const plan = parseInvocation(['--api-key', 'wrong'], {}, process.cwd()) as RunPlan;
    const outputs = openOutputs(plan, { stdout: out.stream, stderr: err.stream, cwd: process.cwd() }, {});
    outputs.console.out('  CREATE-WRONG-TYPE  MUST  FAILED');
    outputs.console.warn('AUTH-WRONG-KEY-REFUSED is checked with --auth-required only');
    // vitest's messages reach the run on streams of its own (run/suites.ts): an error it prints may
    // quote a request.
    const { vitest } = outputs;
    await write(
      maskedStream(vitest.stderr, vitest.redactor),
      "Unhandled error: GET /v1/pets?api_key=wrong answered 'WRONG'\n",
    );
    expect(out.text()).toBe('  CREATE-WRONG-TYPE  MUST  FAILED\n');
    expect(err.text()).toContain('warning: AUTH-WRONG-KEY-REFUSED is checked with --auth-required only');
    expect(err.text()).toContain("Unhandled error: GET /v1/pets?api_key=*** answered '***'\n");
    expect(err.text()).not.toContain('wrong');
    // An unexpected error's text is masked with the same secrets.
    expect(outputs.redactor.text('TypeError: bad key wrong0')).toBe('TypeError: bad key ***');
    // The process's streams are the process's own.
    expect(process.stdout.write).toBe(stdoutWrite);
    expect(process.stderr.write).toBe(stderrWrite);
  });

  test('with the events on stdout, vitest writes on stderr', () => {
    const out = sink();
    const err = sink();
    const plan = parseInvocation(['--events', '-'], {}, process.cwd()) as RunPlan;
    const outputs = openOutputs(plan, { stdout: out.stream, stderr: err.stream, cwd: process.cwd() }, {});
    expect(outputs.vitest.stdout).toBe(err.stream);
    expect(outputs.vitest.stderr).toBe(err.stream);
    const plain = openOutputs(
      parseInvocation([], {}, process.cwd()) as RunPlan,
      { stdout: out.stream, stderr: err.stream, cwd: process.cwd() },
      {},
    );
    expect(plain.vitest.stdout).toBe(out.stream);
  });
});

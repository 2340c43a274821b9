/**
 * The CLI's masking of text it did not write itself. Secrets are masked where they go and where the
 * server's text enters the run (suites/harness/evidence/redact.ts, which the suites use too: they ship as
 * TypeScript source and cannot import from cli/); the reports and the console's lines are the run's
 * own words and are written as they are. What remains is text of unknown origin: vitest's messages
 * on the process's streams, and the text of an unexpected error (run/run.ts), masked as a server's.
 */
import type { Redactor } from '../../suites/harness/evidence/redact.ts';

export {
  createRedactor,
  MASK,
  maskAuthorization,
  type Redactor,
} from '../../suites/harness/evidence/redact.ts';

/**
 * Routes everything written to a stream through the redactor: vitest's own output (an error it
 * prints may quote a request). The run's console writes past it. Returns the function that undoes it.
 */
export function redactStream(
  stream: NodeJS.WriteStream | NodeJS.WritableStream,
  redactor: Redactor,
): () => void {
  const original = stream.write;
  const patched = function (this: unknown, chunk: unknown, ...rest: unknown[]): boolean {
    const masked =
      typeof chunk === 'string'
        ? redactor.text(chunk)
        : Buffer.isBuffer(chunk) || chunk instanceof Uint8Array
          ? redactor.bytes(Buffer.from(chunk))
          : chunk;
    return (original as (...args: unknown[]) => boolean).call(stream, masked, ...rest);
  };
  stream.write = patched as typeof stream.write;
  return () => {
    stream.write = original;
  };
}

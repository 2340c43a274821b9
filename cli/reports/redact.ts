/**
 * The one redaction pass. Everything that leaves the process (console, every report file, the
 * Allure results written by the reporter) goes through a Redactor built from the run's secrets.
 * The redactor itself lives with the harness (suites/harness/redact.ts), which masks at the source
 * with the same rules: the suites ship as TypeScript source and cannot import from cli/.
 */
import type { Redactor } from '../../suites/harness/redact.ts';

export { createRedactor, MASK, maskAuthorization, type Redactor } from '../../suites/harness/redact.ts';

/**
 * Routes everything written to a stream through the redactor, vitest's own output included (an
 * error it prints may quote a request). Returns the function that undoes it.
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

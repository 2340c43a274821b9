/**
 * The CLI's masking of text it did not write itself. Secrets are masked where they go and where the
 * server's text enters the run (suites/harness/evidence/redact.ts, which the suites use too: they ship as
 * TypeScript source and cannot import from cli/); the reports and the console's lines are the run's
 * own words and are written as they are. What remains is text of unknown origin: vitest's messages
 * (run/suites.ts), and the text of an unexpected error (run/run.ts), masked as a server's.
 */
import { Writable } from 'node:stream';
import type { Redactor } from '../../suites/harness/evidence/redact.ts';

export {
  createRedactor,
  MASK,
  maskAuthorization,
  type Redactor,
} from '../../suites/harness/evidence/redact.ts';

/**
 * A stream that writes to `target` what is written to it, each chunk masked as a server's text: for
 * vitest's messages (an error it prints may quote a request), which reach the run on streams of their
 * own (run/suites.ts). The run's console writes past it.
 */
export function maskedStream(target: NodeJS.WritableStream, redactor: Redactor): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      target.write(redactor.bytes(chunk));
      done();
    },
  });
}

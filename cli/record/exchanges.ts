/**
 * Reads a run's exchange log: every request the checks sent and what came back, one entry each, as
 * the worker appended them to the log's file as each exchange ended (suites/harness/evidence/exchange-log.ts,
 * where the entry format is documented field by field). Already masked. The writers that want every
 * exchange read the run record's `exchanges`: exchanges.har (reports/har.ts), response times by
 * operation.
 *
 *   const log = openExchangeLog(path.join(staging, 'exchanges.jsonl'));   // settings.file
 *   …the checks run; vitest ends and its worker exits…
 *   for (const x of log.entries()) x.operation?.path, x.durationMs, x.requirement, x.response?.status
 *
 * What the log holds does not depend on timing: the worker's writes are synchronous, and the file is
 * read after the worker has exited (vitest's close() terminates it before startVitest resolves).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import {
  EXCHANGE_LOG_VERSION,
  type LoggedBody,
  type LoggedExchange,
  type LoggedOperation,
} from '../../suites/harness/evidence/exchange-log.ts';

export type { LoggedBody, LoggedExchange, LoggedOperation };

/**
 * Bytes of each body the log keeps when exchanges.har is written (the rest is counted and marked
 * cut); without it, the log keeps sizes only. Larger than any body of the service's contract (a
 * page of 100 pets is about 10 KiB), smaller than the bodies the checks send to test the limits.
 */
export const LOG_BODY_BYTES = 64 * 1024;

/** The CLI's end of a run's exchange log. */
export interface ExchangeLogInbox {
  /** The file the worker appends to (ExchangeLogSettings.file). */
  readonly file: string;
  /**
   * Every entry of the file, oldest first (by startedAt; the order written where two started in the
   * same millisecond), read when called: once vitest has ended. A line of another version of the
   * format is not an entry; a last line without its end (a worker stopped as it wrote, when a run
   * is interrupted) is left out.
   */
  entries(): LoggedExchange[];
}

/** Opens a run's exchange log: `file`, created empty (the worker appends to it). */
export function openExchangeLog(file: string): ExchangeLogInbox {
  writeFileSync(file, '');
  return {
    file,
    entries: () => {
      const lines = readFileSync(file, 'utf8').split('\n');
      lines.pop(); // what follows the last line's end: nothing, or a line cut short
      return lines
        .map((line, order) => ({ x: JSON.parse(line) as LoggedExchange, order }))
        .filter((e) => e.x.v === EXCHANGE_LOG_VERSION)
        .sort((a, b) =>
          a.x.startedAt < b.x.startedAt ? -1 : a.x.startedAt > b.x.startedAt ? 1 : a.order - b.order,
        )
        .map((e) => e.x);
    },
  };
}

/** "GET /pets/{petId}", or "(outside the API)" for a request to no path of spec/openapi.yaml. */
export function operationName(x: Pick<LoggedExchange, 'operation'>): string {
  return x.operation ? `${x.operation.method} ${x.operation.path}` : '(outside the API)';
}

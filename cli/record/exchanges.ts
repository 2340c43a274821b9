/**
 * Reads a run's exchange log back: every request the checks sent and what came back, one entry
 * each, as the workers wrote them (suites/harness/exchange-log.ts, where the line format is
 * documented field by field). Already masked. The writers that want every exchange import this
 * module: exchanges.har (reports/har.ts), response times by operation.
 *
 *   const exchanges = readExchangeLog(record.exchangeLog);   // oldest first
 *   for (const x of exchanges) x.operation?.path, x.durationMs, x.requirement, x.response?.status
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  EXCHANGE_LOG_VERSION,
  type LoggedBody,
  type LoggedExchange,
  type LoggedOperation,
} from '../../suites/harness/exchange-log.ts';

export type { LoggedBody, LoggedExchange, LoggedOperation };

/**
 * Bytes of each body the log keeps when exchanges.har is written (the rest is counted and marked
 * cut); without it, the log keeps sizes only. Larger than any body of the service's contract (a
 * page of 100 pets is about 10 KiB), smaller than the bodies the checks send to test the limits.
 */
export const LOG_BODY_BYTES = 64 * 1024;

/**
 * Every exchange of the log folder `dir`, oldest first (by startedAt; the order sent within a
 * worker where two started in the same millisecond). A folder that does not exist holds none (the
 * run sent nothing); a line that does not parse, or of another version, is skipped and counted.
 */
export function readExchangeLog(dir: string | undefined): LoggedExchange[] {
  return readExchangeLogWithProblems(dir).exchanges;
}

/** readExchangeLog, and how many lines it could not read (a worker cut short mid-line). */
export function readExchangeLogWithProblems(dir: string | undefined): {
  exchanges: LoggedExchange[];
  unreadable: number;
} {
  const exchanges: { x: LoggedExchange; order: number }[] = [];
  let unreadable = 0;
  let names: string[];
  try {
    names = dir === undefined ? [] : readdirSync(dir).filter((n) => n.endsWith('.ndjson'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') names = [];
    else throw error;
  }
  for (const name of names.sort()) {
    const text = readFileSync(path.join(dir!, name), 'utf8');
    for (const line of text.split('\n')) {
      if (line === '') continue;
      try {
        const x = JSON.parse(line) as LoggedExchange;
        if (x?.v !== EXCHANGE_LOG_VERSION) unreadable++;
        else exchanges.push({ x, order: exchanges.length });
      } catch {
        unreadable++;
      }
    }
  }
  exchanges.sort((a, b) =>
    a.x.startedAt < b.x.startedAt ? -1 : a.x.startedAt > b.x.startedAt ? 1 : a.order - b.order,
  );
  return { exchanges: exchanges.map((e) => e.x), unreadable };
}

/** "GET /pets/{petId}", or "(outside the API)" for a request to no path of spec/openapi.yaml. */
export function operationName(x: Pick<LoggedExchange, 'operation'>): string {
  return x.operation ? `${x.operation.method} ${x.operation.path}` : '(outside the API)';
}

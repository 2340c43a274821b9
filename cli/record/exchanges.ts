/**
 * Receives a run's exchange log: every request the checks sent and what came back, one entry each,
 * as the workers posted them (suites/harness/exchange-log.ts, where the entry format is documented
 * field by field). Already masked. The writers that want every exchange read the run record's
 * `exchanges`: exchanges.har (reports/har.ts), response times by operation.
 *
 *   const log = openExchangeLog();                 // before the workers start: settings.channel
 *   …the checks run…
 *   await log.drain();
 *   for (const x of log.entries()) x.operation?.path, x.durationMs, x.requirement, x.response?.status
 *   log.close();
 */
import { randomUUID } from 'node:crypto';
import { BroadcastChannel } from 'node:worker_threads';
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

/** The main thread's end of a run's exchange log. */
export interface ExchangeLogInbox {
  /** The channel's name, for the workers (ExchangeLogSettings.channel). */
  readonly channel: string;
  /**
   * Every entry received, oldest first (by startedAt; the order received where two started in the
   * same millisecond). A message of another version of the format is not an entry.
   */
  entries(): LoggedExchange[];
  /**
   * Resolves once every entry posted before the call has been received: a worker's entry is in this
   * thread's queue when its postMessage returns, and the queue is emptied when the event loop next
   * polls, before the next turn's immediates run.
   */
  drain(): Promise<void>;
  /** Stops receiving; the entries stay. */
  close(): void;
}

/** Opens a run's exchange log: a BroadcastChannel of a name of its own, that never keeps the process alive. */
export function openExchangeLog(): ExchangeLogInbox {
  const channel = `petstore-conformance-exchanges-${randomUUID()}`;
  const port = new BroadcastChannel(channel);
  port.unref();
  const received: LoggedExchange[] = [];
  // A message is the entries of one turn of a worker's event loop, as JSON text (suites/harness/exchange-log.ts);
  // anything else is not.
  port.onmessage = (event) => {
    const data = (event as MessageEvent).data as unknown;
    if (typeof data !== 'string') return;
    let batch: unknown;
    try {
      batch = JSON.parse(data);
    } catch {
      return;
    }
    if (!Array.isArray(batch)) return;
    for (const x of batch as (LoggedExchange | undefined)[])
      if (x?.v === EXCHANGE_LOG_VERSION) received.push(x);
  };
  return {
    channel,
    entries: () =>
      received
        .map((x, order) => ({ x, order }))
        .sort((a, b) =>
          a.x.startedAt < b.x.startedAt ? -1 : a.x.startedAt > b.x.startedAt ? 1 : a.order - b.order,
        )
        .map((e) => e.x),
    drain: async () => {
      for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
    },
    close: () => port.close(),
  };
}

/** "GET /pets/{petId}", or "(outside the API)" for a request to no path of spec/openapi.yaml. */
export function operationName(x: Pick<LoggedExchange, 'operation'>): string {
  return x.operation ? `${x.operation.method} ${x.operation.path}` : '(outside the API)';
}

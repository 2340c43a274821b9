/**
 * Response times: how fast the deployment answered, per operation. A pure function over a list of
 * {operation, durationMs} (each exchange that got an answer, timed by the suites' client from the
 * request sent to the last byte of the body read), so that it serves whatever gathers the list; a
 * run gathers it from its exchange log (timingsOfExchanges), where every answer is timed once and
 * named by its operation once.
 */
import type { LoggedExchange } from './exchanges.ts';

/** One answer's time. */
export interface Timing {
  /** An operationId of spec/openapi.yaml, or OTHER for what matches none (an undefined method or path). */
  readonly operation: string;
  readonly durationMs: number;
}

/** The operation of requests that match none of the contract's. */
export const OTHER = 'other';

/** One operation's times, in milliseconds to a tenth. */
export interface OperationTimes {
  readonly count: number;
  readonly medianMs: number;
  /** The 95th percentile, nearest rank: the smallest time at least 95 % of the answers did not exceed. */
  readonly p95Ms: number;
  readonly maxMs: number;
}

/**
 * Count, median, 95th percentile and maximum per operation; operations in `order` first (those with
 * answers), then any other in the order first seen. Empty for no timings.
 */
export function responseTimeStats(
  timings: readonly Timing[],
  order: readonly string[] = [],
): Map<string, OperationTimes> {
  const byOperation = new Map<string, number[]>();
  for (const t of timings) {
    if (!Number.isFinite(t.durationMs) || t.durationMs < 0) continue;
    const list = byOperation.get(t.operation) ?? [];
    list.push(t.durationMs);
    byOperation.set(t.operation, list);
  }
  const operations = [
    ...order.filter((o) => byOperation.has(o)),
    ...[...byOperation.keys()].filter((o) => !order.includes(o)),
  ];
  return new Map(
    operations.map((operation) => {
      const sorted = [...(byOperation.get(operation) ?? [])].sort((a, b) => a - b);
      return [operation, statsOf(sorted)] as const;
    }),
  );
}

function statsOf(sorted: readonly number[]): OperationTimes {
  const n = sorted.length;
  const at = (i: number) => sorted[Math.min(n - 1, Math.max(0, i))] ?? 0;
  const median = n % 2 === 1 ? at((n - 1) / 2) : (at(n / 2 - 1) + at(n / 2)) / 2;
  return {
    count: n,
    medianMs: tenth(median),
    p95Ms: tenth(at(Math.ceil(0.95 * n) - 1)),
    maxMs: tenth(at(n - 1)),
  };
}

function tenth(ms: number): number {
  return Math.round(ms * 10) / 10;
}

/**
 * The answers of a run's exchange log, each timed and put under its operation: an answer a check
 * received is an exchange with a response and no error (a 429 is never handed to a check: one that
 * ends an exchange means the client gave up waiting), timed from its last attempt sent to the last
 * byte of its body (`wait` + `receive`: no 429 wait, no earlier attempt). The operation is the one
 * the log named as it logged the request (catalog/routes.ts matched it), exchanges.har's too: OTHER
 * where it named none, or a path without an operation for its method.
 */
export function timingsOfExchanges(
  exchanges: readonly Pick<LoggedExchange, 'operation' | 'response' | 'error' | 'timings'>[],
): Timing[] {
  const timings: Timing[] = [];
  for (const x of exchanges) {
    if (x.response === undefined || x.error !== undefined || x.response.status === 429) continue;
    timings.push({
      operation: x.operation?.operationId ?? OTHER,
      durationMs: x.timings.wait + x.timings.receive,
    });
  }
  return timings;
}

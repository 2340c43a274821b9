/**
 * Response times: how fast the deployment answered, per operation. A pure function over a list of
 * {operation, durationMs} (each exchange that got an answer, timed by the suites' client from the
 * request sent to the last byte of the body read), so that it serves whatever gathers the list; a
 * run gathers it from its exchange log (timingsOfExchanges), where every answer is timed once.
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
 * The operation a request belongs to, from the contract's routes ("GET /pets/{petId}"): `path` is
 * relative to the base URL, without its query. OTHER when no route matches.
 */
export function operationOf(method: string, path: string, routes: ReadonlyMap<string, string>): string {
  const clean = path.split(/[?#]/)[0] ?? path;
  for (const [operation, route] of routes) {
    const [routeMethod, template] = route.split(' ');
    if (routeMethod !== method.toUpperCase() || template === undefined) continue;
    if (routePattern(template).test(clean)) return operation;
  }
  return OTHER;
}

const routePatterns = new Map<string, RegExp>();

/** A path template as a pattern: /pets/{petId} matches /pets/12 and /pets/12/ (each template compiled once). */
function routePattern(template: string): RegExp {
  let pattern = routePatterns.get(template);
  if (pattern === undefined) {
    const source = template
      .split(/\{[^}]+\}/)
      .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
      .join('[^/]+');
    pattern = new RegExp(`^${source}/?$`);
    routePatterns.set(template, pattern);
  }
  return pattern;
}

/**
 * The answers of a run's exchange log, each timed and put under its operation: an answer a check
 * received is an exchange with a response and no error (a 429 is never handed to a check: one that
 * ends an exchange means the client gave up waiting), timed from its last attempt sent to the last
 * byte of its body (`wait` + `receive`: no 429 wait, no earlier attempt). The operation is matched
 * on the path under `baseUrl`.
 */
export function timingsOfExchanges(
  exchanges: readonly Pick<LoggedExchange, 'request' | 'response' | 'error' | 'timings'>[],
  baseUrl: string,
  routes: ReadonlyMap<string, string>,
): Timing[] {
  const timings: Timing[] = [];
  for (const x of exchanges) {
    if (x.response === undefined || x.error !== undefined || x.response.status === 429) continue;
    timings.push({
      operation: operationOf(x.request.method, pathUnder(baseUrl, x.request.url), routes),
      durationMs: x.timings.wait + x.timings.receive,
    });
  }
  return timings;
}

/** A URL's path under the base URL ("/pets/12"), without the query; the whole path when it is not under it. */
function pathUnder(baseUrl: string, url: string): string {
  const path = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '').split(/[?#]/)[0] ?? '';
  const basePath = baseUrl.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '').replace(/\/+$/, '');
  return basePath !== '' && path.startsWith(`${basePath}/`) ? path.slice(basePath.length) : path;
}

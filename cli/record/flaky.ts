/**
 * Flaky passes (--retries): a requirement whose checks passed, but only after the client sent a
 * request again because the transport failed before any answer (suites/harness/http/retry.ts). It stays
 * `passed`; the reports mark it flaky, with the retries counted and the first attempts that failed.
 */
import { pathAndQuery } from '../../suites/harness/evidence/url.ts';

/** An attempt sent again: what was sent (masked) and what went wrong. */
export interface RetriedAttempt {
  readonly method: string;
  readonly url: string;
  readonly error: string;
}

/** What a test's retries were (task.meta.retried / retryCount): how many, and the first ones. */
export interface TestRetries {
  readonly count: number;
  readonly first: readonly RetriedAttempt[];
}

/** What a passed requirement says of its retries: flaky, how many, the first few (at most 3). */
export interface Flakiness {
  readonly flaky: true;
  readonly retries: number;
  readonly retried: readonly RetriedAttempt[];
}

/** The flakiness of a passed requirement from its tests' retries; undefined when none was retried. */
export function flakinessOf(tests: readonly { readonly retries?: TestRetries }[]): Flakiness | undefined {
  const count = tests.reduce((sum, t) => sum + (t.retries?.count ?? 0), 0);
  if (count === 0) return undefined;
  return { flaky: true, retries: count, retried: tests.flatMap((t) => t.retries?.first ?? []).slice(0, 3) };
}

/** One line for an attempt sent again: "GET /v1/pets: connection reset by the server (ECONNRESET) after 2 ms, …". */
export function retriedLine(a: RetriedAttempt): string {
  return `${a.method} ${pathAndQuery(a.url)}: ${a.error}`;
}

/** "1 retry", "3 retries". */
export function retriesText(n: number): string {
  return `${n} ${n === 1 ? 'retry' : 'retries'}`;
}

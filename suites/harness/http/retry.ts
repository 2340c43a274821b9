/**
 * --retries: which requests are sent again, and when. A request is retried only when the transport
 * failed before any answer began (connection refused or reset before the status line, no status
 * line within the timeout), and only when it is safe (RFC 9110 §9.2.1): a create whose answer was
 * lost is never sent again; what it did is judged by reading the pet back. An HTTP answer is never
 * retried away: a 5xx is a 5xx, a body cut in the middle is a broken answer.
 */

/** The methods RFC 9110 §9.2.1 defines as safe: sending one again changes nothing on the server. */
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

/** Whether a request of this method may be sent again after the transport failed. */
export function isSafeMethod(method: string): boolean {
  return SAFE.has(method.toUpperCase());
}

/** Retries a run allows at most (--retries). */
export const MAX_RETRIES = 10;

/** The wait before retry `n` (1, 2, …): 100 ms doubled each time, at most 2 s; no jitter, so that runs repeat. */
export function backoffMs(n: number): number {
  return Math.min(2_000, 100 * 2 ** Math.max(0, n - 1));
}

/** The waits of `retries` retries together. */
export function totalBackoffMs(retries: number): number {
  let total = 0;
  for (let n = 1; n <= retries; n++) total += backoffMs(n);
  return total;
}

/** A request the client sent again because the transport failed: the evidence of a flaky pass. */
export interface RetriedRequest {
  readonly method: string;
  /** Masked. */
  readonly url: string;
  /** What went wrong with the attempt: "connection reset by the server (ECONNRESET) after 2 ms, before …". */
  readonly error: string;
}

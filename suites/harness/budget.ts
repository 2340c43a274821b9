/**
 * The time budget of a check, in multiples of config.timeoutMs (one request, body and 429 waits
 * included). vitest's testTimeout is derived from it (suites/vitest.shared.ts), so that a server that
 * never answers fails each check with the client's own message, before vitest's timeout strikes.
 */

/** Requests one check sends one after another at most; requests sent together count once. */
export const MAX_SEQUENTIAL_REQUESTS = 4;

/**
 * Generated checks try cases one after another: they stop at the first case that gets no response,
 * and otherwise stop trying new cases (and shrinking) after this many timeouts.
 */
export const GENERATED_BUDGET_FACTOR = 2;

/** vitest's testTimeout for a request timeout: every sequential request timing out, and a margin. */
export function testTimeoutFor(timeoutMs: number): number {
  return (MAX_SEQUENTIAL_REQUESTS + 1) * timeoutMs + 5_000;
}

import { totalBackoffMs } from './retry.ts';

/**
 * The time budget of a check, in multiples of config.timeoutMs (one request, body and 429 waits
 * included). vitest's testTimeout is derived from it (suites/vitest.shared.ts), so that a server that
 * never answers fails each check with the client's own message, before vitest's timeout strikes.
 */

/** Requests one check sends one after another at most; requests sent together count once. */
export const MAX_SEQUENTIAL_REQUESTS = 4;

/**
 * Pets a check's setup creates at once. The largest setup, 101 pets (LIST-LIMIT-DEFAULT,
 * LIST-LIMIT-AT-MOST [limit=100]), takes ceil(101 / 34) = 3 rounds, and with its GET stays within
 * MAX_SEQUENTIAL_REQUESTS: at 16 it took 7 rounds, and a slow but conformant server met vitest's
 * generic "Test timed out" before the check could judge.
 */
export const SETUP_CONCURRENCY = 34;

/**
 * Creates CREATE-CONCURRENT sends at once: the widest burst of creates the run sends, wider than a
 * setup's (SETUP_CONCURRENCY), the generated sequences' 16, MINEFIELD_CONCURRENCY and
 * GENERATED_CONCURRENCY. A server that loses writes only above some concurrency then loses them in
 * the check that judges it, not only in another check's setup, where the loss could only block (or
 * be suspected of) that bystander.
 */
export const CONCURRENT_CREATES = 40;

/** Sequential rounds of requests that creating `pets` pets takes. */
export function setupRounds(pets: number): number {
  return Math.ceil(pets / SETUP_CONCURRENCY);
}

/**
 * Generated checks try cases GENERATED_CONCURRENCY at a time: they stop at the first case that gets
 * no response, and otherwise stop trying new cases (and shrinking) after this many timeouts.
 */
export const GENERATED_BUDGET_FACTOR = 2;

/**
 * Generated cases in flight at once (harness/contract/generate.ts): 60 cases take 2 round trips instead of
 * 60, which is what a deployment far away pays for each. Fewer than the CONCURRENT_CREATES that
 * CREATE-CONCURRENT sends at once, so that no server sees more concurrency from them than the suite already asks for.
 */
export const GENERATED_CONCURRENCY = 30;

/**
 * Bodies of the JSON minefield (harness/contract/minefield.ts) sent at once: some sixty bodies take two round
 * trips, within MAX_SEQUENTIAL_REQUESTS, and fewer creates are in flight than CONCURRENT_CREATES.
 */
export const MINEFIELD_CONCURRENCY = 30;

/**
 * The longest one request can take: its timeout, and with --retries each retry's timeout and the
 * wait before it (harness/http/retry.ts).
 */
export function requestBudgetMs(timeoutMs: number, retries = 0): number {
  return (retries + 1) * timeoutMs + totalBackoffMs(retries);
}

/** vitest's testTimeout for a request timeout: every sequential request timing out, and a margin. */
export function testTimeoutFor(timeoutMs: number, retries = 0): number {
  return (MAX_SEQUENTIAL_REQUESTS + 1) * requestBudgetMs(timeoutMs, retries) + 5_000;
}

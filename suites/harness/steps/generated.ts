import fc from 'fast-check';
import type { Config } from '../config/config.ts';
import { bodyInline } from '../evidence/body.ts';
import { ConformanceError, isConformanceError } from '../evidence/errors.ts';
import { stringifyExact } from '../evidence/json.ts';
import { GENERATED_BUDGET_FACTOR, GENERATED_CONCURRENCY } from '../http/budget.ts';
import { runClock } from '../http/pace.ts';
import { endsTheCheck } from '../requirement/blocked.ts';

/** Fewer generated cases than this within the budget fail the check: too few to judge the property. */
export const MIN_GENERATED_CASES = 5;

export interface GeneratedOptions {
  readonly numRuns: number;
  /**
   * No new generated case (shrinks included) starts after this long; a case already started finishes
   * and counts. Default GENERATED_BUDGET_FACTOR × config.timeoutMs.
   */
  readonly budgetMs?: number;
  /** Fewer cases than this run within the budget fail the check (default MIN_GENERATED_CASES). */
  readonly minRuns?: number;
  /** Cases in flight at once before any fails (default GENERATED_CONCURRENCY); shrinking is one at a time. */
  readonly concurrency?: number;
  /** Records how many cases ran (the check's note()). */
  readonly note?: (message: string) => Promise<void>;
}

/** The first (only) argument of fast-check's counterexample, or null. */
function counterexampleOf(details: { counterexample: unknown }): unknown {
  return (details.counterexample as [unknown] | null)?.[0] ?? null;
}

/**
 * Checks a property over generated inputs, seeded by config.seed and shrunk on failure. The first case
 * that gets no response at all (a hanging or resetting server) ends the check at once, without
 * shrinking, so that a dead server costs one timeout and not one per case. The budget is checked
 * before each case starts, never by racing a running one: a case that started is judged, so a failing
 * case is never thrown away. Fewer than minRuns cases within the budget fail the check. A failure is
 * rethrown as a ConformanceError whose `received` shows the smallest counterexample as the JSON sent, and the seed.
 *
 * The cases are fast-check's own for the seed (fc.sample gives the sequence fc.check tries), sent
 * `concurrency` at a time, in order, so that a deployment far away costs a few round trips rather
 * than one per case. No case starts after one has failed; the first failing case (in the order
 * fast-check tries them) is then replayed alone and shrunk by fc.check from its place in the sequence
 * (its `path`), one case at a time, as a sequential run would have done from there.
 */
export async function checkGenerated<T>(
  config: Config,
  arbitrary: fc.Arbitrary<T>,
  check: (input: T) => Promise<void>,
  options: GeneratedOptions,
): Promise<{ numRuns: number }> {
  const budgetMs = options.budgetMs ?? GENERATED_BUDGET_FACTOR * config.timeoutMs;
  const minRuns = Math.min(options.minRuns ?? MIN_GENERATED_CASES, options.numRuns);
  const now = runClock(config);
  const endsAt = now() + budgetMs;
  let ended: unknown;
  let ran = 0;

  // Every case, `concurrency` at a time: the outcome of each one that started, by its index.
  const cases = fc.sample(arbitrary, { seed: config.seed, numRuns: options.numRuns });
  const outcomes: ({ failed: false } | { failed: true; error: unknown })[] = [];
  let next = 0;
  let stop = false;
  const worker = async () => {
    while (!stop && next < cases.length && now() < endsAt) {
      const i = next++;
      ran++;
      try {
        await check(cases[i]!);
        outcomes[i] = { failed: false };
      } catch (error) {
        outcomes[i] = { failed: true, error };
        stop = true;
      }
    }
  };
  await Promise.all(
    Array.from({ length: Math.max(1, options.concurrency ?? GENERATED_CONCURRENCY) }, worker),
  );
  const first = outcomes.findIndex((o) => o?.failed);
  const failure = first >= 0 ? (outcomes[first] as { error: unknown }).error : undefined;
  if (failure !== undefined && endsTheCheck(failure)) {
    await options.note?.(
      `${ran} generated case(s) checked within a budget of ${budgetMs} ms (seed ${config.seed})`,
    );
    throw failure;
  }

  // The first failing case, replayed alone and shrunk (fc.check's path: its index in the sequence).
  let details: fc.RunDetails<[T]> | undefined;
  if (failure !== undefined) {
    const property = fc.asyncProperty(arbitrary, async (input) => {
      // Past the budget no case starts (it passes unjudged); the cases that ran are what is judged.
      if (ended || now() >= endsAt) return;
      ran++;
      try {
        await check(input);
      } catch (err) {
        if (endsTheCheck(err)) {
          ended = err;
          return;
        }
        throw err;
      }
    });
    details = await fc.check(property, { seed: config.seed, numRuns: options.numRuns, path: String(first) });
  }
  await options.note?.(
    `${ran} generated case(s) checked${failure !== undefined ? ` (shrinks included)` : ''} within a budget of ${budgetMs} ms (seed ${config.seed})`,
  );
  if (ended) throw ended;
  if (failure !== undefined) {
    // Not failing again when replayed (past the budget, or a server that fails now and then): the
    // case as it failed, not shrunk.
    const shrunk = details?.failed === true;
    const err = shrunk ? details!.errorInstance : failure;
    const counterexample = shrunk ? counterexampleOf(details!) : cases[first];
    const where = `seed ${config.seed}, ${first + 1} case(s) tried, ${shrunk ? `shrunk ${details!.numShrinks} time(s)` : 'not shrunk: it passed when replayed'}`;
    if (isConformanceError(err)) {
      // The smallest failing case, as the JSON that was sent (the request body of its last exchange).
      const body = err.exchanges?.at(-1)?.requestBody;
      const sent = body === undefined ? undefined : bodyInline(body);
      throw new ConformanceError({
        expected: err.expected,
        received: `${err.received} — to the generated case ${sent ?? stringifyExact(counterexample)} (${where})`,
        reproduce: err.reproduce,
        ...(err.exchanges ? { exchanges: err.exchanges } : {}),
      });
    }
    throw new Error(`generated case ${stringifyExact(counterexample)} (${where}) failed: ${String(err)}`, {
      cause: err,
    });
  }
  if (ran < minRuns) {
    throw new ConformanceError({
      expected: `at least ${minRuns} generated cases checked within ${budgetMs} ms`,
      received: `only ${ran} case(s) answered within the budget: the server is too slow to judge the property`,
      reproduce: `rerun with --seed ${config.seed} and a larger --timeout-ms (the budget grows with it)`,
    });
  }
  return { numRuns: ran };
}

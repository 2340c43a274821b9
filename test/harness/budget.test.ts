import { expect, test } from 'vitest';
import { NOT_JSON } from '../../suites/harness/contract/minefield.ts';
import {
  CONCURRENT_CREATES,
  GENERATED_CONCURRENCY,
  MAX_SEQUENTIAL_REQUESTS,
  MINEFIELD_CONCURRENCY,
  SETUP_CONCURRENCY,
  setupRounds,
} from '../../suites/harness/http/budget.ts';
import { createPets } from '../../suites/harness/steps/pets.ts';

test('the largest setup (101 pets) and its GET fit the sequential requests a check is given', () => {
  // LIST-LIMIT-DEFAULT and LIST-LIMIT-AT-MOST [limit=100]: 101 pets, then one GET /pets.
  expect(setupRounds(101) + 1).toBeLessThanOrEqual(MAX_SEQUENTIAL_REQUESTS);
});

test('createPets sends SETUP_CONCURRENCY creates at once', async () => {
  let inFlight = 0;
  let most = 0;
  const api = {
    post: async () => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
      return { status: 201 };
    },
  };
  const pets = Array.from({ length: 101 }, (_, i) => ({ id: BigInt(i), name: `p${i}` }));
  await createPets(api as never, pets as never);
  expect(most).toBe(SETUP_CONCURRENCY);
});

test("CREATE-CONCURRENT's burst is the widest of the run: wider than a setup's and the generated cases'", () => {
  // A server that loses writes only above some concurrency must lose them where CREATE-CONCURRENT
  // judges it, not only in a bystander's setup (a variant that loses creates while 16 or more are in
  // flight once passed CREATE-CONCURRENT's 24 and lost pets of LIST-LIMIT-FILLS's 34 at once).
  expect(CONCURRENT_CREATES).toBeGreaterThan(SETUP_CONCURRENCY);
  expect(CONCURRENT_CREATES).toBeGreaterThan(GENERATED_CONCURRENCY);
  expect(CONCURRENT_CREATES).toBeGreaterThan(MINEFIELD_CONCURRENCY);
  expect(CONCURRENT_CREATES).toBeGreaterThan(16); // the generated sequences at once (create.checks.ts)
});

test('the bodies of the JSON minefield go out within the sequential requests a check is given', () => {
  expect(Math.ceil(NOT_JSON.length / MINEFIELD_CONCURRENCY)).toBeLessThanOrEqual(MAX_SEQUENTIAL_REQUESTS);
});

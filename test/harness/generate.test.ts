import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { loadContract } from '../../suites/harness/contract/contract.ts';
import {
  applyMutation,
  arbitraryOf,
  isInvalid,
  mutationsOf,
} from '../../suites/harness/contract/generate.ts';
import { ConformanceError } from '../../suites/harness/evidence/errors.ts';
import { checkGenerated } from '../../suites/harness/steps/generated.ts';
import { testConfig } from '../helpers/config.ts';

/** What a case gets when the server never answers. */
const noResponse = new ConformanceError({
  expected: 'a complete HTTP response to POST /pets within 100 ms',
  received: 'no complete response within 100 ms',
  reproduce: 'curl',
});

const contract = await loadContract();
const Pet = contract.schema('Pet');
const pets = arbitraryOf(Pet) as fc.Arbitrary<Record<string, unknown>>;

describe('inputs generated from the Pet schema of spec/openapi.yaml', () => {
  test('every generated pet is valid, with and without the optional fields, some with other properties', () => {
    const sample = fc.sample(pets, { numRuns: 300, seed: 1 });
    for (const pet of sample) expect(isInvalid(contract, Pet, pet)).toBe(false);
    expect(sample.some((p) => !('tag' in p))).toBe(true);
    expect(sample.some((p) => 'status' in p)).toBe(true);
    expect(sample.some((p) => Object.keys(p).some((k) => !['id', 'name', 'tag', 'status'].includes(k)))).toBe(
      true,
    );
    expect(sample.some((p) => typeof p.id === 'bigint' && (p.id > 2n ** 53n || p.id < -(2n ** 53n)))).toBe(
      true,
    );
  });

  test('every mutation breaks the schema, and every kind the schema allows is produced', () => {
    const sample = fc.sample(fc.tuple(pets, mutationsOf(Pet)), { numRuns: 500, seed: 2 });
    for (const [pet, m] of sample) expect(isInvalid(contract, Pet, applyMutation(pet, m)), m.why).toBe(true);
    const whys = new Set(sample.map(([, m]) => m.why.replace(/ \(.*\)$/, '')));
    expect([...whys].sort()).toEqual([
      'a body of the wrong JSON type',
      'id of the wrong type',
      'id outside int64',
      'name of the wrong type',
      'required property id missing',
      'required property name missing',
      'status of the wrong type',
      'status outside its enum',
      'tag of the wrong type',
    ]);
  });

  test('a failing property is shrunk, and the smallest case, as JSON, and the seed are in the failure', async () => {
    const config = testConfig('http://127.0.0.1:1/v1', { seed: 7 });
    const failure = await checkGenerated(
      config,
      fc.integer({ min: 0, max: 1000 }),
      async (n) => {
        if (n >= 10) {
          throw new ConformanceError({
            expected: 'n below 10',
            received: String(n),
            reproduce: `curl n=${n}`,
          });
        }
      },
      { numRuns: 50 },
    ).then(
      () => undefined,
      (e: unknown) => e as ConformanceError,
    );
    expect(failure).toBeInstanceOf(ConformanceError);
    expect(failure?.expected).toBe('n below 10');
    expect(failure?.received).toMatch(
      /^10 — to the generated case 10 \(seed 7, \d+ case\(s\) tried, shrunk \d+ time\(s\)\)$/,
    );
    expect(failure?.reproduce).toBe('curl n=10');
  });

  test('a case that gets no response ends the check at once, without shrinking', async () => {
    let calls = 0;
    const err = await checkGenerated(
      testConfig('http://127.0.0.1:1/v1'),
      fc.integer(),
      async () => {
        calls++;
        throw noResponse;
      },
      { numRuns: 50, concurrency: 1 },
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBe(noResponse);
    expect(calls).toBe(1);
  });

  test('the budget stops new cases but never discards a started one: a slow failing case is judged', async () => {
    let calls = 0;
    const notes: string[] = [];
    const err = await checkGenerated(
      testConfig('http://127.0.0.1:1/v1', { seed: 3 }),
      fc.integer({ min: 0, max: 1000 }),
      async (n) => {
        calls++;
        if (calls < 6) return;
        // The sixth case runs well past the budget, then fails: it must count.
        await new Promise((r) => setTimeout(r, 300));
        throw new ConformanceError({
          expected: 'a fast answer',
          received: `slow ${n}`,
          reproduce: 'curl slow',
        });
      },
      { numRuns: 50, budgetMs: 100, concurrency: 1, note: async (m) => void notes.push(m) },
    ).then(
      () => undefined,
      (e: unknown) => e as ConformanceError,
    );
    expect(err).toBeInstanceOf(ConformanceError);
    expect(err?.expected).toBe('a fast answer');
    expect(err?.reproduce).toBe('curl slow');
    expect(calls).toBe(6); // no case started after the budget, not even to shrink
    expect(notes[0]).toMatch(/^6 generated case\(s\) checked/);
  });

  test('fewer cases than the minimum within the budget fail the check; the count is noted', async () => {
    const notes: string[] = [];
    const err = await checkGenerated(
      testConfig('http://127.0.0.1:1/v1'),
      fc.integer(),
      () => new Promise<void>((r) => setTimeout(r, 60)),
      { numRuns: 50, budgetMs: 100, concurrency: 1, note: async (m) => void notes.push(m) },
    ).then(
      () => undefined,
      (e: unknown) => e as ConformanceError,
    );
    expect(err).toBeInstanceOf(ConformanceError);
    expect(err?.expected).toBe('at least 5 generated cases checked within 100 ms');
    expect(err?.received).toMatch(/^only [1-4] case\(s\) answered within the budget/);
    expect(notes).toEqual([
      expect.stringMatching(/^[1-4] generated case\(s\) checked within a budget of 100 ms/),
    ]);
    const done = await checkGenerated(testConfig('http://127.0.0.1:1/v1'), fc.integer(), async () => {}, {
      numRuns: 20,
    });
    expect(done.numRuns).toBe(20);
  });
  test('cases run `concurrency` at a time, and they are the cases fc.check tries for the seed, in its order', async () => {
    const config = testConfig('http://127.0.0.1:1/v1', { seed: 11 });
    const arbitrary = fc.integer({ min: -1000, max: 1000 });
    const expected: number[] = [];
    await fc.check(
      fc.asyncProperty(arbitrary, async (n) => void expected.push(n)),
      { seed: 11, numRuns: 40 },
    );
    const started: number[] = [];
    let inFlight = 0;
    let most = 0;
    const done = await checkGenerated(
      config,
      arbitrary,
      async (n) => {
        started.push(n);
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((r) => setTimeout(r, 5));
        inFlight--;
      },
      { numRuns: 40, concurrency: 8 },
    );
    expect(done.numRuns).toBe(40);
    expect(started).toEqual(expected);
    expect(most).toBe(8);
  });

  test("run concurrently, the first failing case in fast-check's order is shrunk as a run one at a time shrinks it", async () => {
    const failing = (delayed: boolean) => async (n: number) => {
      // Later cases answer sooner: the failures do not come back in the order the cases were sent.
      if (delayed) await new Promise((r) => setTimeout(r, n % 7));
      if (n >= 10) {
        throw new ConformanceError({ expected: 'n below 10', received: String(n), reproduce: `curl n=${n}` });
      }
    };
    const run = (concurrency: number) =>
      checkGenerated(
        testConfig('http://127.0.0.1:1/v1', { seed: 7 }),
        fc.integer({ min: 0, max: 1000 }),
        failing(concurrency > 1),
        { numRuns: 50, concurrency },
      ).then(
        () => undefined,
        (e: unknown) => e as ConformanceError,
      );
    const [alone, together] = [await run(1), await run(10)];
    expect(together).toBeInstanceOf(ConformanceError);
    expect(together?.received).toBe(alone?.received);
    expect(together?.reproduce).toBe('curl n=10');
  });

  test('a case that gets no response stops new cases: those already in flight are the only ones sent', async () => {
    let calls = 0;
    const err = await checkGenerated(
      testConfig('http://127.0.0.1:1/v1'),
      fc.integer(),
      async () => {
        calls++;
        await new Promise((r) => setTimeout(r, 20));
        throw noResponse;
      },
      { numRuns: 50, concurrency: 6 },
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBe(noResponse);
    expect(calls).toBe(6);
  });

  test('a case that fails once but passes when replayed is reported as it failed, not shrunk', async () => {
    let failed = false;
    const err = await checkGenerated(
      testConfig('http://127.0.0.1:1/v1', { seed: 5 }),
      fc.integer({ min: 0, max: 1000 }),
      async (n) => {
        if (!failed && n > 100) {
          failed = true;
          throw new ConformanceError({
            expected: 'a 201',
            received: `503 for ${n}`,
            reproduce: `curl n=${n}`,
          });
        }
      },
      { numRuns: 30, concurrency: 5 },
    ).then(
      () => undefined,
      (e: unknown) => e as ConformanceError,
    );
    expect(err).toBeInstanceOf(ConformanceError);
    expect(err?.received).toMatch(
      /^503 for (\d+) — to the generated case \1 \(seed 5, \d+ case\(s\) tried, not shrunk: it passed when replayed\)$/,
    );
  });
});

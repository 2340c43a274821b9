import fc from 'fast-check';
import { endsTheCheck } from './blocked.ts';
import { bodyInline } from './body.ts';
import { GENERATED_BUDGET_FACTOR, GENERATED_CONCURRENCY } from './budget.ts';
import type { Config } from './config.ts';
import type { Contract, Schema } from './contract.ts';
import { ConformanceError, isConformanceError } from './errors.ts';
import { INT64_MAX, INT64_MIN, stringifyExact } from './json.ts';
import { runClock } from './pace.ts';

/**
 * Generated inputs, derived from the schemas of spec/openapi.yaml (never hand-listed): change the
 * Pet schema and the generators follow. Every run is seeded by config.seed; failures are shrunk.
 */

const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function typesOf(schema: Schema): string[] {
  if (schema.type === undefined) return [];
  return typeof schema.type === 'string' ? [schema.type] : [...schema.type];
}

/** Values that a schema accepts: enum members, int64 as bigint, any Unicode string, and so on. */
export function arbitraryOf(schema: Schema): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const type = typesOf(schema)[0];
  switch (type) {
    case 'string':
      return fc.string({ unit: 'grapheme', maxLength: 24 });
    case 'integer':
      return schema.format === 'int64'
        ? fc.oneof(fc.bigInt(INT64_MIN, INT64_MAX), fc.bigInt(-1000n, 1000n))
        : fc.integer();
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(schema.items ? arbitraryOf(schema.items) : fc.jsonValue({ maxDepth: 1 }), {
        maxLength: 3,
      });
    case 'object':
      return objectArbitrary(schema);
    default:
      return fc.jsonValue({ maxDepth: 1 });
  }
}

function objectArbitrary(schema: Schema): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const known = fc.record(
    Object.fromEntries(Object.entries(properties).map(([k, s]) => [k, arbitraryOf(s)])) as Record<
      string,
      fc.Arbitrary<unknown>
    >,
    { requiredKeys: [...(schema.required ?? [])] },
  );
  if (schema.additionalProperties === false) return known;
  // Other properties are allowed (no additionalProperties: false), so some cases carry a few.
  const extraKey = fc
    .string({ minLength: 1, maxLength: 10 })
    .filter((k) => !Object.hasOwn(properties, k) && !RESERVED_KEYS.has(k));
  const extras = fc.dictionary(extraKey, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 });
  return fc.tuple(known, fc.oneof(fc.constant({}), extras)).map(([k, e]) => ({ ...e, ...k }));
}

/** One way to break a valid object: drop a property, set one to a value outside its schema, or replace the body. */
export type Mutation =
  | { readonly kind: 'drop'; readonly key: string; readonly why: string }
  | { readonly kind: 'set'; readonly key: string; readonly value: unknown; readonly why: string }
  | { readonly kind: 'body'; readonly value: unknown; readonly why: string };

/** The body a mutation makes of a valid object. */
export function applyMutation(valid: Readonly<Record<string, unknown>>, m: Mutation): unknown {
  if (m.kind === 'body') return m.value;
  const out: Record<string, unknown> = { ...valid };
  if (m.kind === 'drop') delete out[m.key];
  else out[m.key] = m.value;
  return out;
}

const JSON_KINDS = ['string', 'integer', 'fraction', 'boolean', 'null', 'array', 'object'] as const;

function valueOfKind(kind: (typeof JSON_KINDS)[number]): fc.Arbitrary<unknown> {
  switch (kind) {
    case 'string':
      return fc.oneof(fc.string({ maxLength: 8 }), fc.bigInt(-1000n, 1000n).map(String));
    case 'integer':
      return fc.bigInt(-1000n, 1000n);
    case 'fraction':
      return fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Number.isInteger(d));
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 2 });
    case 'object':
      return fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 });
  }
}

/** The JSON kinds a schema's types allow (integer admits no fraction; number admits both). */
function allowedKinds(schema: Schema): Set<string> {
  const allowed = new Set<string>();
  for (const t of typesOf(schema)) {
    if (t === 'number') allowed.add('integer').add('fraction');
    else allowed.add(t);
  }
  return allowed;
}

/**
 * Mutations that break an object schema, derived from it: each required property dropped, each
 * property given every JSON type its schema excludes, each enum left, each int64 pushed one step or
 * more past either end, and the whole body replaced by a JSON value of another type.
 */
export function mutationsOf(schema: Schema): fc.Arbitrary<Mutation> {
  const options: fc.Arbitrary<Mutation>[] = [];
  for (const key of schema.required ?? []) {
    options.push(fc.constant({ kind: 'drop', key, why: `required property ${key} missing` }));
  }
  for (const [key, sub] of Object.entries(schema.properties ?? {})) {
    const allowed = allowedKinds(sub);
    for (const kind of JSON_KINDS) {
      if (allowed.has(kind)) continue;
      options.push(
        valueOfKind(kind).map((value) => ({
          kind: 'set',
          key,
          value,
          why: `${key} of the wrong type (${kind})`,
        })),
      );
    }
    if (sub.enum) {
      const members = sub.enum;
      options.push(
        fc
          .string({ maxLength: 12 })
          .filter((s) => !members.includes(s))
          .map((value) => ({ kind: 'set', key, value, why: `${key} outside its enum` })),
      );
    }
    if (sub.format === 'int64') {
      options.push(
        fc
          .oneof(fc.bigInt(INT64_MAX + 1n, INT64_MAX * 4n), fc.bigInt(INT64_MIN * 4n, INT64_MIN - 1n))
          .map((value) => ({ kind: 'set', key, value, why: `${key} outside int64` })),
      );
    }
  }
  const bodyKinds = JSON_KINDS.filter((k) => !allowedKinds(schema).has(k));
  for (const kind of bodyKinds) {
    options.push(
      valueOfKind(kind).map((value) => ({
        kind: 'body',
        value,
        why: `a body of the wrong JSON type (${kind})`,
      })),
    );
  }
  return fc.oneof(...options);
}

/** Whether a value is outside a schema, checked on its exact JSON text (so int64 overflow counts). */
export function isInvalid(contract: Contract, schema: Schema, value: unknown): boolean {
  return contract.validateText(schema, stringifyExact(value)).length > 0;
}

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

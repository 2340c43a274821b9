import fc from 'fast-check';
import { INT64_MAX, INT64_MIN, stringifyExact } from '../evidence/json.ts';
import type { Contract, Schema } from './contract.ts';

/**
 * Generated inputs, derived from the schemas of spec/openapi.yaml (never hand-listed): change the
 * Pet schema and the generators follow. They are checked, seeded by config.seed and shrunk on
 * failure, by checkGenerated (steps/generated.ts).
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

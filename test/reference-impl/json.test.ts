/**
 * The two parsers of json.ts: JSON.parse for usual bodies (the fast path) and lossless-json for the
 * rest. Every documented choice of reference-impl/README.md about bodies is checked through both,
 * and the two must agree on any text.
 */
import fc from 'fast-check';
import { stringify } from 'lossless-json';
import { beforeAll, describe, expect, test } from 'vitest';
import { type Contract, loadContract } from '../../reference-impl/contract.ts';
import { MAX_DEPTH, readJson } from '../../reference-impl/json.ts';
import { int64Text, type Pet, PetStore } from '../../reference-impl/store.ts';

const both = [
  ['fast', true],
  ['lossless', false],
] as const;

let contract: Contract;
beforeAll(async () => {
  contract = await loadContract();
});

/** What createPets makes of a body, in short: the status it answers and the JSON it stores. */
function outcome(text: string, fast: boolean): { status: number; stored?: string; detail?: string } {
  const read = readJson(Buffer.from(text), { fast });
  if (!read.ok) return { status: 400, detail: read.detail };
  if (!contract.pet(read.view)) return { status: 400 };
  const pet = read.value as Pet;
  if (int64Text(String(pet.id)) === undefined) return { status: 400 };
  const stored = new PetStore().add(pet);
  return stored === undefined ? { status: 409 } : { status: 201, stored };
}

describe('which parser reads a body', () => {
  test.each([
    ['a usual pet', '{"id":10000000000000,"name":"bench","tag":"load"}'],
    ['15-digit ids', '{"id":999999999999999,"name":"x","n":-999999999999999}'],
    ['a __proto__ key', '{"id":5,"name":"x","__proto__":{"polluted":true}}'],
    ['spaces and escapes', ' { "id" : 5 , "name" : "a\\"b:{[" } '],
    ['0', '{"id":0,"name":"x"}'],
  ])('%s: JSON.parse', (_, text) => {
    expect(readJson(Buffer.from(text))).toMatchObject({ ok: true, parser: 'fast' });
  });

  test.each([
    ['an id of 16 digits', '{"id":1000000000000000,"name":"x"}'],
    ['2^63 - 1', '{"id":9223372036854775807,"name":"x"}'],
    ['1.0', '{"id":1.0,"name":"x"}'],
    ['1e2', '{"id":1e2,"name":"x"}'],
    ['-0', '{"id":-0,"name":"x"}'],
    ['a fraction elsewhere', '{"id":5,"name":"x","w":0.5}'],
    ['a repeated key, same value', '{"id":5,"id":5,"name":"x"}'],
    ['a repeated nested key', '{"id":5,"name":"x","a":{"b":1,"b":1}}'],
  ])('%s: lossless-json', (_, text) => {
    expect(readJson(Buffer.from(text))).toMatchObject({ ok: true, parser: 'lossless' });
  });
});

describe.each(both)('the documented choices, read by the %s path', (_, fast) => {
  test('ids are kept digit for digit', () => {
    expect(outcome('{"id":123456789012345,"name":"x"}', fast)).toEqual({
      status: 201,
      stored: '{"id":123456789012345,"name":"x"}',
    });
    expect(outcome('{"id":-9223372036854775808,"name":"x"}', fast)).toEqual({
      status: 201,
      stored: '{"id":-9223372036854775808,"name":"x"}',
    });
    expect(outcome('{"id":9007199254740993,"name":"x"}', fast).stored).toBe(
      '{"id":9007199254740993,"name":"x"}',
    );
  });

  test.each(['1.0', '1e2', '1E+2', '1.5'])('an id written %s is refused', (id) => {
    expect(outcome(`{"id":${id},"name":"x"}`, fast).status).toBe(400);
  });

  test('-0 is stored as 0', () => {
    expect(outcome('{"id":-0,"name":"x"}', fast)).toEqual({ status: 201, stored: '{"id":0,"name":"x"}' });
  });

  test.each(['9223372036854775808', '-9223372036854775809', '1'.repeat(1000)])(
    'an id outside int64 (%s) is refused',
    (id) => {
      expect(outcome(`{"id":${id},"name":"x"}`, fast).status).toBe(400);
    },
  );

  test('extra numbers are served as sent', () => {
    const text = '{"id":5,"name":"x","a":-0,"b":1.50,"c":1e2,"d":12345678901234567890,"e":[7,-7]}';
    expect(outcome(text, fast)).toEqual({ status: 201, stored: text });
  });

  test('__proto__ stays an ordinary property and sets no prototype', () => {
    const text = '{"id":5,"name":"x","__proto__":{"polluted":true,"id":1}}';
    const read = readJson(Buffer.from(text), { fast });
    expect(read.ok).toBe(true);
    const value = (read as { value: object }).value;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    expect(outcome(text, fast)).toEqual({ status: 201, stored: text });
    expect(outcome('{"__proto__":{"id":1,"name":"x"}}', fast).status).toBe(400);
  });

  test.each([
    ['at the top', '{"id":5,"id":6,"name":"x"}'],
    ['nested', '{"id":5,"name":"x","a":{"b":1,"b":2}}'],
    ['in an array', '{"id":5,"name":"x","a":[{"b":"p","b":"q"}]}'],
    ['hiding a key of the first value', '{"id":5,"name":"x","a":{"b":1},"a":{}}'],
  ])('a key repeated with another value (%s) is refused', (_, text) => {
    expect(outcome(text, fast)).toMatchObject({
      status: 400,
      detail: expect.stringMatching(/Duplicate key/),
    });
  });

  test('a key repeated with the same value is accepted', () => {
    expect(outcome('{"id":5,"name":"x","name":"x"}', fast)).toEqual({
      status: 201,
      stored: '{"id":5,"name":"x"}',
    });
  });

  test('nesting is bounded by MAX_DEPTH', () => {
    const nested = (depth: number) =>
      `{"id":5,"name":"x","d":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
    expect(outcome(nested(MAX_DEPTH), fast).status).toBe(201);
    expect(outcome(nested(MAX_DEPTH + 1), fast)).toEqual({
      status: 400,
      detail: `the body nests arrays or objects deeper than ${MAX_DEPTH} levels`,
    });
  });

  test('text that is not JSON is told why, with the message of lossless-json', () => {
    const read = readJson(Buffer.from('{"id":5,"name":"x",}'), { fast });
    expect(read).toMatchObject({ ok: false, detail: expect.stringMatching(/^the body is not valid JSON: /) });
  });
});

describe('the two paths agree', () => {
  /** What the reader makes of a text, comparable across the parsers: numbers as their digits. */
  const reading = (text: string, fast: boolean) => {
    const read = readJson(Buffer.from(text), { fast });
    return read.ok ? { json: stringify(read.value), view: read.view } : { detail: read.detail };
  };

  test('on any JSON text, and any near-JSON text', () => {
    const numbers = fc.oneof(
      fc.integer().map(String),
      fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }).map(String),
      fc.constantFrom(
        '-0',
        '1.0',
        '1e2',
        '0.5',
        '-1E-3',
        '007',
        '-',
        '1.',
        '999999999999999',
        '1000000000000000',
      ),
    );
    const text = fc.oneof(
      fc.json(),
      fc.json().map((json) => json.replace(/\d+/g, (digits) => (digits.length % 2 ? digits : `${digits}.0`))),
      fc.tuple(fc.json(), numbers).map(([json, n]) => `{"id":${n},"name":"x","extra":${json}}`),
      fc
        .tuple(fc.string(), fc.json(), fc.json())
        .map(([k, a, b]) => `{${JSON.stringify(k)}:${a},${JSON.stringify(k)}:${b}}`),
      fc.string(),
    );
    fc.assert(
      fc.property(text, (t) => {
        expect(reading(t, true)).toEqual(reading(t, false));
      }),
      { numRuns: 2000, seed: 20261122 },
    );
  });
});

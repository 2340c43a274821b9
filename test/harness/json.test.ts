import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  exactInteger,
  exactOfParsed,
  exactText,
  inInt64,
  integerOfText,
  parseExact,
  stringifyExact,
} from '../../suites/harness/evidence/json.ts';

describe('int64-exact JSON', () => {
  test('ids are read digit for digit, where JSON.parse rounds them', () => {
    const text = '{"id":9007199254740993,"big":9223372036854775807,"neg":-9223372036854775808}';
    expect(JSON.parse(text).id).toBe(9007199254740992);
    const exact = parseExact(text) as Record<string, unknown>;
    expect(exactInteger(exact.id)).toBe(9007199254740993n);
    expect(exactInteger(exact.big)).toBe(9223372036854775807n);
    expect(exactInteger(exact.neg)).toBe(-9223372036854775808n);
  });

  test('an integer is any JSON number with a whole value, as in JSON Schema', () => {
    const read = (t: string) => exactInteger(parseExact(t));
    expect(read('1e3')).toBe(1000n);
    expect(read('1.0')).toBe(1n);
    expect(read('-0')).toBe(0n);
    expect(read('92233720368547758.08e2')).toBe(9223372036854775808n);
    expect(read('1.5')).toBeUndefined();
    expect(read('5e-1')).toBeUndefined();
    expect(read('"12"')).toBeUndefined();
    expect(exactInteger(2 ** 53 + 2)).toBeUndefined(); // an unsafe double says nothing exact
    expect(integerOfText('9223372036854775807')).toBe(9223372036854775807n);
    expect(integerOfText('abc')).toBeUndefined();
    expect(integerOfText('-0')).toBe(0n);
    expect(integerOfText('-00012')).toBe(-12n);
    expect(integerOfText('-')).toBeUndefined();
    expect(integerOfText('')).toBeUndefined();
  });

  test('int64 bounds are exact', () => {
    expect(inInt64(9223372036854775807n)).toBe(true);
    expect(inInt64(9223372036854775808n)).toBe(false);
    expect(inInt64(-9223372036854775808n)).toBe(true);
    expect(inInt64(-9223372036854775809n)).toBe(false);
  });

  test('values are shown as they came', () => {
    expect(exactText(parseExact('9007199254740993'))).toBe('9007199254740993');
    expect(exactText(parseExact('1e3'))).toBe('1e3');
    expect(exactText('7')).toBe('"7"');
    expect(exactText(undefined)).toBe('(missing)');
  });

  test('bigints are written as exact integers', () => {
    expect(stringifyExact({ id: 9007199254740993n, name: 'a' })).toBe('{"id":9007199254740993,"name":"a"}');
    expect(() => stringifyExact(undefined)).toThrow(TypeError);
  });

  test('invalid JSON throws with the position', () => {
    expect(() => parseExact('{"id":1,')).toThrow(/position 8/);
  });
});

describe('the lossless value of a text already read by JSON.parse', () => {
  const both = (text: string) => [exactOfParsed(text, JSON.parse(text)), parseExact(text)];

  test('is what lossless-json reads, for any JSON value written compactly or not', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.boolean(), (value, indent) => {
        const text = JSON.stringify(value, null, indent ? 2 : undefined);
        const [fast, slow] = both(text);
        expect(fast).toStrictEqual(slow);
      }),
      { seed: 18, numRuns: 300 },
    );
  });

  test('is what lossless-json reads, for lists of pets with ids beyond 2^53', () => {
    const pet = fc.record(
      { id: fc.bigInt(-(2n ** 70n), 2n ** 70n), name: fc.string(), tag: fc.oneof(fc.string(), fc.double()) },
      { requiredKeys: ['id'] },
    );
    fc.assert(
      fc.property(fc.array(pet, { maxLength: 5 }), (pets) => {
        const [fast, slow] = both(stringifyExact(pets));
        expect(fast).toStrictEqual(slow);
      }),
      { seed: 18, numRuns: 300 },
    );
  });

  test.each([
    ['an int64 beyond 2^53', '{"id":9007199254740993}'],
    ['keys JavaScript orders otherwise', '{"b":1,"2":9007199254740993}'],
    ['white space', '{ "id" : 9007199254740993 }'],
    ['minus zero', '[-0]'],
    ['an exponent', '[1e3,1.50]'],
    ['a key repeated with the same value', '{"a":1,"a":1}'],
    ['a "__proto__" key', '{"__proto__":{"x":1}}'],
    ['an escaped character', '["\\u0041"]'],
  ])('keeps every digit and key as written: %s', (_, text) => {
    const [fast, slow] = both(text);
    expect(fast).toStrictEqual(slow);
  });

  test('refuses a key repeated with another value, as lossless-json does', () => {
    for (const text of ['{"a":1,"a":2}', '{"a":9007199254740993,"a":9007199254740992}'])
      expect(() => exactOfParsed(text, JSON.parse(text))).toThrow(/Duplicate key/);
  });
});

import { describe, expect, test } from 'vitest';
import {
  exactInteger,
  exactText,
  inInt64,
  integerOfText,
  parseExact,
  stringifyExact,
} from '../../suites/harness/json.ts';

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

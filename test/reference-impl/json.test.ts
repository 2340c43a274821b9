/**
 * Reading bodies (json.ts, lossless-json) and storing pets (store.ts), without HTTP: every documented
 * choice of reference-impl/README.md about bodies, checked on the value the handler would store.
 */
import fc from 'fast-check';
import { isLosslessNumber } from 'lossless-json';
import { beforeAll, describe, expect, test } from 'vitest';
import { int64Text, readJson } from '../../reference-impl/json.ts';
import { DEFAULT_MAX_PETS, MAX_DEPTH } from '../../reference-impl/limits.ts';
import { type Pet, PetStore } from '../../reference-impl/store.ts';
import { loadValidators, type Validators } from '../../reference-impl/validators.ts';

let contract: Validators;
beforeAll(async () => {
  contract = await loadValidators();
});

/** What createPets makes of a body, in short: the status it answers and the JSON it stores. */
function outcome(text: string): { status: number; stored?: string; detail?: string } {
  let read: ReturnType<typeof readJson>;
  try {
    read = readJson(Buffer.from(text));
  } catch (error) {
    return { status: 400, detail: (error as Error).message };
  }
  if (contract.pet(read.view) !== undefined) return { status: 400 };
  const pet = read.value as Pet;
  if (int64Text(String(pet.id)) === undefined) return { status: 400 };
  const store = new PetStore();
  return store.add(pet) === 'added'
    ? { status: 201, stored: store.get(int64Text(String(pet.id))!) }
    : { status: 409 };
}

describe('the documented choices about bodies', () => {
  test('ids are kept digit for digit', () => {
    expect(outcome('{"id":123456789012345,"name":"x"}')).toEqual({
      status: 201,
      stored: '{"id":123456789012345,"name":"x"}',
    });
    expect(outcome('{"id":-9223372036854775808,"name":"x"}')).toEqual({
      status: 201,
      stored: '{"id":-9223372036854775808,"name":"x"}',
    });
    expect(outcome('{"id":9007199254740993,"name":"x"}').stored).toBe('{"id":9007199254740993,"name":"x"}');
  });

  test.each(['1.0', '1e2', '1E+2', '1.5'])('an id written %s is refused', (id) => {
    expect(outcome(`{"id":${id},"name":"x"}`).status).toBe(400);
  });

  test('-0 is stored as 0', () => {
    expect(outcome('{"id":-0,"name":"x"}')).toEqual({ status: 201, stored: '{"id":0,"name":"x"}' });
  });

  test.each(['9223372036854775808', '-9223372036854775809', '1'.repeat(1000)])(
    'an id outside int64 (%s) is refused',
    (id) => {
      expect(outcome(`{"id":${id},"name":"x"}`).status).toBe(400);
    },
  );

  test('extra numbers are served as sent', () => {
    const text = '{"id":5,"name":"x","a":-0,"b":1.50,"c":1e2,"d":12345678901234567890,"e":[7,-7]}';
    expect(outcome(text)).toEqual({ status: 201, stored: text });
  });

  test('__proto__ stays an ordinary property and sets no prototype', () => {
    const text = '{"id":5,"name":"x","__proto__":{"polluted":true,"id":1}}';
    const value = readJson(Buffer.from(text)).value as object;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    expect(outcome(text)).toEqual({ status: 201, stored: text });
    expect(outcome('{"__proto__":{"id":1,"name":"x"}}').status).toBe(400);
  });

  test.each([
    ['at the top', '{"id":5,"id":6,"name":"x"}'],
    ['nested', '{"id":5,"name":"x","a":{"b":1,"b":2}}'],
    ['in an array', '{"id":5,"name":"x","a":[{"b":"p","b":"q"}]}'],
    ['hiding a key of the first value', '{"id":5,"name":"x","a":{"b":1},"a":{}}'],
  ])('a key repeated with another value (%s) is refused', (_, text) => {
    expect(outcome(text)).toMatchObject({
      status: 400,
      detail: expect.stringMatching(/Duplicate key/),
    });
  });

  test('a key repeated with the same value is accepted', () => {
    expect(outcome('{"id":5,"name":"x","name":"x"}')).toEqual({
      status: 201,
      stored: '{"id":5,"name":"x"}',
    });
  });

  test('nesting is bounded by MAX_DEPTH', () => {
    const nested = (depth: number) =>
      `{"id":5,"name":"x","d":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
    expect(outcome(nested(MAX_DEPTH)).status).toBe(201);
    expect(outcome(nested(MAX_DEPTH + 1))).toEqual({
      status: 400,
      detail: `arrays or objects nest deeper than ${MAX_DEPTH} levels, the most this server reads`,
    });
  });

  test('text that is not JSON throws, with the message of lossless-json', () => {
    expect(() => readJson(Buffer.from('{"id":5,"name":"x",}'))).toThrow(SyntaxError);
  });

  test.each([
    ['empty', Buffer.alloc(0), SyntaxError],
    ['only spaces', Buffer.from('  \n'), SyntaxError],
    ['not UTF-8', Buffer.from([0x7b, 0xff, 0x7d]), TypeError],
  ])('a body %s throws', (_, body, type) => {
    expect(() => readJson(body)).toThrow(type);
  });
});

// JSONTestSuite's categories (Nicolas Seriot, "Parsing JSON is a Minefield"), in texts of this test's
// own: the reference reads JSON and nothing more lenient, and every spelling JSON allows.
describe('the minefield: JSON read as RFC 8259 writes it', () => {
  const pet = '"id":5,"name":"x"';
  test.each([
    ['content after the value', `{${pet}}x`],
    ['a second value', `{${pet}}{${pet}}`],
    ['a closing bracket too many', `{${pet}}]`],
    ['a NUL after the value', `{${pet}}\u0000`],
    ['a block comment', `{${pet},/* c */"a":1}`],
    ['a line comment', `{${pet}, // c\n"a":1}`],
    ['a # comment', `{${pet}, # c\n"a":1}`],
    ['single quotes', `{${pet},'a':'b'}`],
    ['a key without quotes', `{${pet},a:1}`],
    ['a comma after the last member', `{${pet},}`],
    ['a comma after the last item', `{${pet},"a":[1,]}`],
    ['an empty item', `{${pet},"a":[1,,2]}`],
    ['no comma', `{"id":5 "name":"x"}`],
    ['no colon', `{"id" 5,"name":"x"}`],
    ['True', `{${pet},"a":True}`],
    ['a literal cut short', `{${pet},"a":nul}`],
    ['+1', `{${pet},"a":+1}`],
    ['a leading zero', `{${pet},"a":01}`],
    ['hexadecimal', `{${pet},"a":0x10}`],
    ['.5', `{${pet},"a":.5}`],
    ['1.', `{${pet},"a":1.}`],
    ['1e', `{${pet},"a":1e}`],
    ['NaN', `{${pet},"a":NaN}`],
    ['Infinity', `{${pet},"a":Infinity}`],
    ['a raw tab in a string', `{${pet},"a":"\t"}`],
    ['a raw line feed in a string', `{${pet},"a":"\n"}`],
    ['\\a', `{${pet},"a":"\\a"}`],
    ["\\'", `{${pet},"a":"\\'"}`],
    ['\\u of three digits', `{${pet},"a":"\\u123"}`],
    ['a form feed between tokens', `{${pet},\f"a":1}`],
    ['a vertical tab between tokens', `{${pet},\v"a":1}`],
    ['a no-break space between tokens', `{${pet},\u00a0"a":1}`],
    ['a byte order mark between tokens', `{${pet},\ufeff"a":1}`],
    ['a line separator between tokens', `{${pet},\u2028"a":1}`],
  ])('%s is refused', (_, text) => {
    expect(outcome(text).status).toBe(400);
  });

  test.each([
    ['a byte that is not UTF-8 between tokens', [0x7b, 0xe5, 0x7d]],
    ['a byte order mark cut short', [0xef, 0xbb, 0x7b, 0x7d]],
    ['a byte order mark alone', [0xef, 0xbb, 0xbf]],
  ])('%s is refused', (_, bytes) => {
    expect(() => readJson(Buffer.from(bytes))).toThrow();
  });

  test.each([
    ['white space of the four kinds', ` \t\n\r{ \t"id"\n:\r5\t,"name"\r\n:"x" }\n`, 'x'],
    ['keys written with escapes', '{"\\u0069d":5,"n\\u0061me":"x"}', 'x'],
    ['an escaped solidus', '{"id":5,"name":"a\\/b"}', 'a/b'],
    ['escapes of control characters', '{"id":5,"name":"\\b\\f\\n\\r\\t\\u0000"}', '\b\f\n\r\t\u0000'],
    ['a surrogate pair escaped', '{"id":5,"name":"\\uD83D\\udc08"}', '🐈'],
    ['the id last', '{"name":"x","id":5}', 'x'],
    ['DEL and U+2028 unescaped', '{"id":5,"name":"\u007f\u2028"}', '\u007f\u2028'],
  ])('%s is read', (_, text, name) => {
    const { status, stored } = outcome(text);
    expect(status).toBe(201);
    expect(JSON.parse(stored ?? '')).toEqual({ id: 5, name });
  });

  // RFC 8259 §8.1: a reader MAY ignore a byte order mark before the text.
  test('a byte order mark before the text is ignored', () => {
    expect(outcome('\ufeff{"id":5,"name":"x"}')).toEqual({ status: 201, stored: '{"id":5,"name":"x"}' });
  });
});

describe('the view the validator judges', () => {
  /** The kept value with every number as its double: what the view must be. */
  const doubles = (value: unknown): unknown => {
    if (isLosslessNumber(value)) return Number(value.toString());
    if (Array.isArray(value)) return value.map(doubles);
    if (value !== null && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, doubles(v)]));
    return value;
  };

  test('is the kept value with its numbers as doubles, same keys in the same order, for any text read', () => {
    const numbers = fc.constantFrom('-0', '1.0', '1e2', '0.5', '-1E-3', '9223372036854775808', '1e999');
    const text = fc.oneof(
      fc.json(),
      fc.tuple(fc.json(), numbers).map(([json, n]) => `{"id":${n},"name":"x","__proto__":${json}}`),
      fc
        .tuple(fc.string(), fc.json())
        .map(([k, a]) => `{${JSON.stringify(k)}:${a},${JSON.stringify(k)}:${a}}`),
    );
    fc.assert(
      fc.property(text, (t) => {
        let read: ReturnType<typeof readJson>;
        try {
          read = readJson(Buffer.from(t));
        } catch {
          return;
        }
        expect(read.view).toStrictEqual(doubles(read.value));
        if (read.view !== null && typeof read.view === 'object')
          expect(Object.keys(read.view)).toEqual(Object.keys(read.value as object));
      }),
      { numRuns: 1000, seed: 20261123 },
    );
  });
});

describe('the bounds of PetStore', () => {
  test('a pet given as a library call is kept whatever its size: only a body over HTTP is bounded', () => {
    const store = new PetStore();
    expect(store.add({ id: 1, name: 'n'.repeat(100_000) })).toBe('added');
    expect(Buffer.byteLength(store.get('1') ?? '')).toBe(100_000 + '{"id":1,"name":""}'.length);
  });

  test('a full store refuses the next pet and keeps every one it holds', () => {
    const store = new PetStore({ maxPets: 3 });
    for (const id of [1, 2, 3]) expect(store.add({ id, name: `p${id}` })).toBe('added');
    expect(store.add({ id: 4, name: 'p4' })).toBe('full');
    expect(store.size).toBe(3);
    expect(store.list(100)).toBe('[{"id":1,"name":"p1"},{"id":2,"name":"p2"},{"id":3,"name":"p3"}]');
  });

  test('an existing id is told as such even when the store is full', () => {
    const store = new PetStore({ maxPets: 1 });
    store.add({ id: 1, name: 'one' });
    expect(store.add({ id: 1, name: 'again' })).toBe('exists');
  });

  test.each([0, -1, 1.5, Number.NaN])('maxPets %s is refused', (maxPets) => {
    expect(() => new PetStore({ maxPets })).toThrow(RangeError);
  });

  test('the default cap is DEFAULT_MAX_PETS', () => {
    expect(new PetStore().maxPets).toBe(DEFAULT_MAX_PETS);
  });
});

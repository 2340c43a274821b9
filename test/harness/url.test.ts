import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { pathAndQuery, pathUnder, splitUrl } from '../../suites/harness/evidence/url.ts';

const asUrl = (url: string) => {
  const { origin, pathname, search } = new URL(url);
  return { origin, pathname, search };
};

/** Characters a URL's path or query may hold, the plain ones and those URL encodes or reads specially. */
const pieces = fc.constantFrom(
  ...'abcXYZ019-._~!$&()*+,;=:@/?%'.split(''),
  '%2e',
  '%2E',
  '.',
  '..',
  '%41',
  '%zz',
  "'",
  '"',
  ' ',
  '#',
  '\\',
  '<',
  '{',
  '`',
  '\t',
  'é',
  '日',
  '😀',
);
const rest = fc.array(pieces, { maxLength: 24 }).map((parts) => parts.join(''));
const authority = fc.constantFrom(
  'http://127.0.0.1:8080',
  'HTTP://LOCALHOST:80',
  'https://example.test',
  'https://example.test:443',
  'http://user:pa%20ss@host.test:9',
  'http://[::1]:3000',
  'http://Host.Test',
);

describe('splitUrl', () => {
  test('splits every URL as the WHATWG URL parser does', () => {
    fc.assert(
      fc.property(authority, rest, (auth, tail) => {
        const url = `${auth}/${tail}`;
        let expected: ReturnType<typeof asUrl> | Error;
        try {
          expected = asUrl(url);
        } catch (error) {
          expected = error as Error;
        }
        if (expected instanceof Error) expect(() => splitUrl(url)).toThrow(TypeError);
        else expect(splitUrl(url)).toEqual(expected);
      }),
      { numRuns: 3000, seed: 7 },
    );
  });

  test('dot segments, an empty query and a fragment are split as URL splits them', () => {
    for (const url of [
      'http://h.test/v1/./pets',
      'http://h.test/v1/pets/..',
      'http://h.test/v1/%2E%2e/pets',
      'http://h.test/v1/pets?',
      'http://h.test/v1/pets#x',
      'http://h.test/v1/pets?limit=1#x',
      'http://h.test\\v1/pets',
      "http://h.test/v1/pets?q=it's",
    ])
      expect(splitUrl(url), url).toEqual(asUrl(url));
  });

  test('a plain URL keeps its path and query as written', () => {
    expect(splitUrl('http://127.0.0.1:9/v1/pets/12?limit=5&x=%20')).toEqual({
      origin: 'http://127.0.0.1:9',
      pathname: '/v1/pets/12',
      search: '?limit=5&x=%20',
    });
  });
});

describe('pathAndQuery', () => {
  test('a URL without its scheme and host: path and query as sent, no fragment', () => {
    expect(pathAndQuery('http://h.test:9/v1/pets/7?limit=1')).toBe('/v1/pets/7?limit=1');
    expect(pathAndQuery('http://h.test/v1/pets#x')).toBe('/v1/pets');
    expect(pathAndQuery('http://h.test')).toBe('/');
  });
});

describe('pathUnder', () => {
  const under = pathUnder('http://127.0.0.1:9/v1');

  test('the path below the base URL, as sent, without the query', () => {
    expect(under('http://127.0.0.1:9/v1/pets/12?limit=1')).toBe('/pets/12');
    expect(under('http://127.0.0.1:9/v1/pets/12/')).toBe('/pets/12/');
    expect(under('http://127.0.0.1:9/v1//pets')).toBe('//pets');
    expect(under('http://127.0.0.1:9/v1/pets/a%2Fb')).toBe('/pets/a%2Fb');
    expect(under('http://127.0.0.1:9/v1/')).toBe('/');
    expect(pathUnder('http://127.0.0.1:9/v1/')('http://127.0.0.1:9/v1/pets')).toBe('/pets');
  });

  test('undefined outside it: another origin, another prefix, the base itself, no URL', () => {
    expect(under('http://127.0.0.2:9/v1/pets')).toBeUndefined();
    expect(under('https://127.0.0.1:9/v1/pets')).toBeUndefined();
    expect(under('http://127.0.0.1:9/v2/pets')).toBeUndefined();
    expect(under('http://127.0.0.1:9/v1pets')).toBeUndefined();
    expect(under('http://127.0.0.1:9/v1')).toBeUndefined();
    expect(under('not a url')).toBeUndefined();
  });
});

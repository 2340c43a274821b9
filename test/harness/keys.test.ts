import { execFileSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import {
  keySecrets,
  keyShellWord,
  MIN_HALF_LENGTH,
  NEAR_MISSES,
  nearMissKey,
  SHORT_KEY_LENGTH,
  shortKeyWarning,
} from '../../suites/harness/evidence/keys.ts';

describe('the near misses of a key (AUTH-WRONG-KEY-REFUSED)', () => {
  test('each kind, of a key that has them all', () => {
    const key = 's3cret-KEY-12345';
    expect(Object.fromEntries(NEAR_MISSES.map((kind) => [kind, nearMissKey(key, kind)]))).toEqual({
      'last-character-changed': 's3cret-KEY-12340',
      'case-flipped': 'S3CRET-key-12345',
      'character-appended': 's3cret-KEY-123450',
      'first-half': 's3cret-K',
    });
  });

  test('a last character 0 is changed to 1; a letter to a digit, not to its other case', () => {
    expect(nearMissKey('key-10', 'last-character-changed')).toBe('key-11');
    expect(nearMissKey('key-a', 'last-character-changed')).toBe('key-0');
  });

  test('characters are code points: a character beyond the BMP is changed or cut whole', () => {
    expect(nearMissKey('ab\u{1F600}', 'last-character-changed')).toBe('ab0');
    expect(nearMissKey('\u{1F600}'.repeat(16), 'first-half')).toBe('\u{1F600}'.repeat(8));
  });

  test('only ASCII letters change case; a key without them has no other case', () => {
    expect(nearMissKey('ké-Z', 'case-flipped')).toBe('Ké-z');
    expect(nearMissKey('1234-5678', 'case-flipped')).toBeUndefined();
  });

  test(`a first half shorter than ${MIN_HALF_LENGTH} characters is not sent`, () => {
    expect(nearMissKey('a'.repeat(2 * MIN_HALF_LENGTH - 1), 'first-half')).toBeUndefined();
    expect(nearMissKey('abcdefghijklmnop', 'first-half')).toBe('abcdefgh');
  });

  test('an empty key has none', () => {
    for (const kind of NEAR_MISSES) expect(nearMissKey('', kind)).toBeUndefined();
  });

  test('the secrets of a key: the key and each near miss it has, none of them the key again', () => {
    expect(keySecrets(undefined)).toEqual([]);
    expect(keySecrets('')).toEqual([]);
    expect(keySecrets('s3cret-KEY-12345')).toEqual([
      's3cret-KEY-12345',
      's3cret-KEY-12340',
      'S3CRET-key-12345',
      's3cret-KEY-123450',
      's3cret-K',
    ]);
    expect(keySecrets('123')).toEqual(['123', '120', '1230']);
  });
});

describe(`a key under ${SHORT_KEY_LENGTH} characters`, () => {
  test('is warned about, saying what it means for the reports and never showing the key', () => {
    const warning = shortKeyWarning('pets');
    expect(warning).toMatch(
      /^the API key has only 4 characters, too few to be told apart from ordinary words/,
    );
    expect(warning).toContain('in either letter case');
    expect(warning).toContain('Requirement ids, titles and the rest of the reports are not affected');
    expect(warning).not.toMatch(/pets/i);
    // Characters are code points; a key without letters has no other case to mask.
    expect(shortKeyWarning('🐈🐈🐈')).toMatch(/^the API key has only 3 characters/);
    expect(shortKeyWarning('1234')).not.toContain('letter case');
    expect(shortKeyWarning('x')).toMatch(/only 1 character,/);
  });

  test(`a key of ${SHORT_KEY_LENGTH} characters or more, or none, is not`, () => {
    expect(shortKeyWarning('required')).toBeUndefined();
    expect(shortKeyWarning('🐈'.repeat(SHORT_KEY_LENGTH))).toBeUndefined();
    expect(shortKeyWarning(undefined)).toBeUndefined();
    expect(shortKeyWarning('')).toBeUndefined();
  });
});

describe('a key as a curl line spells it: read from PETSTORE_API_KEY when the line runs', () => {
  const keys = ['k3y-abcdefghijKLMNOP-0042', 'Zz9876543210abcdef0', 'UPPER-lower-MiXeD-1234567890'];
  test.each(keys)('%s: each near miss, run by sh, is the near miss the suite sent', (key) => {
    for (const kind of [undefined, ...NEAR_MISSES]) {
      const expected = kind === undefined ? key : nearMissKey(key, kind);
      if (expected === undefined) continue;
      const out = execFileSync('sh', ['-c', `printf '%s' ${keyShellWord(kind, key)}`], {
        env: { PATH: process.env.PATH, PETSTORE_API_KEY: key, LC_ALL: 'C' },
        encoding: 'utf8',
      });
      expect(out, `${kind ?? 'the key'}`).toBe(expected);
      // and the word itself holds no part of the key
      expect(keyShellWord(kind, key)).not.toContain(key.slice(0, 8));
    }
  });

  test.each(keys)(
    '%s: with the variable unset and *** replaced by the key, as the mask was filled in before',
    (key) => {
      for (const kind of [undefined, ...NEAR_MISSES]) {
        const expected = kind === undefined ? key : nearMissKey(key, kind);
        if (expected === undefined) continue;
        const filled = keyShellWord(kind, key).replaceAll('***', key);
        const out = execFileSync('sh', ['-c', `printf '%s' ${filled}`], {
          env: { PATH: process.env.PATH, LC_ALL: 'C' },
          encoding: 'utf8',
        });
        expect(out, `${kind ?? 'the key'}`).toBe(expected);
      }
    },
  );
});

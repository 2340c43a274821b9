/**
 * Near misses of the configured API key, which AUTH-WRONG-KEY-REFUSED sends besides a wholly
 * different key: a server that compares keys loosely (on a prefix, case-insensitively, up to the
 * length of the key sent or of its own) takes one of them. Each holds most of the key, or half of it,
 * so each is as secret as the key: keySecrets() lists them with it, and they are masked wherever the
 * key is (the client registers them, the CLI's redactor is built with them).
 */

/** The near misses, each of which a server that compares keys as it should refuses. */
export const NEAR_MISSES = [
  'last-character-changed',
  'case-flipped',
  'character-appended',
  'first-half',
] as const;
export type NearMiss = (typeof NEAR_MISSES)[number];

/**
 * A first half shorter than this is not sent: it is masked in every report, and so short a text
 * would mask ordinary words too ("test" of a key test1234 in reports/latest); half of a key of 16
 * characters or more, as API keys are, is kept to itself. The key itself is masked whatever its length.
 */
export const MIN_HALF_LENGTH = 8;

/**
 * The near miss of `key`, or undefined when it has none of that kind: a key without letters has no
 * other case, and a key shorter than 2 × MIN_HALF_LENGTH characters no first half worth sending.
 * Characters are code points; a character changed or appended is a digit (0, or 1 where the last
 * character is 0), which keeps the key's alphabet and does not differ from it by case alone.
 */
export function nearMissKey(key: string, kind: NearMiss): string | undefined {
  const chars = [...key];
  if (chars.length === 0) return undefined;
  switch (kind) {
    case 'last-character-changed':
      return [...chars.slice(0, -1), chars.at(-1) === '0' ? '1' : '0'].join('');
    case 'case-flipped': {
      const flipped = key.replace(/[A-Za-z]/g, (c) =>
        c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase(),
      );
      return flipped === key ? undefined : flipped;
    }
    case 'character-appended':
      return `${key}0`;
    case 'first-half': {
      const half = chars.slice(0, Math.floor(chars.length / 2));
      return half.length < MIN_HALF_LENGTH ? undefined : half.join('');
    }
  }
}

/** The key and each near miss of it: what a run with this key masks in everything it writes. */
export function keySecrets(key: string | undefined): string[] {
  if (!key) return [];
  const misses = NEAR_MISSES.map((kind) => nearMissKey(key, kind));
  return [key, ...misses.filter((k): k is string => k !== undefined)];
}

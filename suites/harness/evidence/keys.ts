/**
 * Near misses of the configured API key, which AUTH-WRONG-KEY-REFUSED sends besides a wholly
 * different key: a server that compares keys loosely (on a prefix, case-insensitively, up to the
 * length of the key sent or of its own) takes one of them. Each holds most of the key, or half of it,
 * so each is as secret as the key: keySecrets() lists them with it, and they are masked in what the
 * server sends back as the key is (the client registers them, the CLI's redactor is built with them).
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
 * A first half shorter than this is not sent: it is masked in whatever the server sends back, and so
 * short a text would mask ordinary words of its answers too ("test" of a key test1234); half of a key
 * of 16 characters or more, as API keys are, is kept to itself. The key itself is masked whatever its
 * length.
 */
export const MIN_HALF_LENGTH = 8;

/**
 * A key shorter than this cannot be told apart from ordinary words ("pets", "wrong"): the run warns
 * at its start (shortKeyWarning), and goes on. Where the suite sends the key it is masked by position
 * whatever its length; in the server's answers it is found by its spellings, and there a short key
 * masks ordinary words as well.
 */
export const SHORT_KEY_LENGTH = 8;

/** The warning a run gives for a key shorter than SHORT_KEY_LENGTH (never the key); undefined for a longer one. */
export function shortKeyWarning(key: string | undefined): string | undefined {
  const length = key === undefined ? 0 : [...key].length;
  if (key === undefined || length === 0 || length >= SHORT_KEY_LENGTH) return undefined;
  const cased = nearMissKey(key, 'case-flipped') === undefined ? '' : ', in either letter case,';
  return `the API key has only ${length} character${length === 1 ? '' : 's'}, too few to be told apart from ordinary words. It is masked where the suite sends it; in what the server sends back (the bodies and headers of its answers, a failure's "received", a check's notes), every text that spells it${cased} shows as *** too, ordinary words included. Requirement ids, titles and the rest of the reports are not affected. A key of ${SHORT_KEY_LENGTH} characters or more keeps the server's answers readable.`;
}

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

/** The environment variable a curl line reads the key from (and reproduce.sh): never the key itself. */
export const KEY_VARIABLE = 'PETSTORE_API_KEY';

/**
 * The configured key (no `nearMiss`), or a near miss of it, as one POSIX sh word that reads the key
 * from PETSTORE_API_KEY when it runs: a curl line sends the same key as the suite did and holds no
 * secret. Where the variable is not set the word is `***`, the mask reproduce lines always had
 * (CONTRACT.md): a line whose `***` a tool replaces with the key still sends it. Characters as sh counts them (`${k%?}`, `cut -c`): bytes in the C locale, as ASCII keys are.
 * `key` gives only the length of a first half, never what is written.
 */
export function keyShellWord(nearMiss: NearMiss | undefined, key: string): string {
  const k = `"\${${KEY_VARIABLE}:-***}"`;
  switch (nearMiss) {
    case undefined:
      return k;
    case 'last-character-changed':
      return `"$(k=${k}; case $k in *0) printf '%s1' "\${k%?}";; *) printf '%s0' "\${k%?}";; esac)"`;
    case 'case-flipped':
      return `"$(printf '%s' ${k} | tr 'A-Za-z' 'a-zA-Z')"`;
    case 'character-appended':
      return `"\${${KEY_VARIABLE}:-***}0"`;
    case 'first-half':
      return `"$(printf '%s' ${k} | cut -c1-${Math.floor([...key].length / 2)})"`;
  }
}

/**
 * Values that would leave state if a server wrongly accepted them, made fresh for each run (issue
 * 35): a server that kept an earlier run's out-of-range id, or a string or a fraction read as an id,
 * answers 409 to the same value ever after, and a 409 reads as the refusal the check asks for. Sent
 * fresh, the value meets a store that has never seen it, on the first run and the hundredth.
 *
 * Fresh values come from fresh randomness (config/run.ts freshId), not from the seed: the same seed
 * sends the same kinds of value, never the same value twice.
 */
import { freshId } from '../config/run.ts';
import type { Mutation } from '../contract/generate.ts';
import { INT64_MAX, INT64_MIN } from '../evidence/json.ts';

/** A fresh distance beyond an end of int64: 2^40 to 2^53, so that no two runs send the same id. */
function beyond(): bigint {
  return freshId();
}

/**
 * An id outside int64 on the side of `side`, fresh: 2^63 + n above, -2^63 - 1 - n below, n drawn
 * afresh (2^40 to 2^53). A server that wraps it into range (mod 2^64) keeps a fresh pet too.
 */
export function freshOutOfRange(side: 'above' | 'below'): bigint {
  return side === 'above' ? INT64_MAX + 1n + beyond() : INT64_MIN - 1n - beyond();
}

/** Whether an integer lies outside int64. */
function outOfRange(n: bigint): boolean {
  return n > INT64_MAX || n < INT64_MIN;
}

/**
 * A value sent as an id that a lax server could keep as one, made fresh of the same kind: an integer
 * outside int64 stays outside on its side, a string of digits keeps its sign, a fraction keeps its
 * sign and its fractional part .5 (exact as a double). Other values (true, null, an array) are kept:
 * a server that reads them as an id makes them no id of the run's to meet again.
 */
export function freshIdLike(value: unknown): unknown {
  if (typeof value === 'bigint') {
    if (outOfRange(value)) return freshOutOfRange(value > 0n ? 'above' : 'below');
    return value < 0n ? -freshId() : freshId();
  }
  if (typeof value === 'string' && /^-?\d+$/.test(value)) {
    return value.startsWith('-') ? `-${freshId()}` : String(freshId());
  }
  if (typeof value === 'number' && Number.isFinite(value) && !Number.isInteger(value)) {
    // Below 2^41 with a half: a double holds it exactly, and truncated or rounded it is a fresh id.
    const whole = Number(freshId(2n ** 40n));
    return value < 0 ? -(whole + 0.5) : whole + 0.5;
  }
  return value;
}

/** A mutation of a pet whose new id value is fresh (freshIdLike); any other mutation as it is. */
export function freshMutation(mutation: Mutation): Mutation {
  if (mutation.kind !== 'set' || mutation.key !== 'id') return mutation;
  return { ...mutation, value: freshIdLike(mutation.value) };
}

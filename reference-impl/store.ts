/**
 * The in-memory collection of pets. Each pet is kept as the JSON text it is served as, written once
 * when it is added: listing concatenates stored strings and showing sends one, so ids keep every
 * digit (they never pass through a JS number) and serving costs no serialization.
 */
import { isLosslessNumber, type LosslessNumber, stringify } from 'lossless-json';

export type PetStatus = 'available' | 'pending' | 'sold';

/**
 * A pet as the store takes it. The id is a bigint, a safe-integer number, a string of decimal digits
 * or a LosslessNumber; other properties are kept and served as given (the Pet schema allows them).
 */
export interface Pet {
  id: bigint | number | string | LosslessNumber;
  name: string;
  tag?: string;
  status?: PetStatus;
  [extra: string]: unknown;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/** A JSON integer in its plain form: an optional minus sign and digits, no fraction, no exponent. */
const PLAIN_INTEGER = /^-?(0|[1-9][0-9]*)$/;

/**
 * The canonical decimal text of an int64 written in plain digits (`-0` gives `0`), or undefined when
 * the text is not a plain integer or lies outside int64. Digit strings longer than any int64 are
 * refused before BigInt sees them, so a megabyte of digits costs nothing.
 */
export function int64Text(text: string): string | undefined {
  if (text.length > 20 || !PLAIN_INTEGER.test(text)) return undefined;
  const value = BigInt(text);
  return value >= INT64_MIN && value <= INT64_MAX ? value.toString() : undefined;
}

function idTextOf(id: Pet['id']): string {
  let text: string | undefined;
  if (typeof id === 'bigint') text = id >= INT64_MIN && id <= INT64_MAX ? id.toString() : undefined;
  else if (typeof id === 'number') text = Number.isSafeInteger(id) ? String(id) : undefined;
  else if (typeof id === 'string') text = int64Text(id);
  else if (isLosslessNumber(id)) text = int64Text(id.toString());
  if (text === undefined) throw new RangeError(`pet id ${String(id)} is not an int64 in plain digits`);
  return text;
}

/**
 * The pet's JSON text: its properties in the order given, the id written as its canonical digits,
 * every other value by lossless-json (strings escaped as JSON.stringify does, numbers digit for digit).
 * Joined from an array, the text is one flat string: a chain of `+=` would keep a rope of small
 * pieces alive per pet, which a million pets make the garbage collector's main work.
 */
function petJson(pet: Pet, idText: string): string {
  const parts = ['{'];
  for (const key of Object.keys(pet)) {
    const item = pet[key];
    // strings, the usual case, directly: lossless-json would reach the same JSON.stringify slower
    const value = key === 'id' ? idText : typeof item === 'string' ? JSON.stringify(item) : stringify(item);
    if (value === undefined) continue; // undefined-valued properties of a programmatic add, as JSON.stringify does
    parts.push(parts.length > 1 ? ',' : '', JSON.stringify(key), ':', value);
  }
  parts.push('}');
  return parts.join('');
}

/** How many page sizes list() keeps (the API asks for 1 to 100). */
const MAX_PAGES = 128;

export class PetStore {
  /** Canonical id text → the pet's JSON text. A Map iterates in insertion order. */
  readonly #pets = new Map<string, string>();
  /** limit → the JSON array of the first `limit` pets, kept once that many exist. */
  readonly #pages = new Map<number, string>();

  /**
   * Adds a pet unless a pet with the same id exists: then nothing changes and the result is
   * undefined. Returns the stored pet's JSON text. The caller validates the other fields (the handler
   * checks requests against the contract first); an id that is not an int64 throws a RangeError.
   */
  add(pet: Pet): string | undefined {
    const id = idTextOf(pet.id);
    if (this.#pets.has(id)) return undefined;
    const json = petJson(pet, id);
    this.#pets.set(id, json);
    return json;
  }

  /** The JSON text of the pet whose canonical id text is `id`, or undefined. */
  get(id: string): string | undefined {
    return this.#pets.get(id);
  }

  /**
   * A JSON array of the first `limit` pets in insertion order (`[]` when limit < 1). Costs O(limit)
   * at most, whatever the number of pets: the iteration stops after `limit` entries.
   */
  list(limit: number): string {
    if (limit < 1) return '[]';
    // Pets are never removed or changed, so once `limit` pets exist the first `limit` are fixed:
    // their page is written once and kept.
    const full = this.#pets.size >= limit;
    if (full) {
      const page = this.#pages.get(limit);
      if (page !== undefined) return page;
    }
    let json = '[';
    let count = 0;
    for (const pet of this.#pets.values()) {
      if (count > 0) json += ',';
      json += pet;
      if (++count >= limit) break;
    }
    json += ']';
    if (full && this.#pages.size < MAX_PAGES) this.#pages.set(limit, json);
    return json;
  }

  get size(): number {
    return this.#pets.size;
  }
}

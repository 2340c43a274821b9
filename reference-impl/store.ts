/**
 * The in-memory collection of pets, bounded: at most `maxPets` pets of at most MAX_PET_BYTES each.
 *
 * Each pet is kept as the JSON text it is served as, written once when it is added. That is what
 * makes its memory bounded by its size: a parsed object can take twenty times its JSON (a pet of a
 * thousand small extra properties holds a thousand properties and number objects), its text takes
 * its length. Ids keep every digit (they never pass through a JS number).
 */
import { type LosslessNumber, stringify } from 'lossless-json';
import { int64Text } from './json.ts';
import { DEFAULT_MAX_PETS, MAX_PET_BYTES } from './limits.ts';

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

/** What add() did: stored the pet (and its JSON), or why not. Nothing changes unless 'added'. */
export type AddResult =
  | { outcome: 'added'; json: string }
  | { outcome: 'exists' }
  | { outcome: 'too-large'; bytes: number }
  | { outcome: 'full' };

export interface StoreOptions {
  /** The most pets the store holds; default DEFAULT_MAX_PETS (10 000). */
  maxPets?: number;
}

/** The canonical digits of an id; a number must be a safe integer (beyond 2^53 its digits are not its own). */
function idTextOf(id: Pet['id']): string {
  const text = typeof id === 'number' && !Number.isSafeInteger(id) ? undefined : int64Text(String(id));
  if (text === undefined) throw new RangeError(`pet id ${String(id)} is not an int64 in plain digits`);
  return text;
}

/**
 * The pet's JSON text: its properties in the order given, the id written as its canonical digits,
 * every other value by lossless-json (numbers digit for digit). Joined from an array, the text is one
 * flat string: a chain of `+=` would keep a rope of small pieces alive per pet, many times the size
 * of the text for a pet of many small properties.
 */
function petJson(pet: Pet, idText: string): string {
  const parts = ['{'];
  for (const key of Object.keys(pet)) {
    const value = key === 'id' ? idText : stringify(pet[key]);
    if (value === undefined) continue; // undefined-valued properties of a programmatic add, as JSON.stringify does
    parts.push(parts.length > 1 ? ',' : '', JSON.stringify(key), ':', value);
  }
  parts.push('}');
  return parts.join('');
}

export class PetStore {
  /** The most pets this store holds. */
  readonly maxPets: number;
  /** Canonical id text → the pet's JSON text. A Map iterates in insertion order. */
  readonly #pets = new Map<string, string>();

  constructor({ maxPets = DEFAULT_MAX_PETS }: StoreOptions = {}) {
    if (!Number.isSafeInteger(maxPets) || maxPets < 1)
      throw new RangeError(`maxPets must be a positive integer, not ${maxPets}`);
    this.maxPets = maxPets;
  }

  /**
   * Adds a pet unless its id exists already, its JSON is larger than MAX_PET_BYTES, or the store holds
   * maxPets pets: then nothing changes. The caller validates the other fields (the handler checks
   * requests against the contract first); an id that is not an int64 throws a RangeError.
   */
  add(pet: Pet): AddResult {
    const id = idTextOf(pet.id);
    if (this.#pets.has(id)) return { outcome: 'exists' };
    const json = petJson(pet, id);
    const bytes = Buffer.byteLength(json);
    if (bytes > MAX_PET_BYTES) return { outcome: 'too-large', bytes };
    if (this.#pets.size >= this.maxPets) return { outcome: 'full' };
    this.#pets.set(id, json);
    return { outcome: 'added', json };
  }

  /** The JSON text of the pet whose canonical id text is `id`, or undefined. */
  get(id: string): string | undefined {
    return this.#pets.get(id);
  }

  /**
   * A JSON array of the first `limit` pets in insertion order (`[]` when limit < 1). Costs O(limit),
   * whatever the number of pets: the iteration stops after `limit` entries.
   */
  list(limit: number): string {
    const page: string[] = [];
    if (limit >= 1) {
      for (const pet of this.#pets.values()) {
        page.push(pet);
        if (page.length >= limit) break;
      }
    }
    return `[${page.join(',')}]`;
  }

  get size(): number {
    return this.#pets.size;
  }
}

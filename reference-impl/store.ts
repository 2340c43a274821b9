/**
 * The in-memory collection of pets, bounded: at most `maxPets` pets. (A pet sent over HTTP is at most
 * the body it came in, MAX_BODY_BYTES of limits.ts.)
 *
 * Each pet is kept as the JSON text it is served as, written once when it is added. That is what
 * makes its memory bounded by its size: a parsed object can take twenty times its JSON (a pet of a
 * thousand small extra properties holds a thousand properties and number objects), its text takes
 * its length. Ids keep every digit (they never pass through a JS number).
 */
import { type LosslessNumber, stringify } from 'lossless-json';
import { int64Text } from './json.ts';
import { DEFAULT_MAX_PETS, positiveLimit } from './limits.ts';

export type PetStatus = 'available' | 'pending' | 'sold';

/**
 * A pet as the store takes it. The id is a bigint, a number (as String() writes it), a string of decimal digits
 * or a LosslessNumber; other properties are kept and served as given (the Pet schema allows them).
 */
export interface Pet {
  id: bigint | number | string | LosslessNumber;
  name: string;
  tag?: string;
  status?: PetStatus;
  [extra: string]: unknown;
}

/** What add() did: stored the pet, or why not (its id exists, the store is full). Nothing changes unless 'added'. */
export type AddResult = 'added' | 'exists' | 'full';

export interface StoreOptions {
  /** The most pets the store holds; default DEFAULT_MAX_PETS (5 000). */
  maxPets?: number;
}

/**
 * The canonical digits of an id. A number is read as JavaScript writes it, as JSON.stringify would
 * send it: beyond 2^53 that may not be the integer typed in the source (2 ** 62 is written
 * 4611686018427388000), so exact ids that large are given as a bigint or a string.
 */
function idTextOf(id: Pet['id']): string {
  return int64Text(String(id)) ?? notAnInt64(id);
}

/** What a library call gets for an id that is not an int64: the service answers 400 to those before it adds. */
// Stryker disable next-line BlockStatement: only a library call reaches it: the service answers 400 to an id that is not an int64 before it adds
function notAnInt64(id: Pet['id']): never {
  // Stryker disable next-line StringLiteral: the wording of a library error, which no request reaches
  throw new RangeError(`pet id ${String(id)} is not an int64 in plain digits`);
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
    // Undefined-valued properties of a library call (never of JSON) are left out, as JSON.stringify does.
    if (value === undefined) continue;
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

  // Stryker disable next-line BlockStatement: the reference's own cap of pets, which no conformance check fills
  constructor({ maxPets = DEFAULT_MAX_PETS }: StoreOptions = {}) {
    // Stryker disable next-line StringLiteral: the wording of a library error, which no request reaches
    this.maxPets = positiveLimit('maxPets', maxPets);
  }

  /**
   * Adds a pet unless its id exists already or the store holds maxPets pets: then nothing changes.
   * The caller validates the other fields (the handler checks requests against the contract first);
   * an id that is not an int64 throws a RangeError.
   */
  add(pet: Pet): AddResult {
    const id = idTextOf(pet.id);
    if (this.#pets.has(id)) return 'exists';
    // The reference's own bound (limits.ts): a conformant server may keep more. The store never holds
    // more than maxPets, so reaching it is being full.
    // Stryker disable next-line ConditionalExpression,StringLiteral: the reference's own cap of pets, which no conformance check fills
    if (this.#pets.size === this.maxPets) return 'full';
    this.#pets.set(id, petJson(pet, id));
    return 'added';
  }

  /** The JSON text of the pet whose canonical id text is `id`, or undefined. */
  get(id: string): string | undefined {
    return this.#pets.get(id);
  }

  /**
   * A JSON array of the first `limit` pets in insertion order (`[]` when limit < 1). Costs O(limit),
   * whatever the number of pets: the iteration stops once `limit` entries are taken.
   */
  list(limit: number): string {
    const page: string[] = [];
    for (const pet of this.#pets.values()) {
      if (page.length >= limit) break;
      page.push(pet);
    }
    return `[${page.join(',')}]`;
  }

  // Stryker disable next-line BlockStatement: only a library call reads the size: no request does
  get size(): number {
    return this.#pets.size;
  }
}

import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { CONFIG_KEY, type Config } from './config.ts';

let frozen: Config | undefined;

/**
 * The run's Config, injected once from vitest's provide (the CLI or suites/vitest.config.ts builds it
 * at the edge) and frozen. The suites never read argv or the environment.
 */
export function runConfig(): Config {
  if (frozen) return frozen;
  const provided = inject(CONFIG_KEY);
  if (!provided) {
    throw new Error(
      `no ${CONFIG_KEY} provided: run the suites through petstore-conformance or with --config suites/vitest.config.ts`,
    );
  }
  frozen = Object.freeze({ ...provided, only: Object.freeze([...provided.only]) });
  return frozen;
}

/** A pet as the suites send it: ids are bigints so that every int64 travels exactly. */
export interface PetInput {
  readonly id: bigint;
  readonly name: string;
  readonly tag?: string;
  readonly status?: 'available' | 'pending' | 'sold';
  readonly [extra: string]: unknown;
}

const used = new Set<bigint>();

/** Randomness drawn 4 KiB at a time: one call to the system's generator per id cost more than the id. */
let pool = Buffer.alloc(0);
let taken = 0;

function randomBelow(bound: bigint): bigint {
  if (taken + 16 > pool.length) {
    pool = randomBytes(4096);
    taken = 0;
  }
  const bytes = pool.subarray(taken, taken + 16);
  taken += 16;
  // 16 bytes of randomness for bounds up to 2^63: the modulo bias is below 2^-60.
  return BigInt(`0x${bytes.toString('hex')}`) % bound;
}

function bitLength(n: bigint): number {
  return (n < 0n ? -n : n).toString(2).length;
}

/**
 * A pet id no other run has used, so that checks never collide with pets already stored on a shared
 * staging deployment (pets cannot be deleted, and two runs with the same --seed must not ask for the
 * same ids). Inputs are seeded for reproducibility; ids are the one part that must NOT repeat, so they
 * come from fresh randomness: a run-unique salt, in effect.
 *
 * Without a hint the id lies in [2^40, 2^53): large enough to be practically unique, small enough
 * that a server storing ids as doubles still returns it intact (the int64 edges are checked by their
 * own requirement). With a hint (a generated id) the id keeps its sign and its size (41 to 63 bits),
 * so that generated cases still exercise negative and beyond-2^53 ids.
 */
export function freshId(hint?: bigint): bigint {
  const bits = hint === undefined ? 53 : Math.min(63, Math.max(41, bitLength(hint)));
  const low = 2n ** BigInt(hint === undefined ? 40 : bits - 1);
  const negative = hint !== undefined && hint < 0n;
  for (;;) {
    const magnitude = low + randomBelow(2n ** BigInt(bits) - low);
    const id = negative ? -magnitude : magnitude;
    if (!used.has(id)) {
      used.add(id);
      return id;
    }
  }
}

/** Whether this run drew `id` from freshId(): no pet of an earlier run, nor of another client, has it. */
export function isFreshId(id: bigint): boolean {
  return used.has(id);
}

/** The tag that marks the pets a run creates (where the tag is not itself under test). */
export function runTag(config: Config): string {
  return `petstore-conformance ${config.runId}`;
}

let counter = 0;

/** A fresh valid pet of this run: new id, recognisable name and tag. */
export function newPet(config: Config, fields: Partial<PetInput> = {}): PetInput {
  counter += 1;
  return { id: freshId(), name: `conformance pet ${counter}`, tag: runTag(config), ...fields };
}

/**
 * What a variant is: a server that proves the suite, either faulty (it must fail what it declares),
 * conformant (it must pass in --strict mode although it differs from the reference where the
 * contract allows) or hostile (it must make the run end by itself with exit 1).
 */
import { loadCatalog } from '../../catalog/catalog.ts';
import type { PetStore } from '../../reference-impl/index.ts';
import type { HostileServer } from './servers/hostile.ts';
import type { Wrap } from './servers/wrap.ts';

export interface Variant {
  /** kebab-case, unique. */
  name: string;
  kind: 'faulty' | 'conformant' | 'hostile';
  /** What the server does differently from the reference, as a sentence. */
  does: string;
  /**
   * Requirement ids that fail against it. For a faulty variant, exactly these fail, no more and no
   * fewer; for a hostile one, at least these; for a conformant one, none.
   */
  breaks: string[];
  /**
   * Requirement ids the run may report as blocked (skipped, with `blockedBy` naming a failed
   * requirement) because the fault took away what their checks need; 'every other' for a fault that
   * leaves nothing to judge (the API not served, the key refused). Faulty variants only.
   */
  blocks?: string[] | 'every other';
  /**
   * The reference with one behaviour changed, or a hostile server of its own. A wrap is run behind
   * headAsGet (servers/wrap.ts): HEAD is answered as the wrapped reference answers GET, without the
   * body, so that a fault planted in GET answers is in HEAD answers too.
   */
  server:
    | {
        wrap?: Wrap;
        apiKey?: string;
        apiKeyHeader?: string;
        apiKeyQuery?: string;
        maxHeaderSize?: number;
        /** The reference's store, already holding pets (faulty/lived.ts busyStore); a new empty one by default. */
        store?: PetStore;
      }
    | { hostile: HostileServer };
  /**
   * What the message of a failed requirement must say, where its wording is part of what the variant
   * proves (a page cut short fails LIST-LIMIT-FILLS naming the pet left out, not as a precondition).
   */
  says?: Record<string, RegExp>;
  /** Extra command-line options of the run (always run with --strict). */
  args?: string[];
  /**
   * Its run mostly waits (on a rate limit) rather than computes: the variants test does not count it
   * among the runs that keep the cores busy.
   */
  waits?: boolean;
}

/** The API key of the variants that require one. */
export const KEY = 'variant-key-5d1c0e';

/** The ids a variant may block, its 'every other' spelled out from the catalog. */
export function mayBlockOf(v: Pick<Variant, 'breaks' | 'blocks'>): string[] {
  if (v.blocks !== 'every other') return v.blocks ?? [];
  return loadCatalog()
    .requirements.map((r) => r.id)
    .filter((id) => !v.breaks.includes(id));
}

/**
 * Every variant, in a stable order: the faulty ones by operation (list, create, show, then those
 * across operations, then faults of time, then faults combined, then faults of kinds the checks were
 * not written against, then faults of the HTTP surface a fault writer found, then faults of JSON
 * readers, key guards and races on one id, then faults at the request line and the headers, then
 * faults of long-lived servers and of servers as deployed), the servers correct by default that fail
 * a SHOULD alone, the conformant ones, the hostile ones. Names are unique across all.
 */
import { conformantVariants, correctByDefaultVariants } from './conformant.ts';
import { combinedVariants } from './faulty/combined.ts';
import { createVariants } from './faulty/create.ts';
import { crossVariants } from './faulty/cross.ts';
import { fieldVariants } from './faulty/field.ts';
import { listVariants } from './faulty/list.ts';
import { livedConformantVariants, livedHostileVariants, livedVariants } from './faulty/lived.ts';
import { minefieldVariants } from './faulty/minefield.ts';
import { requestLineVariants } from './faulty/request-line.ts';
import { schemeVariants } from './faulty/scheme.ts';
import { showVariants } from './faulty/show.ts';
import { surfaceVariants } from './faulty/surface.ts';
import { timingVariants } from './faulty/timing.ts';
import { unplantedVariants } from './faulty/unplanted.ts';
import { hostileVariants } from './hostile.ts';
import { limitedVariants } from './limited.ts';
import type { Variant } from './variant.ts';

export type { Variant } from './variant.ts';

export const variants: Variant[] = [
  ...listVariants,
  ...createVariants,
  ...showVariants,
  ...crossVariants,
  ...schemeVariants,
  ...timingVariants,
  ...combinedVariants,
  ...unplantedVariants,
  ...surfaceVariants,
  ...minefieldVariants,
  ...requestLineVariants,
  ...livedVariants,
  ...fieldVariants,
  ...correctByDefaultVariants,
  ...conformantVariants,
  ...livedConformantVariants,
  ...limitedVariants,
  ...hostileVariants,
  ...livedHostileVariants,
];

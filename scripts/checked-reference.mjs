// The reference implementation's part of the checked spec (scripts/checked-spec.mjs): its validators,
// compiled by its own code with its own options (reference-impl/contract.ts). Kept apart from the
// suites' part, so that it goes on its own the day the reference loads its validators itself.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** ajv's standalone code of the reference's validators of `openapi` (dereferenced). */
export async function referenceValidators(dist, openapi) {
  const contract = pathToFileURL(path.join(dist, 'reference-impl', 'contract.js')).href;
  const { precompileReference } = await import(contract);
  return precompileReference(openapi);
}

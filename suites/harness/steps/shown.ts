/**
 * A pet read back against the pet created: the id digit for digit and every field sent, for the
 * checks of create.checks.ts and show.checks.ts that create a pet and show it.
 */

import type { PetInput } from '../config/run.ts';
import type { Contract } from '../contract/contract.ts';
import { fail } from '../contract/expect.ts';
import { clip } from '../evidence/exchange.ts';
import { exactInteger, exactText } from '../evidence/json.ts';
import type { ApiResponse } from '../http/client.ts';
import { differences } from '../model/model.ts';
import { shownPet } from './pets.ts';

/**
 * How a pet as shown differs from the pet sent: the id digit for digit, and every field sent equal,
 * code point for code point (a field not sent may hold anything valid: the model's rule, model.ts).
 */
export function sameFields(exact: Record<string, unknown>, sent: PetInput): string[] {
  const diffs = differences(sent, exact);
  if (exactInteger(exact.id) !== sent.id)
    diffs.unshift(`id ${exactText(exact.id)} where ${sent.id} was sent`);
  return diffs;
}

/** Fails unless `res` is a 200 showing `pet` as it was sent (sameFields); `expected` says what was wanted. */
export function expectShownAsCreated(
  contract: Contract,
  res: ApiResponse,
  pet: PetInput,
  expected: string,
  withBody = false,
): void {
  if (res.status !== 200) fail(res, expected);
  const { exact } = shownPet(contract, res, 'comparing it with the pet created');
  const diffs = sameFields(exact as Record<string, unknown>, pet);
  if (diffs.length === 0) return;
  fail(
    res,
    expected,
    withBody
      ? `200 with ${diffs.join(', ')}: ${clip(res.text, 300)}`
      : clip(`200 with ${diffs.join(', ')}`, 900),
  );
}

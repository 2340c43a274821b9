/**
 * A create the contract refuses, judged on a store that may hold what earlier runs left (issue 35).
 * A 4xx is what such a create gets; but a 409 says the id is taken, and for an id no valid create can
 * carry (one outside int64) that means a pet with it is stored: an earlier create of this very value
 * was kept. The suite looks before it counts the 409 as a refusal.
 */
import { expectStatusBetween, fail } from '../contract/expect.ts';
import { clip } from '../evidence/exchange.ts';
import type { ApiResponse } from '../http/client.ts';
import type { CheckContext } from '../requirement/requirement.ts';
import { petPath } from './pets.ts';

/**
 * Fails unless `res` refuses the create with a 4xx; a 409 to an id outside int64 is looked at:
 * GET /pets/{id} showing a pet means the store kept such an id (the check fails with that answer,
 * whose curl line shows it); any other answer leaves the 409 a refusal.
 */
export async function expectOutOfRangeRefused(
  ctx: Pick<CheckContext, 'api'>,
  res: ApiResponse,
  id: bigint,
): Promise<void> {
  expectStatusBetween(res, 400, 499);
  if (res.status !== 409) return;
  const shown = await ctx.api.get(petPath(id));
  if (shown.status !== 200) return;
  fail(
    shown,
    `a 4xx status to the create of pet ${id}, and no pet with that id stored: an id outside int64 is refused, so none is ever kept`,
    `GET /pets/${id} answered 200 with ${clip(shown.text, 300)}, after the create of it was refused with 409 (the id is taken): a create of this id was kept before this run (by an earlier run, or another client)`,
  );
}

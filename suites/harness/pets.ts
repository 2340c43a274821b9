import { SETUP_CONCURRENCY } from './budget.ts';
import type { ApiResponse, Client } from './client.ts';
import { expectJsonArray, fail } from './expect.ts';
import { exactText, isExactNumber } from './json.ts';
import type { CheckContext } from './requirement.ts';
import type { PetInput } from './run.ts';

/** The path of one pet: /pets/{petId}, the id percent-encoded. */
export function petPath(id: bigint | string): string {
  return `/pets/${encodeURIComponent(String(id))}`;
}

/**
 * Creates a pet a check needs. Anything but 201 fails the check: it cannot be judged without its
 * data, and the server refused a valid pet.
 */
export async function createPet(api: Client, pet: PetInput): Promise<ApiResponse> {
  const res = await api.post('/pets', { json: pet });
  if (res.status !== 201)
    fail(res, `status 201 to POST /pets (creating pet ${pet.id}, which this check needs)`);
  return res;
}

/**
 * Runs `fn` over `items` with at most `limit` in flight. The first failure stops new work; what is in
 * flight is awaited (each request is bounded by the timeout) and the first failure is thrown.
 */
export async function inParallel<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  async function worker(): Promise<void> {
    while (!failure && next < items.length) {
      const i = next++;
      try {
        results[i] = await fn(items[i]!);
      } catch (error) {
        failure ??= { error };
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
  return results;
}

/**
 * Creates pets with bounded concurrency (see inParallel; SETUP_CONCURRENCY at once, so that 101 pets
 * take 3 rounds, within the check's budget); every one must be answered 201.
 */
export function createPets(
  api: Client,
  pets: readonly PetInput[],
  limit = SETUP_CONCURRENCY,
): Promise<ApiResponse[]> {
  return inParallel(pets, limit, (pet) => createPet(api, pet));
}

/**
 * Makes sure at least `count` pets are listed (by GET /pets, the plainest request). With writes
 * allowed the shortfall is created (pets of this run; above 100 every one is created, as a list shows
 * at most 100). Read-only, it skips the check when fewer are listed, since it could not fail then.
 */
export async function ensurePets(ctx: CheckContext, count: number): Promise<void> {
  const { api, config } = ctx;
  if (count > 100) {
    if (config.readOnly)
      ctx.skip(`read-only, and this check needs ${count} pets where a list shows at most 100`);
    await createPets(
      api,
      Array.from({ length: count }, () => ctx.newPet()),
    );
    return;
  }
  const res = await api.get('/pets');
  if (res.status !== 200) fail(res, 'status 200 and a JSON array (counting the pets stored)');
  const listed = expectJsonArray(res, 'a JSON array (counting the pets stored)').value.length;
  if (listed >= count) return;
  if (config.readOnly)
    ctx.skip(`read-only: ${listed} pet(s) listed, fewer than the ${count} this check needs`);
  await createPets(
    api,
    Array.from({ length: count - listed }, () => ctx.newPet()),
  );
}

/**
 * The id of a pet to show: with writes allowed, a pet created for the purpose; read-only, the first
 * pet listed (its id digit for digit), skipping the check when the list is empty.
 */
export async function aPetToShow(ctx: CheckContext): Promise<{ id: string; pet?: PetInput }> {
  if (!ctx.config.readOnly) {
    const pet = ctx.newPet();
    await createPet(ctx.api, pet);
    return { id: pet.id.toString(), pet };
  }
  const res = await ctx.api.get('/pets', { query: { limit: 1 } });
  if (res.status !== 200) fail(res, 'status 200 and a JSON array (looking for a pet to show)');
  const { exact } = expectJsonArray(res, 'a JSON array (looking for a pet to show)');
  const items = exact as unknown[];
  if (items.length === 0) ctx.skip('read-only and the list is empty: there is no pet to show');
  const item = items[0];
  if (typeof item !== 'object' || item === null || Array.isArray(item))
    fail(res, 'a first listed pet that is a JSON object (looking for a pet to show)');
  const first = item as Record<string, unknown>;
  if (isExactNumber(first.id)) return { id: exactText(first.id) };
  if (typeof first.id === 'string') return { id: first.id };
  fail(res, 'a first listed pet with an id (looking for a pet to show)');
}

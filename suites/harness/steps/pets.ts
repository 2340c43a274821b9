import { type PetInput, runTag } from '../config/run.ts';
import type { Contract } from '../contract/contract.ts';
import { describeResponse, expectJsonArray, expectJsonObject, type JsonBody } from '../contract/expect.ts';
import { exactText, isExactNumber } from '../evidence/json.ts';
import { SETUP_CONCURRENCY } from '../http/budget.ts';
import type { ApiResponse, Client } from '../http/client.ts';
import { blocked } from '../requirement/blocked.ts';
import type { CheckContext } from '../requirement/requirement.ts';

/*
 * Preconditions are not checks. What a check needs (pets that exist, an id to show) is had by a
 * tolerant path: a create answered with any 2xx counts (201 is CREATE-OK's to judge), and a pet that
 * a check reads back must then be found. When a precondition cannot be had, the check is blocked
 * (see blocked.ts), naming the requirement that judges what went wrong: CREATE-OK for a refused
 * create, CREATE-PERSISTED (and CREATE-CONCURRENT, as setups create in parallel) for a pet that is
 * not found afterwards, LIST-OK for a list that cannot be read.
 */

/** The path of one pet: /pets/{petId}, the id percent-encoded. */
export function petPath(id: bigint | string): string {
  return `/pets/${encodeURIComponent(String(id))}`;
}

/** Whether a status is 2xx. */
export function isSuccess(status: number): boolean {
  return status >= 200 && status <= 299;
}

/**
 * Who judges a pet that was created (2xx) but is not found afterwards: CREATE-PERSISTED when the
 * server keeps no pet at all, CREATE-CONCURRENT when it loses some; whichever of them fails is named
 * (cli/blocking.ts), and when neither does, the check that met the loss fails itself.
 */
export const NOT_FOUND_AFTER_CREATE = ['CREATE-PERSISTED', 'CREATE-CONCURRENT'] as const;

/** The requirement whose rule a list breaks that does not show pets known to exist (see ensurePets). */
const LIST_SHOWS_WHAT_EXISTS = 'LIST-LIMIT-FILLS';

/**
 * Creates a pet a check needs. Any 2xx will do; anything else blocks the check by CREATE-OK (a
 * server that refuses a valid pet fails CREATE-OK's own check, which says so). `alone`: sent while no
 * other write of the run is in flight (see model.ts), so that losing it cannot be a race.
 */
export async function createPet(
  api: Client,
  pet: PetInput,
  options: {
    alone?: boolean;
    /** Who judges a refusal of this pet (CREATE-INT64-EXACT for an id at an edge); CREATE-OK by default. */
    refusedBy?: readonly string[];
  } = {},
): Promise<ApiResponse> {
  const res = await api.post('/pets', { json: pet, ...(options.alone ? { alone: true } : {}) });
  if (!isSuccess(res.status))
    blocked(
      options.refusedBy ?? ['CREATE-OK'],
      res,
      `a 2xx to POST /pets creating pet ${pet.id}, which this check needs`,
    );
  return res;
}

/**
 * Creates a pet and shows it (GET /pets/{id}), for a check that judges whether pets are kept. A pet
 * not found (404) whose create overlapped another create of the run may have been lost to a race,
 * which is CREATE-CONCURRENT's to judge: a second pet is then created alone (model.ts) and shown, so
 * that what the check judges is a pet the server had to itself. Returns the pet shown last and the
 * answer to its show; creates are not held back unless the first pet was lost.
 */
export async function createAndShowKept(
  ctx: Pick<CheckContext, 'api' | 'model'>,
  make: () => PetInput,
  options: { readonly refusedBy?: readonly string[] } = {},
): Promise<{ pet: PetInput; shown: ApiResponse }> {
  const { api, model } = ctx;
  const first = make();
  await createPet(api, first, options);
  const shown = await api.get(petPath(first.id));
  const raced = model.attemptsOf(first.id.toString()).some((a) => a.overlapped);
  if (shown.status !== 404 || !raced) return { pet: first, shown };
  const pet = make();
  await createPet(api, pet, { ...options, alone: true });
  return { pet, shown: await api.get(petPath(pet.id)) };
}

/**
 * Creates a pet a check reads back, and finds it: GET /pets/{id} answers 200. A pet that is created
 * but then not found (404) blocks the check by CREATE-PERSISTED; another answer to the show blocks it
 * by SHOW-OK. Returns the 200 of the show.
 */
export async function createAndFind(api: Client, pet: PetInput): Promise<ApiResponse> {
  const created = await createPet(api, pet);
  return findPet(api, pet.id.toString(), `POST /pets answered ${created.status}`, true);
}

/**
 * GET /pets/{id} of a pet that exists (`how`: why it should); 200, or the check is blocked: by
 * CREATE-PERSISTED when a pet just created is not found, by SHOW-OK otherwise.
 */
async function findPet(api: Client, id: string, how: string, justCreated: boolean): Promise<ApiResponse> {
  const res = await api.get(petPath(id));
  if (res.status === 200) return res;
  const needed = `status 200 to GET /pets/${id} (${how}), which this check needs`;
  const received = `GET /pets/${id} answered ${describeResponse(res)}, after ${how}`;
  if (res.status === 404 && justCreated) blocked(NOT_FOUND_AFTER_CREATE, res, needed, received);
  blocked(['SHOW-OK'], res, needed, received);
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
 * take 3 rounds, within the check's budget); each must be answered with a 2xx (see createPet).
 */
export function createPets(
  api: Client,
  pets: readonly PetInput[],
  limit = SETUP_CONCURRENCY,
): Promise<ApiResponse[]> {
  return inParallel(pets, limit, (pet) => createPet(api, pet));
}

/** GET /pets, read as the JSON array a count needs; a list that cannot be read blocks by LIST-OK. */
async function listedCount(api: Client, why: string): Promise<{ res: ApiResponse; count: number }> {
  const res = await api.get('/pets');
  const needed = `status 200 and a JSON array to GET /pets (${why}), which this check needs`;
  if (res.status !== 200) blocked(['LIST-OK'], res, needed);
  try {
    return { res, count: expectJsonArray(res, needed).value.length };
  } catch {
    blocked(['LIST-OK'], res, needed);
  }
}

/** The setups of more than 100 pets of each run (see ensurePets), by base URL and run. */
const manyPets = new Map<string, { count: number; done: Promise<void> }>();

/**
 * Makes sure at least `count` pets are listed (by GET /pets, the plainest request). With writes
 * allowed the shortfall is created (pets of this run) and, up to 100, the list is read again to see
 * them there. Above 100 a list cannot count them (it shows at most 100): the pets this run has
 * created so far count (each answered 2xx; one lost afterwards is the model's to name), and only
 * the rest is created. Read-only, it skips the check when fewer are listed, since it could not fail
 * then.
 */
export async function ensurePets(ctx: CheckContext, count: number): Promise<void> {
  const { api, config } = ctx;
  if (count > 100) {
    if (config.readOnly)
      ctx.skip(`read-only, and this check needs ${count} pets where a list shows at most 100`);
    // Made sure of once a run, however many checks need them: they exist for all. The pets the run's
    // other checks created count; a default run has created some 170 by the time the lists are read,
    // and creates none here. A setup that failed fails each check that waits on it.
    const key = `${config.baseUrl} ${runTag(config)}`;
    const made = manyPets.get(key);
    if (made && made.count >= count) return made.done;
    const shortfall = count - ctx.model.createdCount();
    const done =
      shortfall <= 0
        ? Promise.resolve()
        : createPets(
            api,
            Array.from({ length: shortfall }, () => ctx.newPet()),
          ).then(() => undefined);
    manyPets.set(key, { count, done });
    return done;
  }
  const { count: listed } = await listedCount(api, 'counting the pets stored');
  if (listed >= count) return;
  if (config.readOnly)
    ctx.skip(`read-only: ${listed} pet(s) listed, fewer than the ${count} this check needs`);
  const createdPets = Array.from({ length: count - listed }, () => ctx.newPet());
  const created = await createPets(api, createdPets);
  const after = await listedCount(api, `after creating ${created.length} pet(s)`);
  if (after.count >= count) return;
  // Not listed: kept or not? Each is looked up; a pet not found is lost (CREATE-PERSISTED,
  // CREATE-CONCURRENT), and pets that are all found exist but are not listed (LIST-LIMIT-FILLS: a
  // limit of 100 by default, fewer than that listed, and more than that many exist).
  const shown = await inParallel(createdPets, SETUP_CONCURRENCY, (pet) => api.get(petPath(pet.id)));
  const needed = `at least ${count} pets listed by GET /pets after creating ${created.length} (each answered 2xx), which this check needs`;
  const unlisted = `GET /pets answered ${describeResponse(after.res)}: ${after.count} pet(s) listed`;
  const lost = shown.find((res) => res.status === 404);
  if (lost) {
    blocked(
      NOT_FOUND_AFTER_CREATE,
      lost,
      needed,
      `${unlisted}, and GET ${new URL(lost.request.url).pathname} then answered 404 for one of the pets created`,
    );
  }
  const other = shown.find((res) => res.status !== 200);
  if (other) {
    blocked(
      ['SHOW-OK'],
      other,
      needed,
      `${unlisted}, and GET ${new URL(other.request.url).pathname} then answered ${describeResponse(other)} for one of the pets created`,
    );
  }
  blocked(
    [LIST_SHOWS_WHAT_EXISTS],
    after.res,
    needed,
    `${unlisted}, though at least ${count} exist (${listed} listed before, and the ${created.length} created since are each shown by GET /pets/{id})`,
  );
}

/**
 * A pet to show and the 200 that shows it: with writes allowed, a pet created for the purpose (see
 * createAndFind); read-only, the first pet listed (its id digit for digit), skipping the check when
 * the list is empty.
 */
export async function aPetToShow(
  ctx: CheckContext,
): Promise<{ id: string; pet?: PetInput; shown: ApiResponse }> {
  if (!ctx.config.readOnly) {
    const pet = ctx.newPet();
    const shown = await createAndFind(ctx.api, pet);
    return { id: pet.id.toString(), pet, shown };
  }
  const id = await firstListedId(ctx);
  return { id, shown: await findPet(ctx.api, id, 'listed by GET /pets?limit=1', false) };
}

/**
 * The id of a pet that exists, not shown: with writes allowed, a pet created for the purpose (any
 * 2xx, see createPet); read-only, the first pet listed, skipping the check when the list is empty.
 */
export async function aPetThatExists(ctx: CheckContext): Promise<string> {
  if (ctx.config.readOnly) return firstListedId(ctx);
  const pet = ctx.newPet();
  await createPet(ctx.api, pet);
  return pet.id.toString();
}

/** The id of the first pet GET /pets?limit=1 lists, digit for digit; the check is skipped when there is none. */
async function firstListedId(ctx: CheckContext): Promise<string> {
  const res = await ctx.api.get('/pets', { query: { limit: 1 } });
  const needed = 'status 200 and a JSON array (looking for a pet to show), which this check needs';
  if (res.status !== 200) blocked(['LIST-OK'], res, needed);
  let items: unknown[];
  try {
    items = expectJsonArray(res, needed).exact as unknown[];
  } catch {
    blocked(['LIST-OK'], res, needed);
  }
  if (items.length === 0) ctx.skip('read-only and the list is empty: there is no pet to show');
  const item = items[0];
  const first = (typeof item === 'object' && item !== null && !Array.isArray(item) ? item : {}) as Record<
    string,
    unknown
  >;
  const id = isExactNumber(first.id)
    ? exactText(first.id)
    : typeof first.id === 'string'
      ? first.id
      : undefined;
  if (id === undefined)
    blocked(['ANY-PET-SCHEMA'], res, 'a first listed pet with an id (looking for a pet to show)');
  return id;
}

/**
 * The pet a 200 shows, for a check that compares its fields. A body that is not a Pet by the schema
 * (a wrapped object, an id as a string, tag: null) blocks the check by ANY-PET-SCHEMA, which judges
 * shapes: the check judges what a well-formed pet says.
 */
export function shownPet(
  contract: Contract,
  res: ApiResponse,
  why: string,
): JsonBody<Record<string, unknown>> {
  const needed = `a Pet (by the schema) in the 200 to GET ${new URL(res.request.url).pathname} (${why})`;
  let body: JsonBody<Record<string, unknown>>;
  try {
    body = expectJsonObject(res, needed);
  } catch {
    blocked(['ANY-PET-SCHEMA'], res, needed);
  }
  if (contract.validate(contract.schema('Pet'), body.value, body.exact).length > 0)
    blocked(['ANY-PET-SCHEMA'], res, needed);
  return body;
}

/**
 * The items of a list that answered 200, for a check that counts them. A 200 whose body is not a JSON
 * array blocks the check by LIST-OK, which judges the list's shape.
 */
export function listedPets(res: ApiResponse, why: string): unknown[] {
  const needed = `a JSON array in the 200 to GET /pets (${why})`;
  try {
    return expectJsonArray(res, needed).value;
  } catch {
    blocked(['LIST-OK'], res, needed);
  }
}

import {
  type ApiResponse,
  blocked,
  describeResponse,
  ensurePets,
  expectJsonArray,
  expectStatus,
  expectStatusBetween,
  fail,
  inParallel,
  isSuccess,
  listedPets,
  NOT_FOUND_AFTER_CREATE,
  requirement,
  suspected,
} from '../harness/index.ts';

requirement('LIST-OK', async ({ api }) => {
  const res = await api.get('/pets');
  expectStatus(res, 200);
  expectJsonArray(res);
});

/**
 * A limit from the seed, 11 to 99, so that runs with other seeds cover the limits between the fixed
 * rows: the whole declared space, not its corners alone.
 */
function seededLimit(seed: number): number {
  return 11 + (Math.abs(Math.trunc(seed)) % 89);
}

/**
 * One limit from the seed in each tenth of 1 to 100 (1–10, 11–20, …, 91–100): a fault of some limits
 * only (a page rounded up to a multiple of 25, one pet too many between 26 and 99) shows at every
 * seed, and runs with other seeds cover the other limits of each tenth.
 */
function limitsOfEachTenth(seed: number): number[] {
  return Array.from(
    { length: 10 },
    (_, tenth) => tenth * 10 + 1 + ((Math.abs(Math.trunc(seed)) + tenth * 7) % 10),
  );
}

/** Fails unless `res`, the answer to GET /pets?limit=`limit`, is 200 with at most `limit` pets. */
function expectAtMost(res: ApiResponse, limit: number, asked = ''): void {
  // The maximum refused is LIST-LIMIT-MAX-ACCEPTED's fault; this judges the count.
  if (limit === 100 && res.status !== 200)
    blocked(['LIST-LIMIT-MAX-ACCEPTED'], res, 'status 200 to GET /pets?limit=100');
  expectStatus(res, 200);
  const value = listedPets(res, `counting the pets a limit of ${limit} returns`);
  if (value.length > limit) fail(res, `a JSON array of at most ${limit} pets${asked}`);
}

requirement.each(
  'LIST-LIMIT-AT-MOST',
  [
    { case: 'limit=1', limit: 1 },
    { case: 'limit=7', limit: 7 },
    { case: 'a limit from the seed, 11 to 99', limit: 'seeded' as const },
    { case: 'limit=100', limit: 100 },
  ],
  async (ctx, row) => {
    const limit = row.limit === 'seeded' ? seededLimit(ctx.config.seed) : row.limit;
    await ensurePets(ctx, limit + 1);
    expectAtMost(await ctx.api.get('/pets', { query: { limit } }), limit);
  },
);

requirement.each(
  'LIST-LIMIT-AT-MOST',
  [{ case: 'a limit from the seed in each tenth of 1 to 100' }],
  async (ctx) => {
    await ensurePets(ctx, 101);
    const limits = limitsOfEachTenth(ctx.config.seed);
    const pages = await inParallel(limits, limits.length, (limit) =>
      ctx.api.get('/pets', { query: { limit } }),
    );
    for (const [i, res] of pages.entries())
      expectAtMost(res, limits[i]!, ` (limits ${limits.join(', ')} were asked)`);
  },
);

requirement.each(
  'LIST-LIMIT-FILLS',
  [
    { case: 'limit=1', limit: 1 },
    { case: 'limit=10', limit: 10 },
    { case: 'a limit from the seed, 11 to 99', limit: 'seeded' as const },
    { case: 'limit=100', limit: 100 },
    // The declared default is 100: a page of 20 when no limit is given hides pets just the same.
    { case: 'no limit (default 100)', limit: undefined },
  ],
  async (ctx, row) => {
    const limit = row.limit === 'seeded' ? seededLimit(ctx.config.seed) : (row.limit ?? 100);
    const query = row.limit === undefined ? undefined : { limit };
    await ensurePets(ctx, limit);
    const res = await ctx.api.get('/pets', query ? { query } : {});
    // A refused maximum is LIST-LIMIT-MAX-ACCEPTED's fault, a list that fails outright LIST-OK's.
    if (res.status !== 200)
      blocked(
        limit === 100 && query ? ['LIST-LIMIT-MAX-ACCEPTED'] : ['LIST-OK'],
        res,
        `status 200 to GET /pets${query ? `?limit=${limit}` : ''}`,
      );
    const value = listedPets(res, `counting the pets a limit of ${limit} returns`);
    // More than limit is LIST-LIMIT-AT-MOST's (or LIST-LIMIT-DEFAULT's) to judge.
    if (value.length >= limit) return;
    // Fewer: are at least `limit` still there? A store that lost the pets counted before (a fault of
    // keeping pets, not of the limit) lists fewer without a limit too.
    const all = query ? await ctx.api.get('/pets') : res;
    const stored = all.status === 200 ? listedPets(all, 'counting the pets stored').length : limit;
    if (query && stored < limit)
      suspected(
        NOT_FOUND_AFTER_CREATE,
        all,
        `at least ${limit} pets still listed by GET /pets, as before`,
        'pets listed before are listed no more: a fault of the list unless the store lost them',
        `GET /pets answered ${describeResponse(all)}: pets listed before are not any more`,
      );
    // They are. A store that loses writes may still count the pets it lost in a page (a list sliced
    // before what it lost is taken out): the page is the list's fault only if no pet was lost.
    suspected(
      NOT_FOUND_AFTER_CREATE,
      res,
      `a JSON array of at least ${limit} pets (at least ${limit} are stored${query ? '' : ', and the default limit is 100'})`,
      "a page shorter than its limit is the list's fault unless the store lost pets",
    );
  },
);

requirement('LIST-LIMIT-MAX-ACCEPTED', async ({ api }) => {
  const res = await api.get('/pets', { query: { limit: 100 } });
  expectStatus(res, 200);
});

requirement.each(
  'LIST-LIMIT-OVER-MAX',
  [
    { case: 'limit=101', limit: '101' },
    { case: 'limit=1000', limit: '1000' },
    { case: 'limit=2^31', limit: '2147483648' },
    { case: 'limit=2^63', limit: '9223372036854775808' },
  ],
  async ({ api }, { limit }) => {
    const res = await api.get('/pets', { query: { limit } });
    expectStatusBetween(res, 400, 499);
  },
);

requirement.each(
  'LIST-LIMIT-NOT-INTEGER',
  [
    { case: 'limit=abc', limit: 'abc' },
    { case: 'limit=1.5', limit: '1.5' },
    { case: 'limit= (empty)', limit: '' },
    // A form a number parser takes that is not the integer's decimal digits (Number('0x10') is 16).
    { case: 'limit=0x10', limit: '0x10' },
  ],
  async ({ api }, { limit }) => {
    const res = await api.get('/pets', { query: { limit } });
    expectStatusBetween(res, 400, 499);
  },
);

// The digits of an integer with white space around them: a reader that trims reads the number written
// (int(' 5') and Number(' 5') are 5), lenient rather than wrong.
requirement.each(
  'LIST-LIMIT-PADDED-REFUSED',
  [
    { case: 'limit=%205 (a leading space)', limit: ' 5' },
    { case: 'limit=5%20 (a trailing space)', limit: '5 ' },
  ],
  async ({ api }, { limit }) => {
    const res = await api.get('/pets', { query: { limit } });
    expectStatusBetween(res, 400, 499);
  },
);

requirement('LIST-LIMIT-DEFAULT', async (ctx) => {
  const { api } = ctx;
  // More than 100 stored: 101 pets of this run (created once a run for every check that needs them).
  await ensurePets(ctx, 101);
  const res = await api.get('/pets');
  expectStatus(res, 200);
  const value = listedPets(res, 'counting the pets listed without a limit');
  if (value.length > 100) fail(res, 'a JSON array of at most 100 pets (101 or more are stored)');
});

requirement.each(
  'LIST-LIMIT-BELOW-ONE',
  [
    { case: 'limit=0', limit: 0 },
    { case: 'limit=-1', limit: -1 },
  ],
  async ({ api }, { limit }) => {
    const res = await api.get('/pets', { query: { limit } });
    const expected = `status 400–499, or 200 with a JSON array${limit === 0 ? ' that is empty' : ''}`;
    if (res.status >= 400 && res.status <= 499) return;
    if (res.status !== 200) fail(res, expected);
    const value = listedPets(res, `counting the pets a limit of ${limit} returns`);
    if (limit === 0 && value.length !== 0) fail(res, expected);
  },
);

// A limit below 1 may be refused or answered (LIST-LIMIT-BELOW-ONE), but never with a page longer than
// the maximum: -1 read as a slice from the end (pets[:limit]) answers every pet but the last, -2^31
// read as an unsigned number asks for two billion. More than 101 pets make such a page too long.
requirement.each(
  'LIST-LIMIT-PAGE-MAX',
  [
    { case: 'limit=-1', limit: '-1' },
    { case: 'limit=-2147483648', limit: '-2147483648' },
  ],
  async (ctx, { limit }) => {
    // Read-only, what is stored is judged: a list shows at most 100 of it, ensurePets would skip.
    if (!ctx.config.readOnly) await ensurePets(ctx, 102);
    const res = await ctx.api.get('/pets', { query: { limit } });
    if (!isSuccess(res.status)) return; // refused: LIST-LIMIT-BELOW-ONE's to observe
    const value = listedPets(res, `counting the pets a limit of ${limit} returns`);
    if (value.length > 100)
      fail(res, `a 4xx, or a JSON array of at most 100 pets (the declared maximum), to limit=${limit}`);
  },
);

import {
  type ApiResponse,
  applyMutation,
  arbitraryOf,
  blocked,
  bodyOf,
  type CheckContext,
  CONCURRENT_CREATES,
  ConformanceError,
  checkGenerated,
  checkSequences,
  clip,
  contract,
  createAndFind,
  createAndShowKept,
  createPet,
  describeResponse,
  EXTENDED,
  exactInteger,
  exactText,
  expectJsonObject,
  expectOutOfRangeRefused,
  expectShownAsCreated,
  expectStatus,
  expectStatusBetween,
  fail,
  fc,
  formatIssues,
  freshIdLike,
  freshMutation,
  freshOutOfRange,
  inParallel,
  isBlocked,
  isConformanceError,
  isInvalid,
  isSuccess,
  LEFT_TO_THE_READER,
  MALFORMED,
  MINEFIELD_CONCURRENCY,
  mutationsOf,
  NOT_FOUND_AFTER_CREATE,
  type NotJson,
  type PetInput,
  petPath,
  printfCommand,
  requirement,
  runTag,
  STILL_JSON,
  sameFields,
  showBytes,
  shownPet,
  showString,
  stringifyExact,
  suspected,
  type Template,
  toCurl,
} from '../harness/index.ts';

/** Runs each judgement: throws the first failure, or when none fails, the first judgement blocked. */
function judgeAll(judgements: readonly (() => void)[]): void {
  let block: unknown;
  for (const judge of judgements) {
    try {
      judge();
    } catch (error) {
      if (!isBlocked(error)) throw error;
      block ??= error;
    }
  }
  if (block !== undefined) throw block;
}

/**
 * Shows each pet (at once) and holds each show to its pet (expectShownAsCreated), in the order given:
 * the first one shown otherwise fails the check. A pet not found whose create overlapped others may
 * have been lost to a race, CREATE-CONCURRENT's to judge (the model names it): it blocks the check
 * when no other show fails it.
 */
async function expectEachShownAsCreated(
  ctx: Pick<CheckContext, 'api' | 'model'>,
  pets: readonly { pet: PetInput; expected: string }[],
): Promise<void> {
  const shown = await inParallel(pets, pets.length, ({ pet }) => ctx.api.get(petPath(pet.id)));
  judgeAll(
    shown.map((res, i) => () => {
      const { pet, expected } = pets[i]!;
      if (res.status === 404 && ctx.model.attemptsOf(pet.id.toString()).some((a) => a.overlapped))
        blocked(['CREATE-CONCURRENT'], res, expected);
      expectShownAsCreated(contract, res, pet, expected);
    }),
  );
}

// Creates, shows and lists in generated orders, each answer held against what the sequence created
// (harness/steps/sequences.ts): thirty-eight short sequences at once (fewer than CREATE-CONCURRENT's
// CONCURRENT_CREATES), so that a deployment far away pays for five round trips, not for a hundred:
// the longest chain of the first phase, which it leads: its first requests are not queued behind
// the other checks' hundreds. They share the store, so each still meets what the
// others created in between.
requirement.each('CREATE-PERSISTED', [{ case: 'generated sequences', leads: true }], async (ctx) => {
  await checkSequences(ctx, { sequences: 38, maxCommands: 5 });
});

// A server may answer a request before reading its body (a 405 to a method it does not take); it
// must then read the body anyway or close the connection (RFC 9112 §9.3). One that keeps the
// connection and leaves the body there reads it as the start of the next request: the client tells
// that answer from the server's own (harness/http/spoiled.ts) and names both requests under
// ANY-HTTP-MESSAGE. A check of every operation's answers, run in this first phase rather than
// beside the others (cross/cross.checks.ts) for its chain of four exchanges on a connection of its
// own: here it ends before the longest chain does, there it would be the second phase's longest.
requirement.each(
  'ANY-HTTP-MESSAGE',
  [
    {
      case: 'GET /pets on the connection where PUT /pets/{id} with a body was answered just before',
      needs: ['write' as const],
    },
  ],
  async ({ api, newPet }) => {
    const pet = newPet();
    await createPet(api, pet);
    const connection = api.ownConnection();
    try {
      await api.request('PUT', petPath(pet.id), { json: { ...pet, name: 'changed' }, connection });
      await api.get('/pets', { connection });
    } finally {
      await connection.close();
    }
  },
);

requirement('CREATE-OK', async ({ api, newPet }) => {
  const res = await api.post('/pets', { json: newPet() });
  expectStatus(res, 201);
});

requirement.each(
  'CREATE-OK',
  [{ case: 'Content-Type: application/json; charset=utf-8' }],
  async ({ api, newPet }, { case: contentType }) => {
    // RFC 8259 §11: no charset is defined for application/json, and adding one has no effect.
    const res = await api.post('/pets', {
      body: stringifyExact(newPet()),
      headers: { 'content-type': contentType.slice('Content-Type: '.length) },
    });
    expectStatus(res, 201);
  },
);

requirement('CREATE-RESPONSE-PET', async ({ api, newPet, skip }) => {
  const sent = newPet();
  // Any 2xx: whether it is 201 is CREATE-OK's to judge; this judges the body.
  const res = await createPet(api, sent);
  if (res.body.length === 0) skip(`the ${res.status} has no body, which the document allows`);
  const expected = 'a create body that is the created pet';
  const { value, exact } = expectJsonObject(res, expected);
  const issues = contract.validate(contract.schema('Pet'), value, exact);
  if (issues.length > 0)
    fail(res, expected, `${res.status}, ${formatIssues(issues)}; body: ${clip(res.text, 300)}`);
  const diffs = sameFields(exact as Record<string, unknown>, sent);
  if (diffs.length > 0) fail(res, expected, `${res.status} with another pet: ${diffs.join(', ')}`);
});

/** Whether an answer is 200 and a JSON object whose id is `id`, digit for digit. */
function showsPet(res: ApiResponse, id: bigint): boolean {
  if (res.status !== 200) return false;
  try {
    const { exact } = expectJsonObject(res);
    return exactInteger((exact as { id?: unknown }).id) === id;
  } catch (error) {
    if (isConformanceError(error)) return false;
    throw error;
  }
}

/** Creates `pet` and follows the Location of the answer: it must lead to that pet. */
async function locationLeadsTo(
  { api, note, skip }: Pick<CheckContext, 'api' | 'note' | 'skip'>,
  pet: PetInput,
): Promise<void> {
  // Any 2xx: whether it is 201 is CREATE-OK's to judge; this judges where its Location leads.
  const created = await createPet(api, pet);
  const location = created.headers.location;
  if (location === undefined) {
    await note(
      `the ${created.status} to POST /pets has no Location header, which the document does not show`,
    );
    return;
  }
  const expected = `a Location that, resolved against the request URL, answers GET with 200 and pet ${pet.id} (RFC 9110 §10.2.2, §15.3.2)`;
  let target: URL;
  try {
    target = new URL(location, created.request.url);
  } catch {
    fail(created, expected, `${created.status} with Location: ${location}, which is not a URI reference`);
  }
  if (target.origin !== new URL(created.request.url).origin)
    skip(`the Location ${location} is on another origin than the base URL: the suite does not follow it`);
  const res = await api.get(`${target.origin}${target.pathname}${target.search}`);
  if (showsPet(res, pet.id)) return;
  // Not the pet: is it shown where the contract puts it? If not, what went wrong is not the Location.
  const shown = await api.get(petPath(pet.id));
  const needed = `status 200 and pet ${pet.id} to GET /pets/${pet.id}, created just before`;
  if (shown.status === 404) blocked(NOT_FOUND_AFTER_CREATE, shown, needed);
  if (shown.status !== 200) blocked(['SHOW-OK'], shown, needed);
  const { exact } = shownPet(contract, shown, `reading its id, ${pet.id}`);
  // Another id: beyond 2^53 it lost digits (CREATE-INT64-EXACT's rule), below, it is another pet.
  const beyond = pet.id >= 2n ** 53n || pet.id <= -(2n ** 53n);
  if (exactInteger((exact as { id?: unknown }).id) !== pet.id)
    blocked(beyond ? ['CREATE-INT64-EXACT', 'SHOW-OK'] : ['SHOW-OK'], shown, needed);
  fail(
    res,
    expected,
    `GET ${target.pathname}${target.search}, the Location (${location}) of the ${created.status}, answered ${describeResponse(res)}; GET /pets/${pet.id} shows the pet`,
  );
}

requirement('CREATE-LOCATION', async (ctx) => {
  await locationLeadsTo(ctx, ctx.newPet());
});

// An id beyond 2^53 (fresh, near 2^62): written into the header through a double, it names another pet.
requirement.each('CREATE-LOCATION', [{ case: 'a pet whose id is beyond 2^53' }], async (ctx) => {
  await locationLeadsTo(ctx, ctx.newPet({ id: ctx.freshId(2n ** 62n) }));
});

requirement.each(
  'CREATE-MISSING-REQUIRED',
  [
    { case: 'without id', drop: 'id' },
    { case: 'without name', drop: 'name' },
    // The name under a near miss of "name": no member is named "name" (RFC 8259 §8.3 compares names
    // code point for code point), so a reader that folds, trims or maps member names takes it.
    { case: 'its name as "name " (a space after it)', drop: 'name', as: 'name ' },
    { case: 'its name as "Name"', drop: 'name', as: 'Name' },
    { case: 'its name as "na\\u200Bme" (a zero-width space inside it)', drop: 'name', as: 'na\u200bme' },
    { case: 'its name as "nаme" (a Cyrillic а)', drop: 'name', as: 'nаme' },
  ],
  async ({ api, newPet }, { drop, as }: { drop: string; as?: string }) => {
    const { [drop]: dropped, ...body } = newPet();
    const res = await api.post('/pets', { json: as === undefined ? body : { ...body, [as]: dropped } });
    expectStatusBetween(res, 400, 499);
  },
);

// The ids of the wrong type are fresh digits each run (freshIdLike): a server that kept "12345" or
// 1.5 as an id would answer an earlier run's value 409, which reads as a refusal.
requirement.each(
  'CREATE-WRONG-TYPE',
  [
    { case: 'id as a string', field: 'id', value: '12345' },
    { case: 'id as a fraction', field: 'id', value: 1.5 },
    { case: 'name as a number', field: 'name', value: 42 },
    { case: 'tag as null', field: 'tag', value: null },
    { case: 'status as null', field: 'status', value: null },
  ],
  async ({ api, newPet }, { field, value }) => {
    const sent = field === 'id' ? freshIdLike(value) : value;
    const res = await api.post('/pets', { json: { ...newPet(), [field]: sent } });
    expectStatusBetween(res, 400, 499);
  },
);

requirement.each(
  'CREATE-STATUS-OUTSIDE-ENUM',
  [
    { case: 'status=Available', status: 'Available' },
    { case: 'status=unknown', status: 'unknown' },
    { case: 'status= (empty)', status: '' },
    // Near misses, each the work of a reader that changes what it reads: trimmed, its white space
    // taken out, invisible characters dropped, compatibility forms folded (NFKC), lookalikes mapped.
    { case: 'status="sold " (a space after it)', status: 'sold ' },
    { case: 'status="pen ding" (a space inside it)', status: 'pen ding' },
    { case: 'status="sold" with a zero-width space', status: 'sold\u200b' },
    { case: 'status="ｓｏｌｄ" (full-width letters)', status: 'ｓｏｌｄ' },
    { case: 'status="ѕold" (a Cyrillic dze for the s)', status: 'ѕold' },
  ],
  async ({ api, newPet }, { status }) => {
    const res = await api.post('/pets', { json: { ...newPet(), status } });
    expectStatusBetween(res, 400, 499);
  },
);

// The first value past each end, every run: a store that kept it answers 409 ever after, so a 409
// is looked at (expectOutOfRangeRefused). And fresh values past each end, which no earlier run sent.
requirement.each(
  'CREATE-ID-OUT-OF-RANGE',
  [
    { case: 'id=2^63', id: () => 9223372036854775808n },
    { case: 'id=-2^63-1', id: () => -9223372036854775809n },
    { case: 'id=2^63+n, n fresh', id: () => freshOutOfRange('above') },
    { case: 'id=-2^63-1-n, n fresh', id: () => freshOutOfRange('below') },
  ],
  async (ctx, { id: idOf }) => {
    const id = idOf();
    const res = await ctx.api.post('/pets', { json: { ...ctx.newPet(), id } });
    await expectOutOfRangeRefused(ctx, res, id);
  },
);

requirement.each(
  'CREATE-NOT-AN-OBJECT',
  [
    { case: 'an array', body: '[{"id":FRESH_ID,"name":"a"}]' },
    { case: 'a string', body: '"a pet"' },
    { case: 'a number', body: '42' },
    { case: 'null', body: 'null' },
  ],
  async ({ api, freshId }, { body }) => {
    // A fresh id: a server that wrongly accepts the array must not create or overwrite pet 1.
    const sent = body.replace('FRESH_ID', String(freshId()));
    const res = await api.post('/pets', { body: sent, headers: { 'content-type': 'application/json' } });
    expectStatusBetween(res, 400, 499);
  },
);

requirement.each(
  'CREATE-MALFORMED-JSON',
  [
    { case: 'cut short', body: '{"id": FRESH_ID, "name": ' },
    { case: 'empty body', body: '' },
  ],
  async ({ api, freshId }, { body }) => {
    // A fresh id: a lenient reader that takes the body keeps a pet no later run asks for again.
    const sent = body.replace('FRESH_ID', String(freshId()));
    const res = await api.post('/pets', { body: sent, headers: { 'content-type': 'application/json' } });
    expectStatusBetween(res, 400, 499);
  },
);

/** Lists at most `max` items, then how many more: "a, b, c and 4 more". */
function someOf(items: readonly string[], max: number): string {
  if (items.length <= max) return items.join('; ');
  return `${items.slice(0, max).join('; ')} and ${items.length - max} more`;
}

/** A body of the minefield, sent for a fresh pet of the run, and its answer. */
interface Sent<K> {
  readonly kind: K;
  readonly id: bigint;
  readonly body: Buffer;
  readonly res: ApiResponse;
}

/** Sends each kind's body for a fresh pet of the run, MINEFIELD_CONCURRENCY at a time, labelled application/json. */
async function sendEach<K extends { body: Template }>(
  { api, config, freshId }: Pick<CheckContext, 'api' | 'config' | 'freshId'>,
  kinds: readonly K[],
): Promise<Sent<K>[]> {
  const tag = runTag(config);
  return inParallel(kinds, MINEFIELD_CONCURRENCY, async (kind) => {
    const id = freshId();
    const body = bodyOf(kind.body, id, tag);
    const res = await api.post('/pets', {
      body,
      headers: { 'content-type': 'application/json' },
      bodyCommand: printfCommand(body),
    });
    return { kind, id, body, res };
  });
}

/**
 * The smallest body of those `sent` that was answered as `wrong` says, as a failure: the body byte
 * for byte, the others named, and a curl line that sends the same bytes for a fresh id.
 */
function smallestTaken<K extends NotJson>(
  { config, freshId }: Pick<CheckContext, 'config' | 'freshId'>,
  sent: readonly Sent<K>[],
  expected: string,
  wrong: (res: ApiResponse) => boolean,
): ConformanceError | undefined {
  const taken = sent.filter(({ res }) => wrong(res)).sort((a, b) => a.body.length - b.body.length);
  const [smallest, ...others] = taken;
  if (smallest === undefined) return undefined;
  const { kind, body, res } = smallest;
  // Sent again for a fresh id: the pet of the body taken may exist now.
  const again = bodyOf(kind.body, freshId(), runTag(config));
  const also = others.map((o) => `${o.kind.case} (${o.res.status})`);
  return new ConformanceError({
    expected,
    received: `${describeResponse(res)} to the body with ${kind.case} (${kind.category}), ${body.length} bytes: ${showBytes(body)}${also.length > 0 ? `; also: ${someOf(also, 12)}` : ''}`,
    reproduce: `${toCurl({ ...res.request, body: again, bodyCommand: printfCommand(again) })}  # the same body for a fresh id`,
    exchanges: [res.exchange],
  });
}

// The JSON minefield (harness/contract/minefield.ts): bodies that are not JSON, which a reader takes
// only by completing or inventing something (a bracket never closed, a hole in a list, a literal cut
// short, a separator missing, bytes that are not text), each a fresh pet but for its fault, all sent;
// the smallest one not refused is shown.
requirement.each(
  'CREATE-MALFORMED-JSON',
  [
    {
      case: `the minefield: ${MALFORMED.length} kinds of text that is not JSON and that a reader takes only by inventing, each a pet but for its fault`,
    },
  ],
  async (ctx) => {
    const sent = await sendEach(ctx, MALFORMED);
    const error = smallestTaken(
      ctx,
      sent,
      `a 4xx status to each of ${MALFORMED.length} bodies that are not JSON (RFC 8259), each labelled application/json, and each taken only by completing or inventing something`,
      (res) => res.status < 400 || res.status > 499,
    );
    if (error) throw error;
  },
);

/** What a body spells of its pet: its id and tag, and its name where every reader reads the same one. */
interface Spelled {
  readonly id: bigint;
  readonly tag: string;
  readonly name: string | null;
}

/**
 * How the show of a pet differs from what its body spelled, as a received; undefined when it does not.
 * A 200 whose body is not a Pet by the schema blocks the check (ANY-PET-SCHEMA judges that).
 */
function misread(res: ApiResponse, spelled: Spelled): string | undefined {
  if (res.status !== 200) return describeResponse(res);
  const { value, exact } = shownPet(
    contract,
    res,
    `comparing it with pet ${spelled.id} as its body spelled it`,
  );
  const diffs: string[] = [];
  if (exactInteger((exact as { id?: unknown }).id) !== spelled.id)
    diffs.push(`id ${exactText((exact as { id?: unknown }).id)} where ${spelled.id} was spelled`);
  if (value.tag !== spelled.tag)
    diffs.push(
      `tag ${showString(value.tag as string | undefined)} where ${showString(spelled.tag)} was spelled`,
    );
  if (spelled.name !== null && value.name !== spelled.name)
    diffs.push(
      `name ${showString(value.name as string | undefined)} where ${showString(spelled.name)} was spelled`,
    );
  return diffs.length === 0 ? undefined : `200 with ${diffs.join(', ')}`;
}

/** misread(), undefined where the show is not a Pet by the schema (ANY-PET-SCHEMA's to judge). */
function misreadUnlessBlocked(res: ApiResponse, spelled: Spelled): string | undefined {
  try {
    return misread(res, spelled);
  } catch (error) {
    if (isBlocked(error)) return undefined;
    throw error;
  }
}

/** "pet 42 as its body spells it (name "Rex", tag "…")", or without the name where readers differ. */
function describeSpelled(spelled: Spelled): string {
  const name = spelled.name === null ? '' : `name ${showString(spelled.name)}, `;
  return `pet ${spelled.id} as its body spells it (${name}tag ${showString(spelled.tag)})`;
}

// Extensions of JSON a reader accepts by design (RFC 8259 §9): content after the value, comments,
// single quotes, bare keys, trailing commas, NaN, 01 and +1, escapes and white space of other
// grammars. Taking one is lenient (this SHOULD); what follows is judged as any create: the pet taken
// is the one the body spells, or CREATE-PERSISTED fails (reported for it, seen while checking this).
requirement.each(
  'CREATE-JSON-EXTENSION-REFUSED',
  [
    {
      case: `the minefield: ${EXTENDED.length} kinds of text in extensions of JSON, each a pet but for its extension`,
    },
  ],
  async (ctx) => {
    const sent = await sendEach(ctx, EXTENDED);
    const error = smallestTaken(
      ctx,
      sent,
      `no 2xx to any of ${EXTENDED.length} bodies in extensions of JSON (JSON5, JSONC, Python's json, Go's json.Decoder), each labelled application/json: the service's bodies are JSON (RFC 8259 §9 lets a reader take them; the contract does not ask it to)`,
      (res) => isSuccess(res.status),
    );
    if (!error) return;
    const tag = runTag(ctx.config);
    const taken = sent.filter(({ res }) => isSuccess(res.status));
    const shown = await inParallel(taken, taken.length, ({ id }) => ctx.api.get(petPath(id)));
    const wrong = taken.flatMap(({ kind, id, res: created }, i) => {
      const spelled = { id, tag, name: kind.name === undefined ? 'Rex' : kind.name };
      const received = misreadUnlessBlocked(shown[i]!, spelled);
      return received === undefined ? [] : [{ kind, spelled, created, res: shown[i]!, received }];
    });
    const [first] = wrong;
    if (first !== undefined) {
      ctx.api.report({
        requirementId: 'CREATE-PERSISTED',
        expected: `${describeSpelled(first.spelled)}: the body with ${first.kind.case} was answered ${first.created.status}, and a pet taken is kept as sent`,
        received: `GET /pets/${first.spelled.id} answered ${first.received}${wrong.length > 1 ? `; ${wrong.length - 1} more of the ${taken.length} pets taken read back otherwise` : ''}`,
        reproduce: first.res.reproduce,
        ...(first.res.status === 404 ? { unless: ['CREATE-CONCURRENT'] } : {}),
      });
    }
    throw error;
  },
);

requirement('CREATE-PERSISTED', async (ctx) => {
  // A pet lost while other creates were in flight is tried again alone (createAndShowKept): a server
  // that loses pets only when creates overlap keeps that one (CREATE-CONCURRENT judges the loss), and
  // one that keeps none fails here. Generated sequences check the same rule over many pets (below).
  const { pet, shown: res } = await createAndShowKept(ctx, () => ctx.newPet({ status: 'pending' }));
  const expected = `status 200 and the pet as created: ${JSON.stringify({ ...pet, id: pet.id.toString() })}`;
  expectShownAsCreated(contract, res, pet, expected, true);
});

/**
 * Whole names and tags that stores rewrite though they are plain strings: text that reads as a number
 * ("007" stored through a double), the text "null" (a column's sentinel for no value), a delimiter of
 * a packed record, escapes written out (a second unescape), CR and CRLF (line ends rewritten),
 * characters that render as nothing, and the marks and overrides of bidirectional text (sanitised). The generated sequences send these as parts of texts; here each
 * is a whole value, every run.
 */
const STORED_AS_SENT = [
  { name: '007', tag: '1.50', status: 'available' },
  { name: 'null', tag: 'null', status: 'pending' },
  { name: 'true', tag: '0', status: 'sold' },
  { name: 'a|b', tag: 'c|d' },
  { name: 'a\\nb \\u0041', tag: '\\"' },
  { name: 'line\r\nend\r', tag: '\r\n' },
  { name: '\u200bx\u200c\u2060\u00ad', tag: '❤\ufe0f' },
  { name: 'a\u2028b\u2029c', tag: '\u00a0\t' },
  { name: 'שלום\u200f \u202eabc\u202c', tag: '\u2066x\u2069\u200e' },
  // An accent as a combining mark (a store that normalizes to NFC keeps "Zoé"), and an empty tag (one
  // that keeps "" as no tag): shown, not only listed, so that a busy store's pages hide neither.
  { name: 'Zoe\u0301', tag: '' },
] as const;

// A pet of each status and some without are among them, each shown (again alone when lost among the
// others): a store that drops or hides a status is seen by show, whatever its lists hold (issue 35: a
// sold pet answered 404 was seen only in the first page of a fresh store).
requirement.each(
  'CREATE-PERSISTED',
  [
    {
      case: 'names and tags that stores rewrite: 007, null, a|b, escapes written out, CRLF, zero-width; a pet of each status',
    },
  ],
  async (ctx) => {
    const pets = STORED_AS_SENT.map((fields) => ctx.newPet({ ...fields }));
    const created = await inParallel(pets, pets.length, (pet) => ctx.api.post('/pets', { json: pet }));
    const kept = pets.filter((pet, i) => {
      const res = created[i]!;
      if (isSuccess(res.status)) return true;
      // Valid pets (name and tag are any string): a refusal is CREATE-VALID-GENERATED's to judge.
      ctx.api.report({
        requirementId: 'CREATE-VALID-GENERATED',
        expected: `a 2xx status: pet ${pet.id} is valid (name ${JSON.stringify(pet.name)}, tag ${JSON.stringify(pet.tag)}), and its id is new`,
        received: `POST /pets answered ${describeResponse(res)}`,
        reproduce: res.reproduce,
      });
      return false;
    });
    const shown = await inParallel(kept, kept.length, (pet) => showKept(ctx, pet));
    judgeAll(
      shown.map(
        ({ pet, shown: res }) =>
          () =>
            expectShownAsCreated(
              contract,
              res,
              pet,
              `status 200 and the pet as created: ${JSON.stringify({ ...pet, id: pet.id.toString() })}`,
            ),
      ),
    );
  },
);

/**
 * GET /pets/{id} of a pet the check created; when it is not found and its create overlapped another
 * write of the run (a race is CREATE-CONCURRENT's to judge), a pet of the same fields is created alone
 * and shown instead, so that what is judged is a pet the server had to itself (createAndShowKept).
 */
async function showKept(
  ctx: Pick<CheckContext, 'api' | 'model' | 'newPet'>,
  pet: PetInput,
): Promise<{ pet: PetInput; shown: ApiResponse }> {
  const shown = await ctx.api.get(petPath(pet.id));
  const raced = ctx.model.attemptsOf(pet.id.toString()).some((a) => a.overlapped);
  if (shown.status !== 404 || !raced) return { pet, shown };
  const { id: _, ...fields } = pet;
  const again = ctx.newPet(fields);
  await createPet(ctx.api, again, { alone: true });
  return { pet: again, shown: await ctx.api.get(petPath(again.id)) };
}

// JSON spelled in the ways readers get wrong (harness/contract/minefield.ts): white space of every kind JSON
// allows, the id last, keys and strings written with escapes, an escaped solidus, surrogate pairs, raw
// UTF-8 of every length, extra properties of every type and number form. Each is a valid pet.
requirement.each(
  'CREATE-PERSISTED',
  [{ case: `the minefield: JSON spelled ${STILL_JSON.length} ways readers get wrong, each a valid pet` }],
  async (ctx) => {
    const spelled = STILL_JSON.map((kind) => {
      const pet = ctx.newPet({ name: kind.name });
      return { kind, pet, body: bodyOf(kind.body, pet.id, pet.tag!) };
    }).sort((a, b) => a.body.length - b.body.length);
    const created = await inParallel(spelled, spelled.length, ({ body }) =>
      ctx.api.post('/pets', {
        body,
        headers: { 'content-type': 'application/json' },
        bodyCommand: printfCommand(body),
      }),
    );
    // The smallest body refused: it is JSON, and a valid pet with a fresh id.
    const refused = spelled.filter((_, i) => !isSuccess(created[i]!.status));
    const [first, ...others] = refused;
    if (first !== undefined) {
      const res = created[spelled.indexOf(first)]!;
      const also = others.map((o) => `${o.kind.case} (${created[spelled.indexOf(o)]!.status})`);
      fail(
        res,
        `a 2xx status to the body with ${first.kind.case} (${first.kind.category}), which is JSON and a valid pet: ${showBytes(first.body)}`,
        `${describeResponse(res)}${also.length > 0 ? `; also refused: ${someOf(also, 12)}` : ''}`,
      );
    }
    await expectEachShownAsCreated(
      ctx,
      spelled.map(({ kind, pet, body }) => ({
        pet,
        expected: `status 200 and the pet the body with ${kind.case} spells (name ${showString(kind.name)}): ${showBytes(body)}`,
      })),
    );
  },
);

/**
 * Member names one slip away from the Pet's own: a space after, another letter case, a zero-width
 * space inside, a Cyrillic lookalike. Properties the schema does not declare, each holding another
 * value than the member it resembles.
 */
const NEAR_MISS_NAMES = (name: string) => [
  `${name} `,
  name[0]!.toUpperCase() + name.slice(1),
  `${name.slice(0, 2)}\u200b${name.slice(2)}`,
  name.replace('a', '\u0430'),
];

// A reader that folds member names into the pet's own (case-insensitive properties, a trim, NFKC,
// invisible characters dropped) overwrites the fields sent with the near misses after them: the pet
// is then stored changed. Refused, it changed nothing, which the document allows of an odd body.
requirement.each(
  'CREATE-PERSISTED',
  [
    {
      case: 'status, tag and name each followed by members of near-miss names ("status ", "Status", "st\\u200Batus", "stаtus")',
    },
  ],
  async (ctx) => {
    const pet = ctx.newPet({ status: 'pending' });
    const misses = Object.fromEntries(
      (['status', 'tag', 'name'] as const).flatMap((field) =>
        NEAR_MISS_NAMES(field).map((near) => [near, field === 'status' ? 'sold' : `not the ${field}`]),
      ),
    );
    const res = await ctx.api.post('/pets', { json: { ...pet, ...misses } });
    if (res.status >= 400 && res.status <= 499) {
      await ctx.note(
        `a pet with members of near-miss names was refused (${res.status}): nothing stored, nothing changed`,
      );
      return;
    }
    if (!isSuccess(res.status))
      blocked(['CREATE-OK'], res, `a 2xx to POST /pets creating pet ${pet.id}, which this check needs`);
    await expectEachShownAsCreated(ctx, [
      {
        pet,
        expected: `status 200 and the pet as created, its status, tag and name its own and not those of the members named like them: ${JSON.stringify({ ...pet, id: pet.id.toString() })}`,
      },
    ]);
  },
);

// What RFC 8259 leaves to the reader (harness/contract/minefield.ts, JSONTestSuite's i_ cases): bytes
// that are not UTF-8 in a string, a lone surrogate, numbers beyond a double, deep nesting, a byte
// order mark. Taken or refused, either conforms, and the report notes which; a pet taken is then read
// back as its body spells it, as any pet created.
requirement.each(
  'CREATE-PERSISTED',
  [
    {
      case: `bodies JSON leaves to the reader (JSONTestSuite's i_ cases): ${LEFT_TO_THE_READER.length}, taken or refused, a pet taken read back as spelled`,
    },
  ],
  async (ctx) => {
    const sent = await sendEach(ctx, LEFT_TO_THE_READER);
    await ctx.note(
      `the bodies JSON leaves to the reader, as this server read them: ${sent.map(({ kind, res }) => `${kind.case}, ${isSuccess(res.status) ? 'taken' : 'refused'} (${res.status})`).join('; ')}`,
    );
    const tag = runTag(ctx.config);
    const taken = sent.filter(({ res }) => isSuccess(res.status));
    const shown = await inParallel(taken, taken.length, ({ id }) => ctx.api.get(petPath(id)));
    judgeAll(
      taken.map(({ kind, id, res: created }, i) => () => {
        const res = shown[i]!;
        const spelled = { id, tag, name: kind.name };
        const expected = `status 200 and ${describeSpelled(spelled)}: the body with ${kind.case} was answered ${created.status}`;
        // Not found: lost, which is CREATE-CONCURRENT's when creates in flight together are lost (these
        // went out beside others, and the model cannot follow every one of them: a byte order mark).
        if (res.status === 404)
          suspected(
            ['CREATE-CONCURRENT'],
            res,
            expected,
            `pet ${id}, taken, is not found: a store that loses pets, unless it loses only those created beside others`,
          );
        const received = misread(res, spelled);
        if (received !== undefined) fail(res, expected, received);
      }),
    );
  },
);

requirement.each(
  'CREATE-INT64-EXACT',
  [
    { case: 'id=2^63-1', id: 9223372036854775807n },
    { case: 'id=-2^63', id: -9223372036854775808n },
    { case: 'id=2^53+1', id: 9007199254740993n },
    { case: 'id=0', id: 0n },
    { case: 'id=-1', id: -1n },
  ],
  async ({ api, newPet }, { id }) => {
    const pet = newPet({ id });
    const created = await api.post('/pets', { json: pet });
    // These ids are fixed, so on a deployment that keeps data an earlier run may have stored them:
    // a 409 then still leaves a pet with this id to show. Whether a create is 201 is CREATE-OK's.
    if (!isSuccess(created.status) && created.status !== 409) {
      fail(created, `a 2xx status (or 409 when an earlier run stored id ${id})`);
    }
    const res = await api.get(petPath(id));
    const expected = `status 200 and a pet whose id is ${id}, digit for digit`;
    // Not found at all: a store that loses pets is CREATE-PERSISTED's and CREATE-CONCURRENT's to judge;
    // one that keeps the others has lost this one for its id.
    // A negative id not found may be a class of ids the server never routes, SHOW-OK's to judge.
    if (res.status === 404)
      suspected(
        id < 0n ? [...NOT_FOUND_AFTER_CREATE, 'SHOW-OK'] : NOT_FOUND_AFTER_CREATE,
        res,
        `status 200 to GET /pets/${id}, created just before`,
        `the pet with id ${id} is not found though created: a fault of this id unless the store loses pets`,
      );
    expectStatus(res, 200);
    const { exact } = shownPet(contract, res, `reading its id, ${id}`);
    const shown = (exact as { id?: unknown }).id;
    if (exactInteger(shown) !== id) {
      fail(res, expected, `200 with id ${exactText(shown)}: ${clip(res.text, 300)}`);
    }
  },
);

/** The most of these requests that were in flight at the same moment. */
function mostInFlight(answers: readonly ApiResponse[]): number {
  const edges = answers.flatMap((a) => [
    { at: a.sentAt, step: 1 },
    { at: a.sentAt + a.answerMs, step: -1 },
  ]);
  edges.sort((a, b) => a.at - b.at || a.step - b.step);
  let now = 0;
  let most = 0;
  for (const e of edges) {
    now += e.step;
    most = Math.max(most, now);
  }
  return most;
}

requirement('CREATE-CONCURRENT', async (ctx) => {
  const { api, newPet } = ctx;
  // First one pet (again alone, if it was lost while other creates were in flight): a server that
  // keeps no pet at all fails CREATE-PERSISTED, not this.
  const { pet: first, shown: found } = await createAndShowKept(ctx, () => newPet());
  if (found.status === 404)
    blocked(
      ['CREATE-PERSISTED'],
      found,
      `status 200 to GET /pets/${first.id}, a pet created before the ${CONCURRENT_CREATES} while no other write was in flight`,
    );
  const pets = Array.from({ length: CONCURRENT_CREATES }, () => newPet());
  // All in flight at once (one connection each), not a bounded pool: the run's widest burst (budget.ts).
  const burst = await Promise.all(pets.map((pet) => createPet(api, pet)));
  const together = mostInFlight(burst);
  if (together < pets.length && burst.some((res) => res.pacedMs > 0 || res.retries > 0))
    await ctx.note(
      `at most ${together} of the ${pets.length} creates were in flight together: the run's pace (the deployment's rate limit, --rate-limit or --concurrency) kept the rest back; what was lost among those is judged all the same`,
    );
  await inParallel(pets, pets.length, async (pet) => {
    const res = await api.get(petPath(pet.id));
    const expected = `status 200 for pet ${pet.id}, one of ${pets.length} created at the same time`;
    expectStatus(res, 200);
    const { exact } = shownPet(contract, res, `reading its id, ${pet.id}`);
    if (exactInteger((exact as { id?: unknown }).id) !== pet.id) fail(res, expected);
  });
});

requirement('CREATE-DUPLICATE-ID', async ({ api, newPet }) => {
  const first = newPet({ name: 'the first' });
  await createAndFind(api, first);
  const again = await api.post('/pets', { json: { ...first, name: 'the second' } });
  expectStatus(again, 409);
  const res = await api.get(petPath(first.id));
  const expected = 'status 200 and the first pet, unchanged (name "the first")';
  // Found before, not now: the pet was lost, which is not this requirement's rule.
  if (res.status === 404) blocked(NOT_FOUND_AFTER_CREATE, res, expected);
  expectStatus(res, 200);
  const { value } = shownPet(contract, res, 'reading its name');
  if (value.name !== first.name) fail(res, expected);
});

/** Creates of one new id sent together: four pairs and a burst of five, each its own id. */
const RACES = [2, 2, 2, 2, 5];

// A store that looks the id up and then inserts, with a wait between and no unique constraint, takes
// every create of a new id that arrives in the wait, and the last one written wins: sent together,
// at most one create of an id is answered 2xx, and the pet then shown is that one.
requirement.each(
  'CREATE-DUPLICATE-ID',
  [{ case: `creates of one new id sent together: ${RACES.join(', ')} at once` }],
  async (ctx) => {
    const races = RACES.map((size) => {
      const id = ctx.freshId();
      return Array.from({ length: size }, (_, i) => ctx.newPet({ id, name: `create ${i + 1} of ${size}` }));
    });
    // Every create of every race in flight at once (one connection each), then every pet shown.
    const answers = await Promise.all(
      races.map((pets) => Promise.all(pets.map((pet) => ctx.api.post('/pets', { json: pet })))),
    );
    const shown = await Promise.all(races.map((pets) => ctx.api.get(petPath(pets[0]!.id))));
    judgeAll(
      races.map((pets, r) => () => {
        const answered = answers[r]!;
        const taken = answered.filter((res) => isSuccess(res.status));
        const res = shown[r]!;
        const id = pets[0]!.id;
        const race = `${pets.length} creates of pet ${id} sent together`;
        if (taken.length === 0)
          blocked(['CREATE-OK'], answered[0]!, `a 2xx to one of ${race}, which this check needs`);
        const nameOf = (answer: ApiResponse) => pets[answered.indexOf(answer)]!.name;
        // Not found: the pet created is lost, which is not this requirement's rule (nor is the
        // second 2xx of a store that keeps nothing).
        if (res.status === 404) blocked(NOT_FOUND_AFTER_CREATE, res, `status 200 to GET /pets/${id}`);
        if (taken.length > 1) {
          // Sent together again, for a fresh id: one by one, the second would meet the first.
          const fresh = ctx.freshId();
          const again = pets.map((pet) =>
            toCurl({ ...taken[0]!.request, body: Buffer.from(stringifyExact({ ...pet, id: fresh })) }),
          );
          throw new ConformanceError({
            expected: `at most one 2xx to ${race}, the others refused (409): one pet has the id`,
            received: `${answered.map((a) => a.status).join(', ')} to ${race}: ${taken.length} taken (${taken.map((t) => `"${nameOf(t)}"`).join(', ')}); GET /pets/${id} then shows ${describeResponse(res)}`,
            reproduce: `${again.join(' & ')} & wait  # sent together, for a fresh id`,
            exchanges: [...taken.map((t) => t.exchange), res.exchange],
          });
        }
        const winner = nameOf(taken[0]!);
        const expected = `status 200 and the pet whose create was answered ${taken[0]!.status} (name "${winner}"), the only one of ${race} taken`;
        if (res.status !== 200) fail(res, expected);
        const { value } = shownPet(contract, res, 'reading its name');
        if (value.name !== winner) fail(res, expected);
      }),
    );
  },
);

requirement('CREATE-UNSUPPORTED-MEDIA-TYPE', async ({ api, newPet }) => {
  const body = stringifyExact(newPet());
  const res = await api.post('/pets', { body, headers: { 'content-type': 'text/plain' } });
  expectStatus(res, 415, 400);
});

requirement.each(
  'CREATE-MEDIA-TYPE-FORMS',
  [{ case: 'Content-Type: Application/JSON' }, { case: 'Content-Type: application/json ;charset=utf-8' }],
  async ({ api, newPet }, { case: header }) => {
    const contentType = header.slice('Content-Type: '.length);
    const res = await api.post('/pets', {
      body: stringifyExact(newPet()),
      headers: { 'content-type': contentType },
    });
    // Any 2xx: whether it is 201 is CREATE-OK's to judge.
    if (!isSuccess(res.status))
      fail(
        res,
        `a 2xx status: a valid pet labelled ${contentType}, which is application/json (RFC 9110 §8.3.1: type and subtype are case-insensitive, and white space may precede a parameter)`,
      );
  },
);

requirement('CREATE-BODY-TOO-LARGE', async ({ api, freshId }) => {
  // A small valid pet padded with 4 MiB of insignificant whitespace: the body is large, the pet is
  // not, so a server that wrongly accepts it stores a pet that no list read afterwards chokes on.
  const padding = 4 * 1024 * 1024;
  const id = freshId();
  const head = `{"id":${id},"name":"a large body"`;
  const res = await api.post('/pets', {
    body: `${head}${' '.repeat(padding)}}`,
    headers: { 'content-type': 'application/json' },
    bodyCommand: `{ printf '%s' '${head}'; dd if=/dev/zero bs=1024 count=${padding / 1024} 2>/dev/null | tr '\\000' ' '; printf '}'; }`,
  });
  expectStatusBetween(res, 400, 499);
});

// Generated from the Pet schema of spec/openapi.yaml, seeded by config.seed, shrunk on failure.

const Pet = contract.schema('Pet');
const validPets = arbitraryOf(Pet) as fc.Arbitrary<Record<string, unknown> & { id: bigint }>;
const NUM_RUNS = 60;

requirement('CREATE-VALID-GENERATED', async ({ api, config, freshId, note }) => {
  await checkGenerated(
    config,
    validPets,
    async (generated) => {
      // The generated id keeps its sign and size; its digits are fresh, so no case meets an earlier pet.
      const pet = { ...generated, id: freshId(generated.id) };
      if (isInvalid(contract, Pet, pet))
        throw new Error(`suite bug: generated pet is not valid: ${fc.stringify(pet)}`);
      const res = await api.post('/pets', { json: pet });
      if (!isSuccess(res.status)) fail(res, 'a 2xx status: the pet is valid');
      // Accepted, but not with 201: CREATE-OK judges the status of a create.
      if (res.status !== 201) blocked(['CREATE-OK'], res, 'status 201 to POST /pets of a valid pet');
    },
    { numRuns: NUM_RUNS, note },
  );
});

requirement('CREATE-INVALID-GENERATED', async ({ api, config, freshId, note }) => {
  await checkGenerated(
    config,
    fc.record({ pet: validPets, mutation: mutationsOf(Pet) }),
    async ({ pet, mutation }) => {
      // A mutated id is fresh too (freshMutation): replayed while shrinking, it meets no earlier case.
      const body = applyMutation({ ...pet, id: freshId(pet.id) }, freshMutation(mutation));
      if (!isInvalid(contract, Pet, body)) {
        throw new Error(`suite bug: mutation "${mutation.why}" left a valid pet: ${fc.stringify(body)}`);
      }
      const res = await api.post('/pets', { json: body });
      expectStatusBetween(res, 400, 499);
    },
    { numRuns: NUM_RUNS, note },
  );
});

import {
  type ApiResponse,
  aPetThatExists,
  aPetToShow,
  blocked,
  type CheckContext,
  ConformanceError,
  contract,
  createAndFind,
  createPet,
  describeResponse,
  ensurePets,
  exactInteger,
  expectApplicationJson,
  expectSchema,
  expectStatus,
  expectStatusNot,
  fail,
  freshIdLike,
  inParallel,
  isApplicationJson,
  isClosedWithoutAnswer,
  isJsonMediaType,
  isSuccess,
  LIST_QUERIES,
  MIN_HALF_LENGTH,
  NEAR_MISSES,
  type NearMiss,
  nearMissKey,
  parseExact,
  petPath,
  QUERIES,
  type QueryForm,
  type RequestOptions,
  readJson,
  requirement,
  type Spelling,
  stringifyExact,
  targetsOf,
} from '../harness/index.ts';

// ---------------------------------------------------------------- any operation

/**
 * The documented responses with a pet in them: list 200, show 200, and the 2xx of a create when it
 * has a body. A list or show that does not answer 200 blocks the check (LIST-OK, SHOW-OK judge that).
 * `needsPets`: the list must hold a pet to judge (a schema check of [] judges nothing); its
 * Content-Type can be judged on an empty list too.
 */
async function responseWithPets(
  ctx: CheckContext,
  operation: string,
  needsPets = true,
): Promise<ApiResponse> {
  if (operation === 'listPets') {
    if (needsPets) await ensurePets(ctx, 1);
    const res = await ctx.api.get('/pets');
    if (res.status !== 200)
      blocked(['LIST-OK'], res, 'status 200 to GET /pets, whose body this check judges');
    return res;
  }
  if (operation === 'showPetById') return (await aPetToShow(ctx)).shown;
  // Any 2xx: whether it is 201 is CREATE-OK's to judge.
  return createPet(ctx.api, ctx.newPet());
}

requirement.each(
  'ANY-PET-SCHEMA',
  [
    { case: 'listPets 200', operation: 'listPets' },
    { case: 'showPetById 200', operation: 'showPetById' },
  ],
  // The body of a 201 is not described by the document: CREATE-RESPONSE-PET (MAY) looks at it.
  async (ctx, { operation }) => {
    expectSchema(contract, await responseWithPets(ctx, operation), operation);
  },
);

requirement.each(
  'ANY-JSON-CONTENT-TYPE',
  [
    { case: 'listPets 200', operation: 'listPets' },
    { case: 'showPetById 200', operation: 'showPetById' },
    { case: 'createPets 201 with a body', operation: 'createPets', needs: ['write'] },
  ],
  async (ctx, { operation }) => {
    const res = await responseWithPets(ctx, operation, false);
    if (operation === 'createPets' && res.body.length === 0) return; // a create without a body has no type
    expectApplicationJson(res);
  },
);

// An empty page, which a shortcut (`res.end('[]')`) may answer without the code that labels the list.
requirement.each(
  'ANY-JSON-CONTENT-TYPE',
  [{ case: 'listPets 200 of an empty page (limit=0)' }],
  async ({ api, skip }) => {
    const res = await api.get('/pets', { query: { limit: 0 } });
    // No minimum is declared, and a limit below 1 may be refused (LIST-LIMIT-BELOW-ONE judges how).
    if (!isSuccess(res.status))
      skip(
        `GET /pets?limit=0 answered ${res.status}, not a 2xx: there is no page to judge (a limit below 1 may be refused)`,
      );
    if (res.body.length === 0)
      skip(`GET /pets?limit=0 answered ${res.status} without a body: there is no type to judge`);
    expectApplicationJson(res);
  },
);

// ---------------------------------------------------------------- content negotiation

/** The Accept headers real clients send, each of which admits application/json (RFC 9110 §12.5.1). */
const ACCEPTS = [
  { who: 'curl', accept: '*/*' },
  { who: 'a client of any application type', accept: 'application/*' },
  { who: 'axios', accept: 'application/json, text/plain, */*' },
  { who: 'a client that prefers HTML and takes JSON', accept: 'text/html, application/json;q=0.5' },
  {
    who: "a browser's navigation",
    accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  },
];

/** Sends an operation's request, with the Accept header given or without one. */
type Negotiated = (accept: string | undefined) => Promise<ApiResponse>;

/**
 * Each operation, and what its documented answer is: the status, and the requirement that judges
 * that status where no Accept is sent. A create sends a fresh pet each time.
 */
const negotiatedOperations: {
  case: string;
  needs?: ['write'];
  status: string;
  answered: (status: number) => boolean;
  owner: string;
  prepare: (ctx: CheckContext) => Promise<Negotiated>;
}[] = [
  {
    case: 'listPets with the Accept headers clients send',
    status: 'status 200',
    answered: (status) => status === 200,
    owner: 'LIST-OK',
    prepare:
      async ({ api }) =>
      (accept) =>
        api.get('/pets', accept ? { headers: { accept } } : {}),
  },
  {
    case: 'showPetById with the Accept headers clients send',
    status: 'status 200',
    answered: (status) => status === 200,
    owner: 'SHOW-OK',
    // A pet shown with 200 (created and found, or listed): its show without an Accept is documented.
    prepare: async (ctx) => {
      const { id } = await aPetToShow(ctx);
      return (accept) => ctx.api.get(petPath(id), accept ? { headers: { accept } } : {});
    },
  },
  {
    case: 'createPets with the Accept headers clients send',
    needs: ['write'],
    status: 'a 2xx status',
    answered: isSuccess,
    owner: 'CREATE-OK',
    prepare:
      async ({ api, newPet }) =>
      (accept) =>
        api.post('/pets', { json: newPet(), ...(accept ? { headers: { accept } } : {}) }),
  },
];

/** "200 labelled text/html, …": what an answer was, its Content-Type named. */
function withType(res: ApiResponse): string {
  const type = res.headers['content-type'];
  return `${describeResponse(res)}${res.body.length > 0 ? `; Content-Type: ${type ?? '(none)'}` : ''}`;
}

// Every Accept a client sends admits JSON, and JSON is what the service answers in: each is answered
// as the request without an Accept is. One answered otherwise is this requirement's only when the
// request without an Accept is answered as documented (the operation's own requirement judges that).
requirement.each('ANY-ACCEPT-JSON', negotiatedOperations, async (ctx, row) => {
  const send = await row.prepare(ctx);
  const answers = await inParallel(ACCEPTS, ACCEPTS.length, ({ accept }) => send(accept));
  const documented = (res: ApiResponse) =>
    row.answered(res.status) && (res.body.length === 0 || isApplicationJson(res.headers['content-type']));
  const wrong = answers.flatMap((res, i) => (documented(res) ? [] : [{ res, ...ACCEPTS[i]! }]));
  const [first, ...others] = wrong;
  if (first === undefined) return;
  const plain = await send(undefined);
  const asked = `${plain.request.method} ${new URL(plain.request.url).pathname}`;
  const needed = `${row.status} in JSON to ${asked} without an Accept, which this check compares with`;
  if (!row.answered(plain.status)) blocked([row.owner], plain, needed);
  if (!documented(plain)) blocked(['ANY-JSON-CONTENT-TYPE'], plain, needed);
  fail(
    first.res,
    `${row.status} and a body labelled application/json, as without an Accept, to each Accept that admits application/json (RFC 9110 §12.5.1: a 406 is for a request none of whose acceptable types the server has)`,
    `${withType(first.res)} to Accept: ${first.accept} (${first.who})${others.length > 0 ? `; also ${others.map((o) => `${o.res.status} to Accept: ${o.accept}`).join('; ')}` : ''}; without an Accept: ${withType(plain)}`,
  );
});

// RFC 9110 §12.5.1: an Accept that excludes every type the server has may be honoured (406) or
// disregarded (the answer without an Accept). Either conforms; anything else is observed (MAY). An
// answer the same as without an Accept disregarded it: what that answer is, is LIST-OK's and
// ANY-JSON-CONTENT-TYPE's to judge.
requirement('ANY-ACCEPT-NOT-JSON', async ({ api }) => {
  const res = await api.get('/pets', { headers: { accept: 'text/html' } });
  if (res.status === 406) return;
  if (res.status === 200 && isApplicationJson(res.headers['content-type'])) return;
  const plain = await api.get('/pets');
  const needed = 'status 200 in JSON to GET /pets without an Accept, which this check compares with';
  if (res.status === plain.status && res.headers['content-type'] === plain.headers['content-type']) {
    if (plain.status !== 200) blocked(['LIST-OK'], plain, needed);
    blocked(['ANY-JSON-CONTENT-TYPE'], plain, needed);
  }
  fail(
    res,
    'status 406 (the Accept honoured) or the JSON answer GET /pets gets without an Accept (the Accept disregarded), RFC 9110 §12.5.1',
    `${withType(res)} to Accept: text/html; without an Accept: ${withType(plain)}`,
  );
});

const errorRequests: {
  case: string;
  needs?: ['write'];
  send: (ctx: CheckContext) => Promise<ApiResponse>;
}[] = [
  { case: 'GET /pets?limit=101', send: ({ api }) => api.get('/pets', { query: { limit: 101 } }) },
  { case: 'GET /pets/{an unknown id}', send: ({ api, freshId }) => api.get(petPath(freshId())) },
  { case: 'GET an unknown path', send: ({ api }) => api.get('/no-such-resource') },
  {
    case: 'POST /pets with malformed JSON',
    needs: ['write'],
    send: ({ api }) =>
      api.post('/pets', { body: '{"id": ', headers: { 'content-type': 'application/json' } }),
  },
  // Errors a framework may answer before the service's code runs, with a page of its own.
  {
    case: 'PUT /pets/{a pet this check created}, a method not allowed',
    needs: ['write'],
    send: (ctx) => undefinedMethod(ctx, 'PUT'),
  },
  {
    // A fresh, tagged pet, as ANY-NO-5XX sends it: a lenient server that takes it touches no other pet.
    case: 'POST /pets with Content-Type text/plain, a media type not supported',
    needs: ['write'],
    send: ({ api, newPet }) =>
      api.post('/pets', { body: stringifyExact(newPet()), headers: { 'content-type': 'text/plain' } }),
  },
];

requirement.each('ANY-ERROR-JSON', errorRequests, async (ctx, row) => {
  const res = await row.send(ctx);
  if (res.status < 400)
    ctx.skip(`the server answered ${res.status}, not an error, so there is no error body to judge`);
  if (res.body.length === 0) return;
  const expected = 'an error body labelled application/json or application/problem+json that parses as JSON';
  if (!isJsonMediaType(res.headers['content-type'])) {
    fail(
      res,
      expected,
      `${res.status} with ${res.headers['content-type'] ? `Content-Type ${res.headers['content-type']}` : 'no Content-Type'}, ${describeResponse(res)}`,
    );
  }
  readJson(res, expected);
});

type Probe = readonly [method: string, path: string, options?: RequestOptions];

function reads(ctx: CheckContext): Probe[] {
  const unknown = ctx.freshId();
  return [
    ['GET', '/pets'],
    ...[
      '1',
      '100',
      '101',
      '0',
      '-1',
      'abc',
      '1.5',
      '',
      '2147483648',
      '9223372036854775808',
      '1e2',
      '%00',
      ' 1',
    ].map((limit): Probe => ['GET', '/pets', { query: { limit } }]),
    ['GET', '/pets?limit=1&limit=2'],
    ['GET', petPath(unknown)],
    ...[
      'abc',
      '1.5',
      '-1',
      '0',
      '9223372036854775808',
      '-9223372036854775809',
      'x'.repeat(2000),
      '%',
      ' ',
    ].map((id): Probe => ['GET', petPath(id)]),
    ['GET', '/pets/'],
    ['GET', '/no-such-resource'],
    // Safe, but not GET: --read-only promises GET alone.
    ...(ctx.config.readOnly
      ? []
      : ([
          ['HEAD', '/pets'],
          ['OPTIONS', '/pets'],
        ] as Probe[])),
  ];
}

async function writes(ctx: CheckContext): Promise<Probe[]> {
  const own = ctx.newPet();
  await createPet(ctx.api, own);
  const json = { 'content-type': 'application/json' };
  const pet = ctx.newPet();
  return [
    ['POST', '/pets', { json: ctx.newPet() }],
    ['POST', '/pets', { json: { ...ctx.newPet(), status: 'sold', extra: { nested: [1, 2] } } }],
    ['POST', '/pets', { json: own }],
    ['POST', '/pets', { json: { name: 'no id' } }],
    ['POST', '/pets', { json: { id: pet.id } }],
    ['POST', '/pets', { json: { ...pet, id: 'abc' } }],
    // Ids a lax server could keep, fresh each run (freshIdLike): an earlier run's would answer 409.
    ['POST', '/pets', { json: { ...pet, id: freshIdLike(1.5) } }],
    ['POST', '/pets', { json: { ...pet, id: freshIdLike(9223372036854775808n) } }],
    ['POST', '/pets', { json: { ...pet, id: freshIdLike(-(2n ** 70n)) } }],
    ['POST', '/pets', { json: { ...pet, name: null } }],
    ['POST', '/pets', { json: { ...pet, name: { first: 'a' } } }],
    ['POST', '/pets', { json: { ...pet, tag: 7 } }],
    ['POST', '/pets', { json: { ...pet, status: 'gone' } }],
    ['POST', '/pets', { json: [pet] }],
    ['POST', '/pets', { json: null }],
    ['POST', '/pets', { body: '{"id": ', headers: json }],
    ['POST', '/pets', { body: '', headers: json }],
    ['POST', '/pets', { body: '\u0000\u00ff', headers: json }],
    ['POST', '/pets', { body: '{"id": 1e400, "name": "huge"}', headers: json }],
    // Integers in the other forms JSON allows, a zero fraction and an exponent (fresh, tagged pets).
    [
      'POST',
      '/pets',
      { body: stringifyExact(ctx.newPet()).replace(/"id":(-?\d+)/, '"id":$1.0'), headers: json },
    ],
    [
      'POST',
      '/pets',
      { body: stringifyExact(ctx.newPet()).replace(/"id":(-?\d+)/, '"id":$1e0'), headers: json },
    ],
    // Fresh, tagged pets even where the server should refuse: a lenient one must not touch pet 1.
    ['POST', '/pets', { body: stringifyExact(ctx.newPet()), headers: { 'content-type': 'text/plain' } }],
    ['POST', '/pets', { body: stringifyExact(ctx.newPet()) }],
    [
      'POST',
      '/pets',
      {
        body: `id=${ctx.freshId()}&name=x`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      },
    ],
    ['PUT', petPath(own.id), { json: own }],
    ['PATCH', petPath(own.id), { json: { name: 'patched' } }],
    ['DELETE', petPath(own.id)],
  ];
}

requirement.each(
  'ANY-NO-5XX',
  [
    { case: 'valid and invalid reads', probes: async (ctx: CheckContext) => reads(ctx) },
    { case: 'valid and invalid writes', needs: ['write'], probes: writes },
  ],
  async (ctx, { probes }) => {
    // All at once (some thirty, fewer than CONCURRENT_CREATES): none needs another's answer, and the
    // run's pace (harness/http/pace.ts) keeps the run within what the deployment allows.
    const all = await probes(ctx);
    const sent = await inParallel(all, all.length, ([method, path, options]) =>
      ctx.api.request(method, path, options),
    );
    const failed = sent.filter((res) => res.status >= 500);
    if (failed.length > 0) {
      const [first] = failed as [ApiResponse, ...ApiResponse[]];
      const others = failed
        .slice(1)
        .map((res) => `${res.status} to ${res.request.method} ${res.request.url}`);
      fail(
        first,
        `no 5xx status to any of ${sent.length} requests`,
        `${describeResponse(first)} to ${first.request.method} ${first.request.url}${others.length ? `; also ${others.join('; ')}` : ''}`,
      );
    }
  },
);

const KIB = 1024;

/**
 * Requests of the sizes a client may send, which servers commonly refuse (nginx past 8 KiB, node:http
 * past 16 KiB of request line and headers): each a list read, its target or a header field made long.
 */
const largeRequests = [
  { what: 'a request target of 16 KiB', query: 16 * KIB },
  { what: 'a request target of 64 KiB', query: 64 * KIB },
  { what: 'a header field of 16 KiB', header: 16 * KIB },
];

/**
 * A curl line whose long run of the letter a (single-quoted, as toCurl writes it) is made by the
 * shell instead: the line stays short, and sends the same bytes.
 */
function withLettersMadeBySh(reproduce: string): string {
  return reproduce.replace(/a{1024,}/, (run) => `'"$(head -c ${run.length} /dev/zero | tr '\\0' a)"'`);
}

// A server may refuse a request larger than it reads (414, 431, 400: RFC 9110 §15.5.15, RFC 9112 §3)
// or answer it, but not fail on it: a 5xx fails this; a connection dropped without an answer is
// ANY-HTTP-MESSAGE's (harness/http/client.ts), and blocks this check.
requirement.each(
  'ANY-NO-5XX',
  [{ case: 'requests of the sizes a client may send: a target of 16 and 64 KiB, a header of 16 KiB' }],
  async ({ api, config }) => {
    // The request target is the path and the query: its length less that of the path before ?x=.
    const before = `${new URL(config.baseUrl).pathname.replace(/\/+$/, '')}/pets?x=`.length;
    const sent = await inParallel(largeRequests, largeRequests.length, ({ query, header }) =>
      query
        ? api.get('/pets', { query: { x: 'a'.repeat(query - before) } })
        : api.get('/pets', { headers: { 'x-padding': 'a'.repeat(header!) } }),
    );
    const failed = sent.findIndex((res) => res.status >= 500);
    if (failed < 0) return;
    const res = sent[failed]!;
    const { what } = largeRequests[failed]!;
    const others = sent.filter((r, i) => i !== failed && r.status >= 500).length;
    throw new ConformanceError({
      expected: `a 4xx (414, 431 or 400) or the list, not a 5xx, to GET /pets with ${what}`,
      received: `${describeResponse(res)} to GET /pets with ${what}${others > 0 ? `; ${others} more of the ${sent.length} sizes answered 5xx` : ''}`,
      reproduce: withLettersMadeBySh(res.reproduce),
      exchanges: [res.exchange],
    });
  },
);

// Every answer of the run is held to this (harness/http/client.ts): one that is not a complete HTTP
// message fails it, whichever check received it, and that check is blocked by it. Its own check
// reads each operation's plainest answers, and (in the first phase: create/create.checks.ts) a
// request on a connection where the one before it left a body.
requirement.each(
  'ANY-HTTP-MESSAGE',
  [
    { case: 'GET /pets', send: ({ api }: CheckContext) => api.get('/pets') },
    {
      case: 'GET /pets?limit=100',
      send: ({ api }: CheckContext) => api.get('/pets', { query: { limit: 100 } }),
    },
    {
      case: 'GET /pets/{an unknown id}',
      send: ({ api, freshId }: CheckContext) => api.get(petPath(freshId())),
    },
    {
      case: 'POST /pets',
      needs: ['write' as const],
      send: ({ api, newPet }: CheckContext) => api.post('/pets', { json: newPet() }),
    },
  ],
  async (ctx, { send }) => {
    // The client throws for an answer that is not a complete message; any status will do here.
    const res = await send(ctx);
    if (res.truncated)
      ctx.skip(`the answer is longer than the suite reads (${res.body.length} bytes): its end is not judged`);
  },
);

const undefinedMethods = [
  { case: 'PUT /pets/{id}', method: 'PUT' },
  { case: 'PATCH /pets/{id}', method: 'PATCH' },
  { case: 'DELETE /pets/{id}', method: 'DELETE' },
];

/** Sends a method the contract does not define to a pet this check created. */
async function undefinedMethod(ctx: CheckContext, method: string): Promise<ApiResponse> {
  const pet = ctx.newPet();
  await createPet(ctx.api, pet);
  return ctx.api.request(
    method,
    petPath(pet.id),
    method === 'DELETE' ? {} : { json: { ...pet, name: 'changed' } },
  );
}

requirement.each('ANY-METHOD-UNDEFINED', undefinedMethods, async (ctx, { method }) => {
  const res = await undefinedMethod(ctx, method);
  if (res.status >= 200 && res.status <= 299)
    fail(res, `a status other than 2xx (${method} is not an operation of the contract)`);
});

/** A method beyond the three, which a server may not implement: a 501 is HTTP's answer then (RFC 9110 §9.1). */
const unimplemented = { mayBeUnimplemented: true } as const;

/** Methods beyond PUT, PATCH and DELETE, each sent where a server that takes it would do harm. */
const otherMethods: { case: string; send: (ctx: CheckContext) => Promise<ApiResponse[]> }[] = [
  // Sent with the key, as every request of the run: a guard refuses one without it before any echo.
  { case: 'TRACE /pets', send: async ({ api }) => [await api.request('TRACE', '/pets', unimplemented)] },
  {
    // A proxy's client asks for a tunnel to a host and port; a server that opens one is an open proxy.
    case: 'CONNECT to the host and port of the base URL (an authority-form target)',
    // A server that opens no tunnels may close the connection without an answer: node:http does so
    // unless it listens for CONNECT (an Express or plain node:http app). No tunnel: its refusal.
    send: async ({ api, note }) => {
      try {
        return [
          await api.request('CONNECT', '/pets', {
            ...unimplemented,
            target: 'authority',
            closedIsRefusal: true,
          }),
        ];
      } catch (err) {
        if (!isClosedWithoutAnswer(err)) throw err;
        await note(`CONNECT was refused by closing the connection without an answer (${err.received})`);
        return [];
      }
    },
  },
  {
    // A cache's method (Varnish, Squid), in no registry: a 2xx means something in front takes it.
    case: "PURGE /pets, a cache's method no registry lists",
    send: async ({ api }) => [await api.request('PURGE', '/pets', unimplemented)],
  },
  {
    case: "WebDAV's PROPFIND and MOVE on a pet this check created",
    send: async (ctx) => {
      const pet = ctx.newPet();
      await createPet(ctx.api, pet);
      const destination = `${ctx.config.baseUrl.replace(/\/+$/, '')}${petPath(ctx.freshId())}`;
      return Promise.all([
        ctx.api.request('PROPFIND', petPath(pet.id), { ...unimplemented, headers: { depth: '0' } }),
        ctx.api.request('MOVE', petPath(pet.id), { ...unimplemented, headers: { destination } }),
      ]);
    },
  },
];

/** Whether an answer reflects the request it answers, as TRACE may (RFC 9110 §9.3.8): message/http, or its request line. */
function echoesRequest(res: ApiResponse): boolean {
  const type = (res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'message/http' || /^TRACE \S+ HTTP\/\d/m.test(res.text);
}

requirement.each('ANY-METHOD-UNDEFINED', otherMethods, async (ctx, { send }) => {
  for (const res of await send(ctx)) {
    if (!isSuccess(res.status)) continue;
    const { method } = res.request;
    if (method === 'TRACE' && echoesRequest(res)) {
      // The key is masked wherever the answer is shown (evidence/redact.ts); here it is only named.
      const key = ctx.config.apiKey && res.text.includes(ctx.config.apiKey) ? ', the API key among them' : '';
      fail(
        res,
        'a status other than 2xx: TRACE is not an operation of the contract, and a TRACE reflected exposes the fields of the request to whatever can send one (cross-site tracing)',
        `${describeResponse(res)}: the request echoed back, its header fields${key} (masked here)`,
      );
    }
    fail(
      res,
      `a status other than 2xx (${method} is not an operation of the contract): 405, 501 or another refusal`,
    );
  }
});

/** The methods an Allow header lists, in upper case (none without the header). */
function allowed(res: ApiResponse): string[] {
  return (res.headers.allow ?? '').split(',').map((m) => m.trim().toUpperCase());
}

/** "404, empty body; no Allow header", "405, JSON object {…}; Allow: GET". */
function withAllow(res: ApiResponse): string {
  const allow = res.headers.allow;
  return `${describeResponse(res)}; ${allow === undefined ? 'no Allow header' : `Allow: ${allow}`}`;
}

requirement.each('ANY-METHOD-405', undefinedMethods, async (ctx, { method }) => {
  const res = await undefinedMethod(ctx, method);
  // Allow lists the methods the resource supports (RFC 9110 §15.5.6): never the one just refused.
  const expected = `status 405 with an Allow header that lists GET and not ${method}, the method refused (RFC 9110 §15.5.6)`;
  const allow = allowed(res);
  if (res.status !== 405 || !allow.includes('GET') || allow.includes(method))
    fail(res, expected, withAllow(res));
});

// OPTIONS is a method HTTP defines (RFC 9110 §9.3.7), which servers that speak CORS answer with a 2xx:
// either answer passes, so long as an Allow it carries lists what the collection allows.
requirement.each('ANY-METHOD-405', [{ case: 'OPTIONS /pets' }], async ({ api }) => {
  const res = await api.request('OPTIONS', '/pets');
  const listsBoth = ['GET', 'POST'].every((m) => allowed(res).includes(m));
  const answered =
    res.status === 405 ? listsBoth : isSuccess(res.status) && (res.headers.allow === undefined || listsBoth);
  if (!answered) {
    fail(
      res,
      'status 405 with an Allow header that lists GET and POST (RFC 9110 §15.5.6), or a 2xx whose Allow header, if it has one, lists them (RFC 9110 §9.3.7)',
      withAllow(res),
    );
  }
});

/** A GET that HEAD {path} is held to. */
type HeadTarget = (ctx: CheckContext) => Promise<{ path: string; res: ApiResponse }>;

// The GET the HEAD is held to; one that does not answer 200 blocks the check (LIST-OK judges it).
const theList: HeadTarget = async ({ api }) => {
  const res = await api.get('/pets');
  if (res.status !== 200) blocked(['LIST-OK'], res, 'status 200 to GET /pets, which HEAD /pets is held to');
  return { path: '/pets', res };
};

// createAndFind: a create refused, or a pet then not shown with 200, blocks the check.
const aPetCreated: HeadTarget = async ({ api, newPet }) => {
  const pet = newPet();
  return { path: petPath(pet.id), res: await createAndFind(api, pet) };
};

requirement.each(
  'ANY-METHOD-HEAD',
  [
    { case: 'HEAD /pets', get: theList },
    { case: 'HEAD /pets/{a pet this check created}', get: aPetCreated },
  ],
  async (ctx, { get }) => {
    const { path, res: got } = await get(ctx);
    const res = await ctx.api.request('HEAD', path);
    // RFC 9110 §9.3.2: the status and headers of the GET, without content.
    if (res.status !== got.status || res.body.length > 0) {
      const allow = res.headers.allow === undefined ? '' : `; Allow: ${res.headers.allow}`;
      fail(
        res,
        `status ${got.status}, as GET ${path} answered, and no body (RFC 9110 §9.3.2)`,
        `${describeResponse(res)}${allow}`,
      );
    }
  },
);

/** HEADs sent at most to find one the resource did not change around (other checks create pets). */
const HEAD_ATTEMPTS = 3;

/** Skips a row that compares a header of the HEAD when its status is not the GET's: the rows above judge that. */
function sameStatusOrSkip(ctx: CheckContext, path: string, head: ApiResponse, get: ApiResponse): void {
  if (head.status !== get.status)
    ctx.skip(
      `HEAD ${path} answered ${head.status} where GET answered ${get.status}, which the row of its status judges: no headers to compare`,
    );
}

/**
 * Holds a HEAD to the GET of the same path on one aspect (`agrees`). They are answered at different
 * moments, and the list may change in between (other checks create pets meanwhile): a HEAD that
 * disagrees with the GET before it is held to a GET sent right after it too, and is wrong only when
 * those two GETs are the same on the aspect (`same`), so that the resource stood still around it.
 * Otherwise another HEAD is sent, then another GET, HEAD_ATTEMPTS HEADs in all; a resource that
 * changed around each of them skips the row. Returns the HEAD found wrong and the GET after it.
 */
async function headDisagreement(
  ctx: CheckContext,
  path: string,
  first: { get: ApiResponse; head: ApiResponse },
  agrees: (head: ApiResponse, get: ApiResponse) => boolean,
  same: (a: ApiResponse, b: ApiResponse) => boolean,
): Promise<{ head: ApiResponse; get: ApiResponse } | undefined> {
  let { get: before, head } = first;
  for (let attempt = 1; ; attempt++) {
    sameStatusOrSkip(ctx, path, head, before);
    if (agrees(head, before)) return undefined;
    const after = await ctx.api.get(path);
    if (after.status !== before.status)
      ctx.skip(`GET ${path} answered ${after.status} after the HEAD, where it had answered ${before.status}`);
    if (agrees(head, after)) return undefined;
    if (same(before, after)) return { head, get: after };
    if (attempt === HEAD_ATTEMPTS)
      ctx.skip(
        `GET ${path} changed around each of ${HEAD_ATTEMPTS} HEADs (other checks create pets meanwhile): no HEAD could be held to a GET that stood still`,
      );
    before = after;
    head = await ctx.api.request('HEAD', path);
  }
}

/** Whether a HEAD's Content-Length, if it has one, is the length of a GET's body (repeated values each). */
function lengthAgrees(head: ApiResponse, get: ApiResponse): boolean {
  const length = head.headers['content-length'];
  return length === undefined || length.split(',').every((v) => v.trim() === String(get.body.length));
}

// RFC 9110 §8.6: a server MUST NOT send Content-Length in a HEAD response unless its value equals
// the length of the content the GET would have sent.
requirement.each(
  'ANY-METHOD-HEAD',
  [
    { case: "HEAD /pets: a Content-Length is the length of the GET's body", get: theList },
    {
      case: "HEAD /pets/{a pet this check created}: a Content-Length is the length of the GET's body",
      get: aPetCreated,
    },
  ],
  async (ctx, { get }) => {
    const { path, res: got } = await get(ctx);
    const head = await ctx.api.request('HEAD', path);
    sameStatusOrSkip(ctx, path, head, got);
    const length = head.headers['content-length'];
    if (length === undefined) ctx.skip(`HEAD ${path} sent no Content-Length, which it may leave out`);
    if (got.truncated)
      ctx.skip(`GET ${path} sent a body longer than the suite reads: its length is not known`);
    const wrong = await headDisagreement(ctx, path, { get: got, head }, lengthAgrees, (a, b) =>
      a.body.equals(b.body),
    );
    if (wrong) {
      const bytes = wrong.get.body.length;
      fail(
        wrong.head,
        `no Content-Length, or Content-Length: ${bytes}, the length of the body GET ${path} sends (RFC 9110 §8.6)`,
        `${wrong.head.status} with Content-Length: ${wrong.head.headers['content-length']}, where GET ${path} sent the same body of ${bytes} bytes before and after the HEAD`,
      );
    }
  },
);

// RFC 9110 §9.3.2: a server SHOULD send the same header fields in answer to HEAD as to GET; those of
// the deprecated show (service.md, Versioning) say when the operation goes away, to a HEAD as well.
requirement.each(
  'ANY-METHOD-HEAD',
  [{ case: "HEAD /pets/{a pet this check created}: Deprecation and Sunset as the GET's" }],
  async (ctx) => {
    const { path, res: got } = await aPetCreated(ctx);
    const names = ['Deprecation', 'Sunset'].filter((name) => got.headers[name.toLowerCase()] !== undefined);
    if (names.length === 0)
      ctx.skip(
        `GET ${path} carries neither Deprecation nor Sunset (SHOW-DEPRECATION-HEADER and SHOW-SUNSET-HEADER judge that): nothing the HEAD must repeat`,
      );
    /** "Deprecation: @1767225600; Sunset: (none)". */
    const fields = (res: ApiResponse) =>
      names.map((name) => `${name}: ${res.headers[name.toLowerCase()] ?? '(none)'}`).join('; ');
    const head = await ctx.api.request('HEAD', path);
    const agree = (a: ApiResponse, b: ApiResponse) => fields(a) === fields(b);
    const wrong = await headDisagreement(ctx, path, { get: got, head }, agree, agree);
    if (wrong) {
      fail(
        wrong.head,
        `${fields(wrong.get)}, as GET ${path} answered (RFC 9110 §9.3.2: the same header fields as GET)`,
        `${wrong.head.status} with ${fields(wrong.head)}`,
      );
    }
  },
);

requirement.each(
  'ANY-PATH-UNKNOWN',
  [
    { case: 'GET /no-such-resource', send: ({ api }: CheckContext) => api.get('/no-such-resource') },
    {
      case: 'GET /pets/{id}/no-such-resource',
      send: ({ api, freshId }: CheckContext) => api.get(`${petPath(freshId())}/no-such-resource`),
    },
    // Whatever the method, a path that names nothing is not found: a 405 would say it exists.
    {
      case: 'POST /no-such-resource',
      needs: ['write' as const],
      send: ({ api, newPet }: CheckContext) => api.post('/no-such-resource', { json: newPet() }),
    },
  ],
  async (ctx, { send }) => {
    expectStatus(await send(ctx), 404);
  },
);

// ---------------------------------------------------------------- authentication

/**
 * One request per operation of the pets service; the create row is a write, skipped under
 * --read-only. `refused` judges what a refused request left behind (a create's pet).
 */
const operations: {
  case: string;
  needs?: ['write'];
  send: (ctx: CheckContext, auth: RequestOptions['auth']) => Promise<ApiResponse>;
  refused?: (ctx: CheckContext, res: ApiResponse) => Promise<void>;
}[] = [
  {
    case: 'listPets',
    send: (ctx, auth) => ctx.api.get('/pets', { auth }),
  },
  {
    case: 'showPetById',
    send: (ctx, auth) => ctx.api.get(petPath(ctx.freshId()), { auth }),
  },
  {
    case: 'createPets',
    needs: ['write'],
    send: (ctx, auth) => ctx.api.post('/pets', { json: ctx.newPet(), auth }),
    refused: expectNoPetLeft,
  },
];

function expectRefused(res: ApiResponse, without: string): void {
  if (res.status !== 401 && res.status !== 403) fail(res, `status 401 or 403 (a request ${without})`);
}

/** The id of the pet a create sent, digit for digit. */
function idSent(res: ApiResponse): string {
  const body = parseExact(Buffer.from(res.request.body ?? []).toString('utf8')) as { id?: unknown };
  return String(exactInteger(body.id));
}

/**
 * A create refused for its key has no effect: its pet is then not shown with the key (404), nor
 * listed. A guard that runs after the handler answers 401 and stores the pet all the same. Without
 * --api-key there is no key to look with: noted, not judged.
 */
async function expectNoPetLeft(ctx: CheckContext, refused: ApiResponse): Promise<void> {
  const id = idSent(refused);
  if (!ctx.config.apiKey) {
    await ctx.note(
      `no --api-key: whether the create refused with ${refused.status} left pet ${id} is not looked for`,
    );
    return;
  }
  const [shown, listed] = await Promise.all([
    ctx.api.get(petPath(id)),
    ctx.api.get('/pets', { query: { limit: 100 } }),
  ]);
  const left = `the create refused with ${refused.status} stored pet ${id} all the same`;
  // Served: a 2xx that is the pet (any other 2xx to an unknown id is SHOW-UNKNOWN-NOT-2XX's).
  if (isSuccess(shown.status) && showsPet(shown, id))
    fail(
      shown,
      `no pet ${id}: its create was refused with ${refused.status}, and a refused request has no effect, so GET /pets/${id} with the key answers 404`,
      `${describeResponse(shown)}: ${left}`,
    );
  if (listed.status === 200 && listsPet(listed, id))
    fail(
      listed,
      `a list without pet ${id}: its create was refused with ${refused.status}, and a refused request has no effect`,
      `${describeResponse(listed)}, pet ${id} among them: ${left}`,
    );
}

/** Whether a show answer is the pet whose id is `id`, digit for digit. */
function showsPet(res: ApiResponse, id: string): boolean {
  try {
    return isPetWithId(parseExact(res.text), id);
  } catch {
    return false;
  }
}

/** Whether a list answer holds a pet whose id is `id`, digit for digit. */
function listsPet(res: ApiResponse, id: string): boolean {
  try {
    const items = parseExact(res.text);
    return Array.isArray(items) && items.some((item) => isPetWithId(item, id));
  } catch {
    return false;
  }
}

requirement.each('AUTH-KEY-ACCEPTED', operations, async (ctx, { send }) => {
  const res = await send(ctx, 'config');
  expectStatusNot(
    res,
    [401, 403],
    'a status other than 401 and 403 (the request carries the configured key)',
  );
});

requirement.each('AUTH-MISSING-KEY-REFUSED', operations, async (ctx, { send, refused }) => {
  const res = await send(ctx, 'none');
  expectRefused(res, 'without the key');
  await refused?.(ctx, res);
});

// A guard that checks the key on the exact path while the router matches paths in any case lets
// /v1/PETS through: the path names nothing (paths are case-sensitive, RFC 3986 §6.2.2.1), or it is refused.
requirement.each(
  'AUTH-MISSING-KEY-REFUSED',
  [{ case: "GET /PETS, the list's path in upper case" }],
  async ({ api }) => {
    const res = await api.get('/PETS', { auth: 'none' });
    if (isSuccess(res.status))
      fail(
        res,
        "a status other than 2xx (a request without the key, to a case variant of the list's path): 404, 401 or 403",
      );
  },
);

requirement.each('AUTH-WRONG-KEY-REFUSED', operations, async (ctx, { send, refused }) => {
  const res = await send(ctx, 'wrong');
  expectRefused(res, 'with a wrong key');
  await refused?.(ctx, res);
});

/** The resource a spelling asks for: the list, or a pet that exists (created, or read-only, listed). */
const spelledReads = [
  {
    case: 'listPets at other spellings of its path',
    queries: LIST_QUERIES,
    resource: async (_ctx: CheckContext) => ({
      path: '/pets',
      what: 'the list',
      serves: (body: unknown) => Array.isArray(body),
    }),
  },
  {
    case: 'showPetById at other spellings of its path',
    queries: QUERIES,
    // Created (or listed), not shown: a show that fails with the key says nothing of one without it.
    resource: async (ctx: CheckContext) => {
      const id = await aPetThatExists(ctx);
      return {
        path: petPath(id),
        what: `pet ${id}`,
        serves: (body: unknown) => isPetWithId(body, id),
      };
    },
  },
];

/** Whether a JSON body is an object whose id is `id`, digit for digit. */
function isPetWithId(body: unknown, id: string): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const shown = (body as { id?: unknown }).id;
  return exactInteger(shown)?.toString() === id || shown === id;
}

/**
 * Sends every spelling of a resource's path, with each query string and in absolute form too
 * (harness/contract/spellings.ts targetsOf), without the key or with a wrong one, at once, and fails
 * on the first that serves the resource: a 2xx with the list or the pet (a HEAD's 2xx, which carries
 * no body, serves its headers). Any other answer is left alone: whether a spelling names the
 * resource at all is not this requirement's to judge.
 */
async function expectNoSpellingServed(
  ctx: CheckContext,
  auth: 'none' | 'wrong',
  queries: readonly QueryForm[],
  resource: (
    ctx: CheckContext,
  ) => Promise<{ path: string; what: string; serves: (body: unknown) => boolean }>,
): Promise<void> {
  const { path, what, serves } = await resource(ctx);
  const spellings = targetsOf(path, ctx.config.readOnly, queries);
  const answers = await inParallel(
    spellings,
    spellings.length,
    ({ method, path: spelled, headers, absolute }) =>
      ctx.api.request(method, spelled, {
        auth,
        asWritten: true,
        ...(absolute ? { target: 'absolute' as const } : {}),
        ...(headers ? { headers } : {}),
      }),
  );
  const served = answers.flatMap((res, i) => {
    if (!isSuccess(res.status)) return [];
    if (res.request.method !== 'HEAD') {
      try {
        if (!serves(parseExact(res.text))) return [];
      } catch {
        return [];
      }
    }
    return [{ res, spelling: spellings[i]! }];
  });
  const [first, ...others] = served;
  if (first === undefined) return;
  const without = auth === 'none' ? 'without the key' : 'with a wrong key';
  const base = new URL(ctx.config.baseUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  const shown = ({ spelling }: { spelling: Spelling }) =>
    `${spelling.method} ${spelling.absolute ? base.origin : ''}${prefix}${spelling.path} (${spelling.case})`;
  fail(
    first.res,
    `no spelling of ${what}'s path serves it ${without}, in origin or absolute form, with a query or without: each refused, or not found (any 4xx), as the path as documented is`,
    `${shown(first)} served ${what} ${without}: ${describeResponse(first.res)}${others.length > 0 ? `; so did ${someOf(others.map(shown), 8)}` : ''}`,
  );
}

/** At most `max` items, then how many more: "a; b and 4 more". */
function someOf(items: readonly string[], max: number): string {
  if (items.length <= max) return items.join(', ');
  return `${items.slice(0, max).join(', ')} and ${items.length - max} more`;
}

requirement.each('AUTH-MISSING-KEY-REFUSED', spelledReads, async (ctx, { queries, resource }) => {
  await expectNoSpellingServed(ctx, 'none', queries, resource);
});

requirement.each('AUTH-WRONG-KEY-REFUSED', spelledReads, async (ctx, { queries, resource }) => {
  await expectNoSpellingServed(ctx, 'wrong', queries, resource);
});

// The key's header field in two lines, each a wrong key: RFC 9110 §5.3 lets a recipient combine them
// into one list ("a, b"), which is no key, and a guard that lets a repeated field through (a list it
// does not read) serves the request. The key beside a wrong one is not sent: a guard that reads the
// first line alone takes a key its sender holds.
requirement.each(
  'AUTH-WRONG-KEY-REFUSED',
  [{ case: "listPets with the key's header field twice, each line a wrong key" }],
  async ({ api, config, skip }) => {
    if (config.apiKeyQuery)
      skip('the key travels in a query parameter (--api-key-query), not in a header field of its own');
    const res = await api.get('/pets', { auth: 'wrong-twice' });
    if (![400, 401, 403].includes(res.status))
      fail(
        res,
        'status 401 or 403, or 400 for a field repeated that may not be (RFC 9110 §5.3: the two lines combined are no key either)',
      );
  },
);

/** The near misses of the key (harness/evidence/keys.ts): what each is, and why a key may have none. */
const nearMisses: Record<NearMiss, { what: string; none?: string }> = {
  'last-character-changed': { what: "the key's last character changed" },
  'case-flipped': {
    what: "the key's letters in the other case",
    none: 'the key has no letters (A-Z, a-z): no other case of it to send',
  },
  'character-appended': { what: 'a character appended to the key' },
  'first-half': {
    what: "the key's first half",
    none: `the key's first half is shorter than ${MIN_HALF_LENGTH} characters, too short to mask in the reports: not sent`,
  },
};

// A key compared loosely (on a prefix, up to the length sent, without case) takes keys near the
// configured one, which a wholly different key does not show. Sent to the list, a read.
requirement.each(
  'AUTH-WRONG-KEY-REFUSED',
  NEAR_MISSES.map((nearMiss) => ({
    case: `listPets with ${nearMisses[nearMiss].what}`,
    needs: ['key' as const],
    nearMiss,
  })),
  async ({ api, config, skip }, { nearMiss }) => {
    const { what, none } = nearMisses[nearMiss];
    if (nearMissKey(config.apiKey ?? '', nearMiss) === undefined) skip(none ?? `no key with ${what}`);
    expectRefused(await api.get('/pets', { auth: { nearMiss } }), `with ${what}`);
  },
);

// ---------------------------------------------------------------- versioning

requirement('VERSION-V1-PREFIX', async ({ api, config }) => {
  const res = await api.get('/pets');
  const path = new URL(config.baseUrl).pathname.replace(/\/+$/, '');
  if (!path.endsWith('/v1')) {
    fail(res, 'a base URL whose path ends in /v1', `the base URL ${config.baseUrl} (path ${path || '/'})`);
  }
  if (res.status === 404 || res.status >= 500)
    fail(res, `GET ${config.baseUrl}/pets answered by the service (not 404, not 5xx)`);
});

// ---------------------------------------------------------------- the store

requirement('STORE-ORDERS-EXISTS', async ({ api, note, skip }) => {
  const res = await api.get('/store/orders');
  await note(`GET /store/orders answered ${res.status}`);
  // A MAY that the deployment does not offer is not a failure; one it offers must not be broken.
  if (res.status === 404 || res.status === 405 || res.status === 501)
    skip(`not offered: GET /store/orders → ${res.status}`);
  if (res.status >= 500)
    fail(res, 'an answer without a server error (the operation is offered, so it must work)');
});

// ---------------------------------------------------------------- response time (--max-response-time)

// Every answer of every check is held to the budget in the roll-up, as ANY-NO-5XX is; this check
// times the plainest request of each operation, so that the requirement is judged under --only too.
requirement('ANY-RESPONSE-TIME', async (ctx) => {
  const budget = ctx.config.maxResponseTimeMs ?? Number.POSITIVE_INFINITY;
  const answers: ApiResponse[] = [
    await ctx.api.get('/pets'),
    await ctx.api.get('/pets', { query: { limit: 1 } }),
  ];
  if (!ctx.config.readOnly) {
    const pet = ctx.newPet();
    answers.push(await ctx.api.post('/pets', { json: pet }));
    answers.push(await ctx.api.get(petPath(pet.id)));
  }
  const slow = answers.filter((res) => res.answerMs > budget);
  const [slowest] = slow.sort((a, b) => b.answerMs - a.answerMs);
  if (slowest !== undefined) {
    fail(
      slowest,
      `every answer within ${budget} ms (--max-response-time)`,
      `${slowest.request.method} ${new URL(slowest.request.url).pathname}: ${Math.round(slowest.answerMs)} ms to answer ${slowest.status}${slow.length > 1 ? `; ${slow.length - 1} more of ${answers.length} over the budget` : ''}`,
    );
  }
});

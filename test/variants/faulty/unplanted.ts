/**
 * Faults of kinds the checks were not written against (issue 18): strings altered on the way in, a
 * list that never shows what was created, writes lost under concurrency, nothing stored at all. The
 * suite finds them by holding every answer against what the run created (suites/harness/model/model.ts)
 * and by generated sequences of operations (suites/create/create.checks.ts).
 */
import { isLosslessNumber, stringify } from 'lossless-json';
import { MAX_BODY_BYTES } from '../../../reference-impl/index.ts';
import { isCreateRequest, isUtf8, jsonOf, withRequestBody } from '../servers/body.ts';
import {
  afterCreate,
  compose,
  idText,
  isCreate,
  isHeadRequest,
  isList,
  isShow,
  type Json,
  jsonNumber,
  mapPets,
  rewriteJson,
  rewriteResponse,
  shownId,
  type Wrap,
} from '../servers/wrap.ts';
import type { Variant } from '../variant.ts';

const petObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !isLosslessNumber(v);

/** Hands the reference a create body changed by `change` (the bytes as they arrived, in and out). */
function changeCreateBody(change: (body: Buffer) => Buffer): Wrap {
  return withRequestBody(isCreateRequest, ({ body, forward }) =>
    forward(body.length > MAX_BODY_BYTES ? body : change(body)),
  );
}

/** A 404 as the reference writes it for an id it does not have (Deprecation and Sunset kept). */
function notFound(res: { headers: Record<string, unknown> }, id: string) {
  const body = JSON.stringify({
    type: 'about:blank',
    title: 'Not Found',
    status: 404,
    detail: `no pet has id ${JSON.stringify(id)}`,
  });
  return {
    status: 404,
    headers: { ...res.headers, 'content-type': 'application/problem+json' },
    body: Buffer.from(body),
  };
}

const isPet = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && 'id' in v;

/**
 * A store that keeps the pets in numbered slots and adds one by reading how many there are, waiting
 * (an await, as a database round trip would), and writing the pet into the next slot: creates that
 * overlap read the same count and write the same slot, and all but the last to write are lost, though
 * each was answered 201. A create that has the store to itself is kept, and no pet is lost but by a
 * create it overlapped with. The reference validates and answers as usual; lists and shows are served
 * from the slots.
 */
function readModifyWrite(waitMs: number): Wrap {
  const slots: string[] = [];
  const visible = new Set<string>();
  const serve = rewriteResponse((res, req) => {
    if (res.status !== 200) return res;
    if (isShow(req)) {
      const pet = jsonOf(res.body);
      return isPet(pet as Json) && !visible.has(idText((pet as Record<string, Json>).id))
        ? notFound(res, shownId(req.path))
        : res;
    }
    if (!isList(req)) return res;
    // The reference accepted the limit, so it is an integer of at most 100.
    const limit = req.query.has('limit') ? Number(req.query.get('limit')) : 100;
    return { ...res, body: Buffer.from(`[${slots.slice(0, Math.max(0, limit)).join(',')}]`) };
  });
  return (handler) => {
    const served = serve(handler);
    return (req, res) => {
      if (req.method !== 'POST' || !isCreateRequest(req)) return served(req, res);
      const slot = slots.length; // read
      const writeHead = res.writeHead.bind(res);
      const end = res.end.bind(res);
      let head: unknown[] | undefined;
      const chunks: Buffer[] = [];
      res.writeHead = ((...args: unknown[]) => {
        head = args;
        return res;
      }) as typeof res.writeHead;
      res.end = ((chunk?: unknown) => {
        if (chunk !== undefined && chunk !== null && typeof chunk !== 'function')
          chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
        const status = Number(head?.[0] ?? res.statusCode);
        const body = Buffer.concat(chunks);
        setTimeout(() => {
          const pet = status >= 200 && status <= 299 ? jsonOf(body) : undefined;
          if (isPet(pet as Json)) {
            // write: whatever another create wrote into this slot meanwhile is lost
            const id = idText((pet as Record<string, Json>).id);
            const before = slots[slot];
            if (before !== undefined)
              visible.delete(idText((jsonOf(Buffer.from(before)) as Record<string, Json>).id));
            slots[slot] = body.toString('utf8');
            visible.add(id);
          }
          if (head) writeHead(...(head as Parameters<typeof res.writeHead>));
          end(body);
        }, waitMs);
        return res;
      }) as typeof res.end;
      served(req, res);
    };
  };
}

/** Pets created while this server runs: shown by GET /pets/{id}, never listed. */
function listIgnoresCreates(): Wrap {
  const created = new Set<string>();
  return compose(
    rewriteResponse((res, req) => {
      if (!isCreate(req) || res.status < 200 || res.status > 299) return res;
      const pet = jsonOf(res.body);
      if (isPet(pet as Json)) created.add(idText((pet as Record<string, Json>).id));
      return res;
    }),
    rewriteJson(
      (body) => (Array.isArray(body) ? body.filter((p) => !isPet(p) || !created.has(idText(p.id))) : body),
      (req, res) => isList(req) && res.status === 200,
    ),
  );
}

/**
 * Cuts the page of GET /pets to `size(limit)` pets, where `limit` is the one asked for (undefined
 * when none was): the page sizes a server picks for itself, below what the client asked.
 */
function pageOf(size: (limit: number | undefined) => number): Wrap {
  return rewriteJson(
    (body, req) => {
      const asked = req.query.get('limit');
      return Array.isArray(body) ? body.slice(0, size(asked === null ? undefined : Number(asked))) : body;
    },
    (req, res) => isList(req) && res.status === 200,
  );
}

/**
 * Validates as the reference does and answers 201, but keeps nothing: every show is 404, every list
 * is empty, and a second create with the same id is 201 again (there is nothing for it to conflict with).
 */
const storesNothing: Wrap = compose(
  rewriteResponse((res, req) => {
    if (isCreate(req) && res.status === 409) return { status: 201, headers: {}, body: Buffer.alloc(0) };
    if (isShow(req) && res.status === 200) return notFound(res, shownId(req.path));
    if (isList(req) && res.status === 200) return { ...res, body: Buffer.from('[]') };
    return res;
  }),
);

/**
 * The bytes of a UTF-8 body read as Latin-1 (one character per byte), then written as UTF-8 again.
 * A body that is not UTF-8 goes on as it is: the server checks the encoding, then decodes wrongly.
 */
const latin1 = (body: Buffer) => (isUtf8(body) ? Buffer.from(body.toString('latin1'), 'utf8') : body);

/**
 * Sends a list whose body is 8 KiB or more only half way, then closes the connection: the status
 * and Content-Length of the whole, and the body cut short (a proxy's buffer, a worker that dies).
 */
const cutsLongLists: Wrap = (handler) => (req, res) => {
  if (req.method !== 'GET' || isHeadRequest(req) || !/\/pets\/?(\?|$)/.test(req.url ?? ''))
    return handler(req, res);
  const end = res.end.bind(res);
  res.end = ((chunk?: unknown) => {
    const body = Buffer.isBuffer(chunk) ? chunk : typeof chunk === 'string' ? Buffer.from(chunk) : undefined;
    if (!body || body.length < 8192) return end(chunk as Buffer);
    res.write(body.subarray(0, body.length >> 1));
    setImmediate(() => res.socket?.destroy());
    return res;
  }) as typeof res.end;
  handler(req, res);
};

/** Blocked when pets are lost: what a lost pet keeps from its checks (as concurrent-lost-writes declares). */
const LOST_PETS_BLOCK = [
  'ANY-PET-SCHEMA',
  'ANY-JSON-CONTENT-TYPE',
  'ANY-ACCEPT-JSON',
  'ANY-NO-5XX',
  'ANY-METHOD-UNDEFINED',
  'ANY-METHOD-405',
  'ANY-METHOD-HEAD',
  'LIST-LIMIT-AT-MOST',
  'LIST-LIMIT-FILLS',
  'LIST-LIMIT-DEFAULT',
  'CREATE-INT64-EXACT',
  'CREATE-DUPLICATE-ID',
  'CREATE-LOCATION',
  'SHOW-OK',
  'SHOW-UNKNOWN-NOT-2XX',
  'SHOW-ID-MALFORMED',
  'SHOW-DEPRECATION-HEADER',
  'SHOW-SUNSET-HEADER',
];

export const unplantedVariants: Variant[] = [
  {
    name: 'name-trimmed',
    kind: 'faulty',
    does: 'trims spaces and other white space from both ends of a name before keeping the pet',
    breaks: ['CREATE-PERSISTED'],
    server: {
      wrap: withRequestBody(isCreateRequest, ({ body, forward }) => {
        const pet = body.length > MAX_BODY_BYTES ? undefined : jsonOf(body);
        if (!petObject(pet) || typeof pet.name !== 'string') return forward();
        forward(Buffer.from(stringify({ ...pet, name: pet.name.trim() }) ?? ''));
      }),
    },
  },
  {
    name: 'body-read-as-latin1',
    kind: 'faulty',
    does: 'decodes a create body as Latin-1, so that Zoë is kept as ZoÃ« and 日本 as æ\u0097¥æ\u009c¬',
    breaks: ['CREATE-PERSISTED'],
    server: { wrap: changeCreateBody(latin1) },
  },
  {
    name: 'list-ignores-creates',
    kind: 'faulty',
    does: 'never lists a pet created after it started (GET /pets/{id} finds it)',
    breaks: ['LIST-LIMIT-FILLS'],
    blocks: ['LIST-LIMIT-AT-MOST', 'ANY-PET-SCHEMA'],
    server: { wrap: listIgnoresCreates() },
  },
  {
    name: 'page-short-at-100',
    kind: 'faulty',
    does: 'answers 99 pets to limit=100, though more exist (every other limit is served in full)',
    breaks: ['LIST-LIMIT-FILLS'],
    // Its own check is blocked on suspicion (a short page, unless the store lost pets); the model sees
    // the page leave out a pet the run created while it had room, and that is the failure named.
    says: {
      'LIST-LIMIT-FILLS':
        /a page that holds pet -?\d+, which this run created \(answered 201\) before the list was sent, since the page has room \(99 pet\(s\) of at most 100\)/,
    },
    server: { wrap: pageOf((limit) => (limit === 100 ? 99 : (limit ?? 100))) },
  },
  {
    name: 'page-capped-at-50',
    kind: 'faulty',
    does: 'never lists more than 50 pets, whatever the limit: a cap of its own below the declared maximum',
    breaks: ['LIST-LIMIT-FILLS'],
    server: { wrap: pageOf((limit) => Math.min(limit ?? 100, 50)) },
  },
  {
    name: 'default-page-20',
    kind: 'faulty',
    does: 'lists 20 pets when no limit is given, where the declared default is 100',
    breaks: ['LIST-LIMIT-FILLS'],
    server: { wrap: pageOf((limit) => limit ?? 20) },
  },
  {
    name: 'id-zero-refused',
    kind: 'faulty',
    does: 'refuses a pet whose id is 0 as if it had none (a check of the id that reads 0 as missing)',
    breaks: ['CREATE-INT64-EXACT'],
    server: {
      wrap: withRequestBody(isCreateRequest, ({ body, res, forward }) => {
        const pet = body.length > MAX_BODY_BYTES ? undefined : jsonOf(body);
        if (!petObject(pet) || String(pet.id) !== '0') return forward(body);
        const problem = '{"title":"Bad Request","status":400,"detail":"pet must have an id"}';
        res.writeHead(400, { 'content-type': 'application/problem+json', 'content-length': problem.length });
        res.end(problem);
      }),
    },
  },
  {
    name: 'text-cut-at-255',
    kind: 'faulty',
    does: 'keeps names and tags cut to their first 255 characters, as a column of 255 would',
    breaks: ['CREATE-PERSISTED'],
    server: {
      wrap: mapPets((pet) => ({
        ...pet,
        ...(typeof pet.name === 'string' ? { name: [...pet.name].slice(0, 255).join('') } : {}),
        ...(typeof pet.tag === 'string' ? { tag: [...pet.tag].slice(0, 255).join('') } : {}),
      })),
    },
  },
  {
    name: 'read-modify-write',
    kind: 'faulty',
    does: 'stores a pet by reading how many it keeps, waiting 3 ms and writing the pet into the next slot, so that overlapping creates overwrite each other',
    breaks: ['CREATE-CONCURRENT'],
    // CREATE-PERSISTED: its row of whole edge texts creates seven pets at once, and loses some to the race.
    blocks: [...LOST_PETS_BLOCK, 'CREATE-PERSISTED'],
    server: { wrap: readModifyWrite(3) },
  },
  {
    name: 'stores-nothing',
    kind: 'faulty',
    does: 'answers 201 to every valid create and keeps nothing: no pet is ever shown or listed',
    breaks: ['CREATE-PERSISTED'],
    blocks: [...LOST_PETS_BLOCK, 'CREATE-CONCURRENT'],
    server: { wrap: storesNothing },
  },
  {
    name: 'null-tag-dropped',
    kind: 'faulty',
    does: 'keeps the tag "null" as no tag (a column whose sentinel for no value is the text null)',
    breaks: ['CREATE-PERSISTED'],
    server: {
      wrap: afterCreate(() => (pet) => (pet.tag === 'null' ? (({ tag: _t, ...rest }) => rest)(pet) : pet)),
    },
  },
  {
    name: 'numbers-canonical',
    kind: 'faulty',
    does: 'keeps a name or tag that reads as a number through a double: "007" becomes "7", "1.50" "1.5"',
    breaks: ['CREATE-PERSISTED'],
    server: {
      wrap: afterCreate(() => (pet) => {
        const canonical = (v: Json | undefined) =>
          typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? String(Number(v)) : v;
        return {
          ...pet,
          ...(pet.name === undefined ? {} : { name: canonical(pet.name) as Json }),
          ...(pet.tag === undefined ? {} : { tag: canonical(pet.tag) as Json }),
        };
      }),
    },
  },
  {
    // A store that fills up and goes on answering 201. A default run creates about 170 pets (the
    // 101 that the lists need are counted among them): the cap is below that, so that pets it lost
    // are read again.
    name: 'lost-after-150',
    kind: 'faulty',
    does: 'answers 201 to every valid create, and keeps no pet after the 150th',
    // The pets of the checks that create alone (show.checks.ts runs them after the creates of
    // create.checks.ts) are lost too: lost with no other create in flight, CREATE-PERSISTED's fault.
    breaks: ['CREATE-CONCURRENT', 'CREATE-PERSISTED'],
    blocks: LOST_PETS_BLOCK,
    server: {
      // A count of its own for each server started.
      wrap: (handler) => {
        let creates = 0;
        return afterCreate(() => (++creates > 150 ? 'forget' : undefined))(handler);
      },
    },
  },
  {
    name: 'list-hides-sold',
    kind: 'faulty',
    does: 'leaves pets whose status is sold out of the list (WHERE status <> sold); shows them by id',
    breaks: ['LIST-LIMIT-FILLS'],
    server: {
      wrap: rewriteJson(
        (body) => (Array.isArray(body) ? body.filter((p) => !isPet(p) || p.status !== 'sold') : body),
        (req, res) => isList(req) && res.status === 200,
      ),
    },
  },
  {
    name: 'duplicate-listed-too',
    kind: 'faulty',
    does: 'refuses a second create of an id with 409, shows the first, and yet lists the second beside it',
    breaks: ['CREATE-DUPLICATE-ID'],
    server: {
      wrap: (handler) => {
        const sent = new WeakMap<object, string>();
        const refused: string[] = [];
        return compose(
          rewriteResponse((res, req, raw) => {
            const body = sent.get(raw);
            if (isCreate(req) && res.status === 409 && body !== undefined) refused.push(body);
            if (!isList(req) || res.status !== 200 || refused.length === 0) return res;
            // Added where the page has room, in place of its last pets where it has none (a page
            // longer than its limit would be another fault).
            const page = jsonOf(res.body);
            const limit = req.query.has('limit') ? Number(req.query.get('limit')) : 100;
            if (!Array.isArray(page) || limit < refused.length) return res;
            const kept = page.slice(0, Math.max(0, Math.min(page.length, limit - refused.length)));
            const items = [...kept.map((p) => stringify(p) ?? 'null'), ...refused].join(',');
            return { ...res, body: Buffer.from(`[${items}]`) };
          }),
          withRequestBody(isCreateRequest, ({ body, res, forward }) => {
            if (petObject(jsonOf(body))) sent.set(res, body.toString('utf8'));
            forward();
          }),
        )(handler);
      },
    },
  },
  {
    name: 'list-ids-rounded',
    kind: 'faulty',
    does: 'lists ids between 2^53 and 2^62 as they come out of a double (9007199254740993 as …992); shows them exactly',
    breaks: ['CREATE-INT64-EXACT'],
    server: {
      wrap: rewriteJson(
        (body) =>
          Array.isArray(body)
            ? body.map((p) => {
                if (!isPet(p)) return p;
                const id = BigInt(idText(p.id));
                const big = (id > 2n ** 53n && id < 2n ** 62n) || (id < -(2n ** 53n) && id > -(2n ** 62n));
                return big ? { ...p, id: jsonNumber(BigInt(Number(id)).toString()) } : p;
              })
            : body,
        (req, res) => isList(req) && res.status === 200,
      ),
    },
  },
  {
    name: 'location-id-rounded',
    kind: 'faulty',
    does: "writes the created pet's id into Location through a double: /v1/pets/9223372036854776000",
    breaks: ['CREATE-LOCATION'],
    server: {
      wrap: rewriteResponse((res, req) => {
        const location = res.headers.location;
        if (!isCreate(req) || res.status !== 201 || typeof location !== 'string') return res;
        return {
          ...res,
          headers: { ...res.headers, location: location.replace(/(-?\d+)$/, (d) => String(Number(d))) },
        };
      }),
    },
  },
  {
    name: 'long-lists-cut-short',
    kind: 'faulty',
    does: 'sends a list of 8 KiB or more half way, then closes the connection',
    breaks: ['ANY-HTTP-MESSAGE'],
    blocks: 'every other',
    server: { wrap: cutsLongLists },
  },
  {
    name: 'negative-cache',
    kind: 'faulty',
    does: 'caches a 404 to a show: a pet created after its id was shown as unknown stays not found',
    breaks: ['CREATE-PERSISTED'],
    server: {
      wrap: (handler) => {
        const unknown = new Set<string>();
        return rewriteResponse((res, req) => {
          if (!isShow(req)) return res;
          const id = shownId(req.path);
          if (res.status === 404) unknown.add(id);
          return res.status === 200 && unknown.has(id) ? notFound(res, id) : res;
        })(handler);
      },
    },
  },
  {
    name: 'bidi-controls-stripped',
    kind: 'faulty',
    does: 'keeps a name without its right-to-left marks and overrides ("sanitised" against spoofing)',
    breaks: ['CREATE-PERSISTED'],
    server: {
      wrap: afterCreate(
        () => (pet) =>
          typeof pet.name === 'string'
            ? { ...pet, name: pet.name.replace(/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '') }
            : pet,
      ),
    },
  },
];

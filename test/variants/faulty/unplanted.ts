/**
 * Faults of kinds the checks were not written against (issue 18): strings altered on the way in, a
 * list that never shows what was created, writes lost under concurrency, nothing stored at all. The
 * suite finds them by holding every answer against what the run created (suites/harness/model.ts)
 * and by generated sequences of operations (suites/cross/sequences.test.ts).
 */
import { isLosslessNumber, stringify } from 'lossless-json';
import { MAX_BODY_BYTES } from '../../../reference-impl/index.ts';
import { isCreateRequest, jsonOf, withRequestBody } from '../servers/body.ts';
import {
  compose,
  idText,
  isCreate,
  isList,
  isShow,
  type Json,
  rewriteJson,
  rewriteResponse,
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

/** The pet id a show asks for, as the path carries it (percent-decoded). */
function shownId(path: string): string {
  try {
    return decodeURIComponent(path.split('/').pop() ?? '');
  } catch {
    return '';
  }
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
 * A store that reads the collection, waits (an await, as a database round trip would), and writes
 * back what it read plus the new pet: creates that overlap overwrite each other, and all but the last
 * to write are lost, though each was answered 201. A create that has the store to itself is kept.
 * The reference validates and answers as usual; what is lost is left out of lists and shown as 404.
 */
function readModifyWrite(waitMs: number): Wrap {
  let visible = new Set<string>();
  const hidden = (id: string) => !visible.has(id);
  const keep = rewriteResponse((res, req) => {
    if (!(isList(req) || isShow(req)) || res.status !== 200) return res;
    const body = jsonOf(res.body);
    if (isShow(req)) return isPet(body) && hidden(idText(body.id)) ? notFound(res, idText(body.id)) : res;
    if (!Array.isArray(body)) return res;
    const kept = body.filter((pet) => !isPet(pet) || !hidden(idText(pet.id)));
    return { ...res, body: Buffer.from(stringify(kept) ?? '[]') };
  });
  return (handler) => {
    const served = keep(handler);
    return (req, res) => {
      if (req.method !== 'POST' || !isCreateRequest(req)) return served(req, res);
      // Read before the reference stores the pet, write after it answered: the await between.
      const read = new Set(visible);
      const end = res.end.bind(res);
      const writeHead = res.writeHead.bind(res);
      let head: unknown[] | undefined;
      const chunks: unknown[] = [];
      res.writeHead = ((...args: unknown[]) => {
        head = args;
        return res;
      }) as typeof res.writeHead;
      res.end = ((chunk?: unknown) => {
        if (chunk !== undefined && typeof chunk !== 'function') chunks.push(chunk);
        const status = Number(head?.[0] ?? res.statusCode);
        const body = Buffer.concat(chunks.map((c) => (Buffer.isBuffer(c) ? c : Buffer.from(String(c)))));
        setTimeout(() => {
          if (status >= 200 && status <= 299) {
            const pet = jsonOf(body);
            if (isPet(pet as Json)) read.add(idText((pet as Record<string, Json>).id));
            visible = read;
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

/** The bytes of a UTF-8 body read as Latin-1 (one character per byte), then written as UTF-8 again. */
const latin1 = (body: Buffer) => Buffer.from(body.toString('latin1'), 'utf8');

/** Blocked when pets are lost: what a lost pet keeps from its checks (as concurrent-lost-writes declares). */
const LOST_PETS_BLOCK = [
  'ANY-PET-SCHEMA',
  'ANY-JSON-CONTENT-TYPE',
  'ANY-NO-5XX',
  'ANY-METHOD-UNDEFINED',
  'ANY-METHOD-405',
  'LIST-LIMIT-AT-MOST',
  'LIST-LIMIT-FILLS',
  'LIST-LIMIT-DEFAULT',
  'CREATE-INT64-EXACT',
  'CREATE-DUPLICATE-ID',
  'SHOW-OK',
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
    name: 'read-modify-write',
    kind: 'faulty',
    does: 'stores a pet by reading the collection, waiting 3 ms and writing it back with the pet added, so that overlapping creates are lost',
    breaks: ['CREATE-CONCURRENT'],
    blocks: LOST_PETS_BLOCK,
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
];

/**
 * The servers that prove the suite: faulty ones it must fail (each breaks one behaviour of the
 * reference and declares the requirements that must catch it), conformant ones it must pass in
 * --strict mode although they differ from the reference where the contract allows, and hostile ones
 * that must make the run end by itself with exit 1.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { isLosslessNumber, stringify } from 'lossless-json';
import { answer, isCreateRequest, jsonOf, withRequestBody } from './body.ts';
import { type HostileServer, hostile } from './hostile.ts';
import {
  compose,
  idText,
  intercept,
  isCreate,
  isList,
  isShow,
  jsonNumber,
  mapPets,
  rewriteJson,
  rewriteRequest,
  rewriteResponse,
  type Wrap,
} from './wrap.ts';

export interface Variant {
  /** kebab-case, unique. */
  name: string;
  kind: 'faulty' | 'conformant' | 'hostile';
  /** What the server does differently from the reference, as a sentence. */
  does: string;
  /** Requirement ids that must fail against it (none for conformant variants). */
  breaks: string[];
  /** The reference with one behaviour changed, or a hostile server of its own. */
  server:
    | { wrap?: Wrap; apiKey?: string; apiKeyHeader?: string; apiKeyQuery?: string }
    | { hostile: HostileServer };
  /** Extra command-line options of the run (always run with --strict). */
  args?: string[];
}

const KEY = 'variant-key-5d1c0e';

const queryLimit = (url: string | undefined) => new URL(url ?? '/', 'http://x').searchParams.get('limit');

/** Rewrites the limit the reference sees, leaving other requests alone. */
function changeLimit(change: (limit: string | null) => string | null): Wrap {
  return rewriteRequest((req) => {
    if (req.method !== 'GET' || !/\/pets\/?(\?|$)/.test(req.url ?? '')) return;
    const url = new URL(req.url ?? '/', 'http://x');
    const next = change(url.searchParams.get('limit'));
    if (next === null) url.searchParams.delete('limit');
    else url.searchParams.set('limit', next);
    req.url = url.pathname + url.search;
  });
}

const isInt = (s: string | null): s is string => s !== null && /^-?\d+$/.test(s);
const petObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Forwards POST /pets after `fix` changed its JSON body (when it is a JSON object). */
function fixCreateBody(fix: (pet: Record<string, unknown>) => Record<string, unknown>): Wrap {
  return withRequestBody(isCreateRequest, ({ body, forward }) => {
    const pet = jsonOf(body);
    if (!petObject(pet)) return forward();
    forward(Buffer.from(stringify(fix(pet)) ?? ''));
  });
}

const isListRequest = (req: IncomingMessage) => req.method === 'GET' && /\/pets\/?(\?|$)/.test(req.url ?? '');

/** Streams a valid 50 MB JSON array of pets, minding backpressure, until done or the client leaves. */
function streamHugeList(res: ServerResponse): void {
  const item = Buffer.from(
    '{"id":1,"name":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"},'.repeat(1000),
  );
  const total = 50 * 1024 * 1024;
  let sent = 0;
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('[');
  const pump = () => {
    while (sent < total && !res.destroyed) {
      sent += item.length;
      if (!res.write(item)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end('{"id":1,"name":"last"}]');
  };
  pump();
}

let ghostCounter = 0;
const freshId = () => String(8_000_000_000_000 + Date.now() * 10 + (ghostCounter++ % 10));

export const variants: Variant[] = [
  // ------------------------------------------------------------------ faulty: shapes
  {
    name: 'id-as-string',
    kind: 'faulty',
    does: 'serves every pet id as a JSON string',
    breaks: ['ANY-PET-SCHEMA'],
    server: { wrap: mapPets((p) => ({ ...p, id: idText(p.id) })) },
  },
  {
    name: 'tag-null',
    kind: 'faulty',
    does: 'serves tag: null on every pet',
    breaks: ['ANY-PET-SCHEMA'],
    server: { wrap: mapPets((p) => ({ ...p, tag: null })) },
  },
  {
    name: 'list-name-missing',
    kind: 'faulty',
    does: 'leaves name out of the items of the list',
    breaks: ['ANY-PET-SCHEMA'],
    server: {
      wrap: rewriteJson(
        (body) => (Array.isArray(body) ? body.map(({ name: _name, ...rest }) => rest) : body),
        (req, res) => isList(req) && res.status === 200,
      ),
    },
  },
  {
    name: 'status-other-case',
    kind: 'faulty',
    does: 'serves status in upper case (AVAILABLE), outside the enum',
    breaks: ['ANY-PET-SCHEMA'],
    server: { wrap: mapPets((p) => ({ ...p, status: String(p.status ?? 'available').toUpperCase() })) },
  },
  {
    name: 'list-wrapped',
    kind: 'faulty',
    does: 'wraps the list in an object: {"items": [...]}',
    breaks: ['LIST-OK'],
    server: {
      wrap: rewriteJson(
        (body) => ({ items: body }),
        (req, res) => isList(req) && res.status === 200,
      ),
    },
  },
  {
    name: 'show-wrapped',
    kind: 'faulty',
    does: 'wraps the pet it shows in an object: {"pet": {...}}',
    breaks: ['SHOW-OK'],
    server: {
      wrap: rewriteJson(
        (body) => ({ pet: body }),
        (req, res) => isShow(req) && res.status === 200,
      ),
    },
  },
  {
    name: 'json-as-text-plain',
    kind: 'faulty',
    does: 'labels its JSON responses text/plain',
    breaks: ['ANY-JSON-CONTENT-TYPE'],
    server: {
      wrap: rewriteResponse((res) =>
        /json/.test(String(res.headers['content-type']))
          ? { ...res, headers: { ...res.headers, 'content-type': 'text/plain' } }
          : res,
      ),
    },
  },
  {
    name: 'int64-lossy',
    kind: 'faulty',
    does: 'passes ids through a JS double, so ids above 2^53 lose digits',
    breaks: ['CREATE-INT64-EXACT'],
    server: { wrap: mapPets((p) => ({ ...p, id: jsonNumber(String(Number(idText(p.id)))) })) },
  },
  // ------------------------------------------------------------------ faulty: limit
  {
    name: 'limit-ignored',
    kind: 'faulty',
    does: 'ignores limit and always answers up to 100 pets',
    breaks: ['LIST-LIMIT-AT-MOST'],
    server: { wrap: changeLimit((limit) => (isInt(limit) && Number(limit) <= 100 ? null : limit)) },
  },
  {
    name: 'limit-plus-one',
    kind: 'faulty',
    does: 'answers one pet more than limit asks for',
    breaks: ['LIST-LIMIT-AT-MOST'],
    server: {
      wrap: changeLimit((limit) =>
        isInt(limit) && Number(limit) >= 1 && Number(limit) < 100 ? String(Number(limit) + 1) : limit,
      ),
    },
  },
  {
    name: 'limit-minus-one',
    kind: 'faulty',
    does: 'answers one pet fewer than limit asks for, though more exist',
    breaks: ['LIST-LIMIT-FILLS'],
    server: {
      wrap: changeLimit((limit) =>
        isInt(limit) && Number(limit) > 1 && Number(limit) <= 100 ? String(Number(limit) - 1) : limit,
      ),
    },
  },
  {
    name: 'limit-over-max-accepted',
    kind: 'faulty',
    does: 'accepts a limit above 100 and answers 100 pets',
    breaks: ['LIST-LIMIT-OVER-MAX'],
    server: { wrap: changeLimit((limit) => (isInt(limit) && BigInt(limit) > 100n ? '100' : limit)) },
  },
  {
    name: 'limit-max-rejected',
    kind: 'faulty',
    does: 'rejects limit=100, the declared maximum, with 400',
    breaks: ['LIST-LIMIT-MAX-ACCEPTED'],
    server: {
      wrap: intercept((req, res) => {
        if (req.method !== 'GET' || queryLimit(req.url) !== '100') return false;
        answer(res, 400, '{"title":"limit too large"}', 'application/problem+json');
        return true;
      }),
    },
  },
  {
    name: 'default-not-capped',
    kind: 'faulty',
    does: 'answers more than 100 pets when limit is omitted',
    breaks: ['LIST-LIMIT-DEFAULT'],
    server: {
      wrap: rewriteJson(
        (body) => (Array.isArray(body) && body.length > 0 ? [...body, body[0]] : body),
        (req, res) => isList(req) && !req.query.has('limit') && res.status === 200,
      ),
    },
  },
  {
    name: 'non-integer-limit-500',
    kind: 'faulty',
    does: 'answers 500 to a limit that is not an integer',
    breaks: ['LIST-LIMIT-NOT-INTEGER', 'ANY-NO-5XX'],
    server: {
      wrap: intercept((req, res) => {
        const limit = queryLimit(req.url);
        if (req.method !== 'GET' || limit === null || isInt(limit)) return false;
        answer(res, 500, '{"title":"NumberFormatException"}', 'application/problem+json');
        return true;
      }),
    },
  },
  // ------------------------------------------------------------------ faulty: create
  {
    name: 'create-answers-200',
    kind: 'faulty',
    does: 'answers 200 instead of 201 to a create',
    breaks: ['CREATE-OK'],
    server: {
      wrap: rewriteResponse((res, req) =>
        isCreate(req) && res.status === 201 ? { ...res, status: 200 } : res,
      ),
    },
  },
  {
    name: 'create-body-message',
    kind: 'faulty',
    does: 'answers a create with 201 and {"message": "Pet created"} instead of the pet (allowed: MAY only)',
    breaks: ['CREATE-RESPONSE-PET'],
    server: {
      wrap: rewriteResponse((res, req) =>
        isCreate(req) && res.status === 201
          ? { ...res, body: Buffer.from('{"message":"Pet created"}') }
          : res,
      ),
    },
  },
  {
    name: 'malformed-json-500',
    kind: 'faulty',
    does: 'answers 500 to a body that is not JSON',
    breaks: ['CREATE-MALFORMED-JSON', 'ANY-NO-5XX'],
    server: {
      wrap: withRequestBody(isCreateRequest, ({ body, res, forward }) => {
        if (jsonOf(body) === undefined)
          answer(res, 500, '{"title":"SyntaxError"}', 'application/problem+json');
        else forward();
      }),
    },
  },
  {
    name: 'missing-name-accepted',
    kind: 'faulty',
    does: 'accepts a pet without a name (it names it "unnamed")',
    breaks: ['CREATE-MISSING-REQUIRED'],
    server: { wrap: fixCreateBody((pet) => ('name' in pet ? pet : { ...pet, name: 'unnamed' })) },
  },
  {
    name: 'unknown-status-accepted',
    kind: 'faulty',
    does: 'accepts a status outside the enum (and drops it)',
    breaks: ['CREATE-STATUS-OUTSIDE-ENUM'],
    server: {
      wrap: fixCreateBody((pet) => {
        if (!('status' in pet) || ['available', 'pending', 'sold'].includes(pet.status as string)) return pet;
        const { status: _status, ...rest } = pet;
        return rest;
      }),
    },
  },
  {
    name: 'string-id-accepted',
    kind: 'faulty',
    does: 'accepts an id sent as a JSON string',
    breaks: ['CREATE-WRONG-TYPE'],
    server: {
      wrap: fixCreateBody((pet) =>
        typeof pet.id === 'string'
          ? { ...pet, id: BigInt(/^-?\d{1,18}$/.test(pet.id) ? pet.id : freshId()) }
          : pet,
      ),
    },
  },
  {
    name: 'validation-off',
    kind: 'faulty',
    does: 'accepts any JSON object as a pet, repairing what is missing or wrong',
    breaks: [
      'CREATE-INVALID-GENERATED',
      'CREATE-MISSING-REQUIRED',
      'CREATE-WRONG-TYPE',
      'CREATE-STATUS-OUTSIDE-ENUM',
    ],
    server: {
      wrap: fixCreateBody((pet) => {
        const id =
          isLosslessNumber(pet.id) && /^-?\d{1,18}$/.test(pet.id.toString())
            ? BigInt(pet.id.toString())
            : BigInt(freshId());
        const repaired: Record<string, unknown> = {
          id,
          name: typeof pet.name === 'string' ? pet.name : 'repaired',
        };
        if (typeof pet.tag === 'string') repaired.tag = pet.tag;
        if (['available', 'pending', 'sold'].includes(pet.status as string)) repaired.status = pet.status;
        return repaired;
      }),
    },
  },
  {
    name: 'id-range-unchecked',
    kind: 'faulty',
    does: 'accepts ids outside int64, wrapping them into range',
    breaks: ['CREATE-ID-OUT-OF-RANGE'],
    server: {
      wrap: fixCreateBody((pet) => {
        if (!isLosslessNumber(pet.id) || !/^-?\d+$/.test(pet.id.toString())) return pet;
        return { ...pet, id: BigInt.asIntN(64, BigInt(pet.id.toString())) };
      }),
    },
  },
  {
    name: 'negative-id-rejected',
    kind: 'faulty',
    does: 'rejects valid pets whose id is negative',
    breaks: ['CREATE-VALID-GENERATED'],
    server: {
      wrap: withRequestBody(isCreateRequest, ({ body, res, forward }) => {
        const pet = jsonOf(body);
        if (petObject(pet) && isLosslessNumber(pet.id) && pet.id.toString().startsWith('-')) {
          answer(res, 400, '{"title":"id must be positive"}', 'application/problem+json');
        } else forward();
      }),
    },
  },
  {
    name: 'array-body-accepted',
    kind: 'faulty',
    does: 'answers 201 to a JSON body that is an array',
    breaks: ['CREATE-NOT-AN-OBJECT'],
    server: {
      wrap: withRequestBody(isCreateRequest, ({ body, res, forward }) => {
        if (Array.isArray(jsonOf(body))) answer(res, 201);
        else forward();
      }),
    },
  },
  {
    name: 'media-type-ignored',
    kind: 'faulty',
    does: 'reads a text/plain body as JSON',
    breaks: ['CREATE-UNSUPPORTED-MEDIA-TYPE'],
    server: {
      wrap: rewriteRequest((req) => {
        if (req.method === 'POST') req.headers['content-type'] = 'application/json';
      }),
    },
  },
  {
    name: 'large-body-dropped',
    kind: 'faulty',
    does: 'drops the connection on a body over 1 MiB instead of answering',
    breaks: ['CREATE-BODY-TOO-LARGE'],
    server: {
      wrap: intercept((req) => {
        if (req.method !== 'POST' || Number(req.headers['content-length'] ?? 0) <= 1024 * 1024) return false;
        req.socket.destroy();
        return true;
      }),
    },
  },
  {
    name: 'not-persisted',
    kind: 'faulty',
    does: 'answers 201 to a valid create without keeping the pet',
    breaks: ['CREATE-PERSISTED'],
    server: {
      wrap: withRequestBody(isCreateRequest, ({ body, res, forward }) => {
        const pet = jsonOf(body);
        if (petObject(pet) && isLosslessNumber(pet.id) && typeof pet.name === 'string') answer(res, 201);
        else forward();
      }),
    },
  },
  {
    name: 'tag-status-dropped',
    kind: 'faulty',
    does: 'keeps a created pet without its tag and status',
    breaks: ['CREATE-PERSISTED'],
    server: {
      wrap: fixCreateBody((pet) => {
        const { tag: _tag, status: _status, ...rest } = pet;
        return rest;
      }),
    },
  },
  {
    name: 'concurrent-lost-writes',
    kind: 'faulty',
    does: 'loses creates that arrive while another create is in flight',
    breaks: ['CREATE-CONCURRENT'],
    server: {
      wrap: (() => {
        let inFlight = 0;
        return withRequestBody(isCreateRequest, ({ res, forward }) => {
          if (inFlight > 0) {
            answer(res, 201);
            return;
          }
          inFlight++;
          res.on('close', () => inFlight--);
          setTimeout(forward, 5);
        });
      })(),
    },
  },
  {
    name: 'duplicate-overwrites',
    kind: 'faulty',
    does: 'overwrites the pet when a second one with the same id is created',
    breaks: ['CREATE-DUPLICATE-ID'],
    server: {
      wrap: (() => {
        const sent = new WeakMap<object, Record<string, unknown>>();
        const overwritten = new Map<string, Record<string, unknown>>();
        return compose(
          rewriteResponse((res, req, raw) => {
            const pet = sent.get(raw);
            if (!isCreate(req) || res.status !== 409 || !pet) return res;
            overwritten.set(idText(pet.id), pet);
            return { status: 201, headers: {}, body: Buffer.alloc(0) };
          }),
          withRequestBody(isCreateRequest, ({ body, res, forward }) => {
            const pet = jsonOf(body);
            if (petObject(pet)) sent.set(res, pet);
            forward();
          }),
          mapPets((p) => overwritten.get(idText(p.id)) ?? p),
        );
      })(),
    },
  },
  // ------------------------------------------------------------------ faulty: show
  {
    name: 'unknown-pet-200',
    kind: 'faulty',
    does: 'answers 200 with a made-up pet for an id it does not have',
    breaks: ['SHOW-UNKNOWN-NOT-2XX', 'SHOW-UNKNOWN-404'],
    server: {
      wrap: rewriteResponse((res, req) => {
        if (!isShow(req) || res.status !== 404) return res;
        const id = req.path.split('/').pop() ?? '0';
        const body = `{"id":${/^-?\d{1,18}$/.test(id) ? id : 0},"name":"ghost"}`;
        return { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(body) };
      }),
    },
  },
  {
    name: 'malformed-id-422',
    kind: 'faulty',
    does: 'answers 422 to a pet id that is not an integer',
    breaks: ['SHOW-ID-MALFORMED'],
    server: {
      wrap: intercept((req, res) => {
        if (req.method !== 'GET' || !/\/pets\/[^/?]*[^-\d/?][^/?]*$/.test((req.url ?? '').split('?')[0]!))
          return false;
        answer(res, 422, '{"title":"petId must be an integer"}', 'application/problem+json');
        return true;
      }),
    },
  },
  {
    name: 'no-deprecation-headers',
    kind: 'faulty',
    does: 'sends neither Deprecation nor Sunset on show',
    breaks: ['SHOW-DEPRECATION-HEADER', 'SHOW-SUNSET-HEADER'],
    server: {
      wrap: rewriteResponse((res) => {
        const { deprecation: _d, sunset: _s, ...headers } = res.headers;
        return { ...res, headers };
      }),
    },
  },
  {
    name: 'deprecation-true',
    kind: 'faulty',
    does: 'sends Deprecation: true, the draft form, instead of a date',
    breaks: ['SHOW-DEPRECATION-HEADER'],
    server: {
      wrap: rewriteResponse((res) =>
        res.headers.deprecation ? { ...res, headers: { ...res.headers, deprecation: 'true' } } : res,
      ),
    },
  },
  {
    name: 'sunset-before-deprecation',
    kind: 'faulty',
    does: 'sends a Sunset date earlier than its Deprecation date',
    breaks: ['SHOW-SUNSET-HEADER'],
    server: {
      wrap: rewriteResponse((res) =>
        res.headers.sunset
          ? { ...res, headers: { ...res.headers, sunset: 'Thu, 01 Jan 2015 00:00:00 GMT' } }
          : res,
      ),
    },
  },
  // ------------------------------------------------------------------ faulty: any operation
  {
    name: 'error-body-text',
    kind: 'faulty',
    does: 'sends its error bodies as text/plain',
    breaks: ['ANY-ERROR-JSON'],
    server: {
      wrap: rewriteResponse((res) =>
        res.status >= 400
          ? { ...res, headers: { ...res.headers, 'content-type': 'text/plain' }, body: Buffer.from('error') }
          : res,
      ),
    },
  },
  {
    name: 'undefined-method-accepted',
    kind: 'faulty',
    does: 'answers 204 to DELETE, PUT and PATCH on a pet',
    breaks: ['ANY-METHOD-UNDEFINED', 'ANY-METHOD-405'],
    server: {
      wrap: intercept((req, res) => {
        if (!['DELETE', 'PUT', 'PATCH'].includes(req.method ?? '')) return false;
        req.resume();
        answer(res, 204);
        return true;
      }),
    },
  },
  {
    name: 'undefined-method-404',
    kind: 'faulty',
    does: 'answers 404 without Allow to a method it does not define',
    breaks: ['ANY-METHOD-405'],
    server: {
      wrap: rewriteResponse((res) => {
        if (res.status !== 405) return res;
        const { allow: _allow, ...headers } = res.headers;
        return { ...res, status: 404, headers };
      }),
    },
  },
  {
    name: 'unknown-path-400',
    kind: 'faulty',
    does: 'answers 400 to a path it does not define',
    breaks: ['ANY-PATH-UNKNOWN'],
    server: {
      wrap: rewriteResponse((res, req) =>
        res.status === 404 && !/\/pets(\/[^/]+)?\/?$/.test(req.path) ? { ...res, status: 400 } : res,
      ),
    },
  },
  {
    name: 'wrong-prefix',
    kind: 'faulty',
    does: 'serves the API under /v2 instead of /v1',
    breaks: ['VERSION-V1-PREFIX'],
    server: {
      wrap: rewriteRequest((req) => {
        const url = req.url ?? '/';
        if (url.startsWith('/v2/')) req.url = `/v1/${url.slice(4)}`;
        else if (url.startsWith('/v1/')) req.url = `/nowhere/${url.slice(4)}`;
      }),
    },
  },
  // ------------------------------------------------------------------ faulty: auth
  {
    name: 'auth-not-enforced',
    kind: 'faulty',
    does: 'answers requests that carry no key, though the key is required',
    breaks: ['AUTH-MISSING-KEY-REFUSED', 'AUTH-WRONG-KEY-REFUSED'],
    server: {},
    args: ['--api-key', KEY, '--auth-required'],
  },
  {
    name: 'any-key-accepted',
    kind: 'faulty',
    does: 'accepts any value of the key header',
    breaks: ['AUTH-WRONG-KEY-REFUSED'],
    server: {
      apiKey: KEY,
      wrap: rewriteRequest((req) => {
        if (req.headers['x-api-key']) req.headers['x-api-key'] = KEY;
      }),
    },
    args: ['--api-key', KEY, '--auth-required'],
  },
  {
    name: 'key-in-other-header',
    kind: 'faulty',
    does: 'expects the key in X-Pets-Key while the run sends it where it was told (X-API-Key)',
    breaks: ['AUTH-KEY-ACCEPTED'],
    server: { apiKey: KEY, apiKeyHeader: 'X-Pets-Key' },
    args: ['--api-key', KEY],
  },
  {
    name: 'store-orders-missing',
    kind: 'faulty',
    does: 'answers 404 to GET /store/orders',
    breaks: ['STORE-ORDERS-EXISTS'],
    server: {
      wrap: intercept((req, res) => {
        if (!/\/store\/orders/.test(req.url ?? '')) return false;
        answer(res, 404, '{"title":"Not Found"}', 'application/problem+json');
        return true;
      }),
    },
  },
  // ------------------------------------------------------------------ conformant
  {
    name: 'validation-422',
    kind: 'conformant',
    does: 'answers 422 instead of 400 to invalid bodies and parameters',
    breaks: [],
    server: {
      wrap: rewriteResponse((res, req) =>
        res.status === 400 && (isCreate(req) || isList(req)) ? { ...res, status: 422 } : res,
      ),
    },
  },
  {
    name: 'extra-properties',
    kind: 'conformant',
    does: 'adds properties the schema does not name to every pet',
    breaks: [],
    server: { wrap: mapPets((p) => ({ ...p, createdAt: '2026-01-01T00:00:00Z', owner: { name: 'x' } })) },
  },
  {
    name: 'create-empty-201',
    kind: 'conformant',
    does: 'answers a create with 201 and no body at all',
    breaks: [],
    server: {
      wrap: rewriteResponse((res, req) => {
        if (!isCreate(req) || res.status !== 201) return res;
        const { 'content-type': _type, ...headers } = res.headers;
        return { status: 201, headers, body: Buffer.alloc(0) };
      }),
    },
  },
  {
    name: 'list-reversed',
    kind: 'conformant',
    does: 'lists each page in reverse order',
    breaks: [],
    server: {
      wrap: rewriteJson(
        (body) => (Array.isArray(body) ? [...body].reverse() : body),
        (req, res) => isList(req) && res.status === 200,
      ),
    },
  },
  {
    name: 'charset-utf8',
    kind: 'conformant',
    does: 'labels JSON application/json; charset=utf-8',
    breaks: [],
    server: {
      wrap: rewriteResponse((res) =>
        res.headers['content-type'] === 'application/json'
          ? { ...res, headers: { ...res.headers, 'content-type': 'application/json; charset=utf-8' } }
          : res,
      ),
    },
  },
  {
    name: 'errors-plain-json',
    kind: 'conformant',
    does: 'sends its errors as application/json {"error": ...} instead of problem+json',
    breaks: [],
    server: {
      wrap: rewriteResponse((res) =>
        res.status >= 400 && res.body.length > 0
          ? {
              ...res,
              headers: { ...res.headers, 'content-type': 'application/json' },
              body: Buffer.from('{"error":"refused"}'),
            }
          : res,
      ),
    },
  },
  {
    name: 'custom-key-header',
    kind: 'conformant',
    does: 'requires the key in X-Pets-Key, which the run is told',
    breaks: [],
    server: { apiKey: KEY, apiKeyHeader: 'X-Pets-Key' },
    args: ['--api-key', KEY, '--api-key-header', 'X-Pets-Key', '--auth-required'],
  },
  {
    name: 'key-in-query',
    kind: 'conformant',
    does: 'requires the key in the api_key query parameter, which the run is told',
    breaks: [],
    server: { apiKey: KEY, apiKeyQuery: 'api_key' },
    args: ['--api-key', KEY, '--api-key-query', 'api_key', '--auth-required'],
  },
  {
    name: 'rate-limited',
    kind: 'conformant',
    does: 'answers a few requests 429 with Retry-After: 1',
    breaks: [],
    server: {
      wrap: (() => {
        let count = 0;
        return intercept((req, res) => {
          count++;
          if (count !== 5 && count !== 60 && count !== 200) return false;
          req.resume();
          res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/problem+json' });
          res.end('{"title":"Too Many Requests"}');
          return true;
        });
      })(),
    },
  },
  {
    name: 'connection-close',
    kind: 'conformant',
    does: 'closes the connection after every response',
    breaks: [],
    server: {
      wrap: rewriteResponse((res) => ({ ...res, headers: { ...res.headers, connection: 'close' } })),
    },
  },
  // ------------------------------------------------------------------ hostile
  {
    name: 'never-answers',
    kind: 'hostile',
    does: 'accepts connections and never answers',
    breaks: ['LIST-OK', 'SHOW-OK', 'VERSION-V1-PREFIX'],
    server: { hostile: hostile.neverAnswers },
  },
  {
    name: 'resets-mid-body',
    kind: 'hostile',
    does: 'sends headers and half a body, then resets the connection',
    breaks: ['LIST-OK', 'CREATE-OK'],
    server: { hostile: hostile.resetsMidBody },
  },
  {
    name: 'drips',
    kind: 'hostile',
    does: 'sends its answers one byte a second',
    breaks: ['LIST-OK', 'CREATE-OK'],
    server: { hostile: hostile.drips },
  },
  {
    name: 'huge-list',
    kind: 'hostile',
    does: 'answers the list with a 50 MB JSON array',
    breaks: ['LIST-OK', 'LIST-LIMIT-AT-MOST'],
    server: {
      wrap: intercept((req, res) => {
        if (!isListRequest(req)) return false;
        streamHugeList(res);
        return true;
      }),
    },
  },
  {
    name: 'invalid-json',
    kind: 'hostile',
    does: 'sends invalid JSON labelled application/json',
    breaks: ['LIST-OK', 'SHOW-OK'],
    server: {
      wrap: rewriteResponse((res) =>
        /json/.test(String(res.headers['content-type']))
          ? { ...res, body: Buffer.from('[{"id": 1, "name": ') }
          : res,
      ),
    },
  },
  {
    name: 'always-503',
    kind: 'hostile',
    does: 'answers 503 to everything',
    breaks: ['ANY-NO-5XX', 'LIST-OK', 'CREATE-OK'],
    server: {
      wrap: intercept((req, res) => {
        req.resume();
        answer(res, 503, '{"title":"Service Unavailable"}', 'application/problem+json');
        return true;
      }),
    },
  },
];

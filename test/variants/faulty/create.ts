/** Faulty variants of the create operation (POST /pets): its answer, its validation, what it keeps. */
import { isLosslessNumber, stringify } from 'lossless-json';
import { MAX_BODY_BYTES } from '../../../reference-impl/index.ts';
import { answer, isCreateRequest, jsonOf, withRequestBody } from '../servers/body.ts';
import {
  afterCreate,
  compose,
  idText,
  intercept,
  isCreate,
  jsonNumber,
  mapPets,
  rewriteRequest,
  rewriteResponse,
  type Wrap,
} from '../servers/wrap.ts';
import type { Variant } from '../variant.ts';

const petObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !isLosslessNumber(v);

/**
 * Forwards POST /pets after `fix` changed its JSON body (when it is a JSON object). A body the
 * reference refuses for its size goes on as it is: re-serialising it would make it small.
 */
export function fixCreateBody(fix: (pet: Record<string, unknown>) => Record<string, unknown>): Wrap {
  return withRequestBody(isCreateRequest, ({ body, forward }) => {
    const pet = body.length > MAX_BODY_BYTES ? undefined : jsonOf(body);
    if (!petObject(pet)) return forward();
    forward(Buffer.from(stringify(fix(pet)) ?? ''));
  });
}

const inInt64 = (n: bigint) => n >= -(2n ** 63n) && n < 2n ** 63n;

let ghostCounter = 0;
const freshId = () => String(8_000_000_000_000 + Date.now() * 10 + (ghostCounter++ % 10));

export const createVariants: Variant[] = [
  {
    name: 'int64-lossy',
    kind: 'faulty',
    does: 'passes ids through a JS double, so ids above 2^53 lose digits (kept within int64)',
    // Kept within int64 (2^63 - 1 becomes the largest double below 2^63): an id out of range would
    // also fail ANY-PET-SCHEMA, but only when a list happens to hold that pet, which depends on order.
    breaks: ['CREATE-INT64-EXACT'],
    // CREATE-LOCATION: its row of an id beyond 2^53 cannot find the pet it created.
    blocks: ['CREATE-PERSISTED', 'CREATE-CONCURRENT', 'CREATE-DUPLICATE-ID', 'CREATE-LOCATION'],
    server: {
      wrap: mapPets((p) => {
        const rounded = BigInt(Number(idText(p.id)));
        return { ...p, id: jsonNumber(String(rounded >= 2n ** 63n ? 9223372036854774784n : rounded)) };
      }),
    },
  },
  {
    name: 'create-answers-200',
    kind: 'faulty',
    does: 'answers 200 instead of 201 to a create',
    breaks: ['CREATE-OK'],
    blocks: ['CREATE-VALID-GENERATED'],
    server: {
      wrap: rewriteResponse((res, req) =>
        isCreate(req) && res.status === 201 ? { ...res, status: 200 } : res,
      ),
    },
  },
  {
    name: 'location-of-collection',
    kind: 'faulty',
    does: 'answers a create with 201 and Location: /v1/pets, the collection, instead of the pet created',
    breaks: ['CREATE-LOCATION'],
    server: {
      wrap: rewriteResponse((res, req) =>
        isCreate(req) && res.status === 201
          ? { ...res, headers: { ...res.headers, location: '/v1/pets' } }
          : res,
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
    breaks: ['CREATE-MISSING-REQUIRED', 'CREATE-INVALID-GENERATED'],
    server: { wrap: fixCreateBody((pet) => ('name' in pet ? pet : { ...pet, name: 'unnamed' })) },
  },
  {
    name: 'unknown-status-accepted',
    kind: 'faulty',
    does: 'accepts a status string outside the enum (and drops it)',
    breaks: ['CREATE-STATUS-OUTSIDE-ENUM', 'CREATE-INVALID-GENERATED'],
    server: {
      wrap: fixCreateBody((pet) => {
        if (typeof pet.status !== 'string' || ['available', 'pending', 'sold'].includes(pet.status))
          return pet;
        const { status: _status, ...rest } = pet;
        return rest;
      }),
    },
  },
  {
    name: 'string-id-accepted',
    kind: 'faulty',
    does: 'accepts an id sent as a JSON string',
    breaks: ['CREATE-WRONG-TYPE', 'CREATE-INVALID-GENERATED'],
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
      'CREATE-ID-OUT-OF-RANGE',
    ],
    server: {
      wrap: fixCreateBody((pet) => {
        const id =
          isLosslessNumber(pet.id) && /^-?\d+$/.test(pet.id.toString()) && inInt64(BigInt(pet.id.toString()))
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
    breaks: ['CREATE-ID-OUT-OF-RANGE', 'CREATE-INVALID-GENERATED'],
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
    breaks: ['CREATE-VALID-GENERATED', 'CREATE-INT64-EXACT'],
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
    breaks: ['CREATE-NOT-AN-OBJECT', 'CREATE-INVALID-GENERATED'],
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
    name: 'media-type-case-sensitive',
    kind: 'faulty',
    does: 'compares the media type of a create case-sensitively and without trimming, so that Application/JSON and application/json ;charset=utf-8 are refused with 415',
    breaks: ['CREATE-MEDIA-TYPE-FORMS'],
    server: {
      wrap: intercept((req, res) => {
        if (!isCreateRequest(req) || String(req.headers['content-type']).split(';')[0] === 'application/json')
          return false;
        req.resume();
        answer(res, 415, '{"title":"Unsupported Media Type"}', 'application/problem+json');
        return true;
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
    name: 'large-body-accepted',
    kind: 'faulty',
    does: 'reads a body of any size and creates the pet in it (no body limit)',
    breaks: ['CREATE-BODY-TOO-LARGE'],
    server: {
      // The reference refuses bodies over its limit: hand it the same pet, written compactly.
      wrap: withRequestBody(isCreateRequest, ({ body, forward }) => {
        const pet = body.length > MAX_BODY_BYTES ? jsonOf(body) : undefined;
        forward(petObject(pet) ? Buffer.from(stringify(pet) ?? '') : body);
      }),
    },
  },
  {
    name: 'not-persisted',
    kind: 'faulty',
    does: 'answers 201 to a valid create without keeping the pet',
    breaks: ['CREATE-PERSISTED'],
    blocks: [
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
      'CREATE-CONCURRENT',
      'CREATE-DUPLICATE-ID',
      'CREATE-LOCATION',
      'SHOW-OK',
      'SHOW-UNKNOWN-NOT-2XX',
      'SHOW-ID-MALFORMED',
      'SHOW-DEPRECATION-HEADER',
      'SHOW-SUNSET-HEADER',
    ],
    server: { wrap: afterCreate(() => 'forget') },
  },
  {
    name: 'tag-status-dropped',
    kind: 'faulty',
    does: 'keeps a created pet without its tag and status',
    breaks: ['CREATE-PERSISTED'],
    server: {
      wrap: afterCreate(
        () =>
          ({ tag: _tag, status: _status, ...rest }) =>
            rest,
      ),
    },
  },
  {
    name: 'concurrent-lost-writes',
    kind: 'faulty',
    does: 'loses creates that arrive while 16 or more others are in flight',
    breaks: ['CREATE-CONCURRENT'],
    blocks: [
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
      'CREATE-PERSISTED',
      'CREATE-DUPLICATE-ID',
      'CREATE-LOCATION',
      'SHOW-OK',
      'SHOW-UNKNOWN-NOT-2XX',
      'SHOW-ID-MALFORMED',
      'SHOW-DEPRECATION-HEADER',
      'SHOW-SUNSET-HEADER',
    ],
    server: { wrap: afterCreate((inFlight) => (inFlight >= 16 ? 'forget' : undefined), 30) },
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
];

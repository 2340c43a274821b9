/** Faulty variants of the show operation (GET /pets/{petId}): its body, unknown ids, its headers. */
import { answer } from '../servers/body.ts';
import {
  intercept,
  isShow,
  rewriteJson,
  rewriteRequest,
  rewriteResponse,
  type Wrap,
} from '../servers/wrap.ts';
import type { Variant } from '../variant.ts';

/**
 * SHOULD-only fault (SHOW-UNKNOWN-404): an integer id that no pet has is answered 410 instead of 404.
 * Ids that are not integers keep the reference's 404, so SHOW-ID-MALFORMED still passes.
 */
export const goneInsteadOfNotFound: Wrap = rewriteResponse((res, req) =>
  isShow(req) && res.status === 404 && /\/-?\d+$/.test(req.path) ? { ...res, status: 410 } : res,
);

export const showVariants: Variant[] = [
  {
    name: 'show-wrapped',
    kind: 'faulty',
    does: 'wraps the pet it shows in an object: {"pet": {...}}',
    breaks: ['SHOW-OK', 'ANY-PET-SCHEMA'],
    blocks: [
      'CREATE-PERSISTED',
      'CREATE-INT64-EXACT',
      'CREATE-CONCURRENT',
      'CREATE-DUPLICATE-ID',
      'CREATE-LOCATION',
    ],
    server: {
      wrap: rewriteJson(
        (body) => ({ pet: body }),
        (req, res) => isShow(req) && res.status === 200,
      ),
    },
  },
  {
    name: 'unknown-pet-200',
    kind: 'faulty',
    does: 'answers 200 with a made-up pet for an integer id it does not have',
    breaks: ['SHOW-UNKNOWN-NOT-2XX', 'SHOW-UNKNOWN-404'],
    server: {
      wrap: rewriteResponse((res, req) => {
        const id = req.path.split('/').pop() ?? '';
        if (!isShow(req) || res.status !== 404 || !/^-?\d{1,18}$/.test(id)) return res;
        const body = `{"id":${id},"name":"ghost"}`;
        return { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(body) };
      }),
    },
  },
  {
    name: 'unknown-pet-410',
    kind: 'faulty',
    does: 'answers 410 instead of 404 for an id it does not have (SHOULD only)',
    breaks: ['SHOW-UNKNOWN-404'],
    server: { wrap: goneInsteadOfNotFound },
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
  {
    name: 'show-id-leading-digits',
    kind: 'faulty',
    does: 'reads the id of a show by its leading digits (strtoll): /pets/7abc and /pets/7.5 show pet 7',
    breaks: ['SHOW-ID-MALFORMED', 'SHOW-UNKNOWN-NOT-2XX'],
    server: {
      wrap: rewriteRequest((req) => {
        const m = req.method === 'GET' ? /^(.*\/pets\/)(-?\d+)[^/\d][^/]*$/.exec(req.url ?? '') : null;
        if (m) req.url = `${m[1]}${m[2]}`;
      }),
    },
  },
];

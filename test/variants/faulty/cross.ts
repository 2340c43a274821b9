/**
 * Faulty variants across operations: the Pet schema and the JSON media type everywhere, error
 * bodies, methods and paths the API does not define, the /v1 prefix, the API key, the store.
 */
import { answer } from '../servers/body.ts';
import {
  idText,
  intercept,
  isHeadRequest,
  mapPets,
  rewriteRequest,
  rewriteResponse,
} from '../servers/wrap.ts';
import { KEY, type Variant } from '../variant.ts';

export const crossVariants: Variant[] = [
  {
    name: 'id-as-string',
    kind: 'faulty',
    does: 'serves every pet id as a JSON string',
    breaks: ['ANY-PET-SCHEMA'],
    blocks: [
      'CREATE-PERSISTED',
      'CREATE-INT64-EXACT',
      'CREATE-CONCURRENT',
      'CREATE-DUPLICATE-ID',
      'CREATE-LOCATION',
    ],
    server: { wrap: mapPets((p) => ({ ...p, id: idText(p.id) })) },
  },
  {
    name: 'tag-null',
    kind: 'faulty',
    does: 'serves tag: null on every pet',
    breaks: ['ANY-PET-SCHEMA'],
    blocks: ['CREATE-PERSISTED', 'CREATE-INT64-EXACT', 'CREATE-CONCURRENT', 'CREATE-DUPLICATE-ID'],
    server: { wrap: mapPets((p) => ({ ...p, tag: null })) },
  },
  {
    name: 'status-other-case',
    kind: 'faulty',
    does: 'serves status in upper case (AVAILABLE), outside the enum',
    breaks: ['ANY-PET-SCHEMA'],
    blocks: ['CREATE-PERSISTED', 'CREATE-INT64-EXACT', 'CREATE-CONCURRENT', 'CREATE-DUPLICATE-ID'],
    server: { wrap: mapPets((p) => ({ ...p, status: String(p.status ?? 'available').toUpperCase() })) },
  },
  {
    name: 'json-as-text-plain',
    kind: 'faulty',
    does: 'labels the JSON of its 2xx responses text/plain',
    breaks: ['ANY-JSON-CONTENT-TYPE'],
    // Every answer labelled text/plain, with an Accept or without: what the Accept changes is nothing.
    blocks: ['ANY-ACCEPT-JSON', 'ANY-ACCEPT-NOT-JSON'],
    server: {
      wrap: rewriteResponse((res) =>
        res.status < 300 && /json/.test(String(res.headers['content-type']))
          ? { ...res, headers: { ...res.headers, 'content-type': 'text/plain' } }
          : res,
      ),
    },
  },
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
    name: 'options-allow-get-only',
    kind: 'faulty',
    does: 'answers OPTIONS /pets with 405 and Allow: GET, which leaves out POST',
    breaks: ['ANY-METHOD-405'],
    server: {
      wrap: rewriteResponse((res, req) =>
        req.method === 'OPTIONS' && res.status === 405
          ? { ...res, headers: { ...res.headers, allow: 'GET' } }
          : res,
      ),
    },
  },
  {
    name: 'head-not-allowed',
    kind: 'faulty',
    does: 'answers HEAD with 405 and Allow: GET, though it serves GET there',
    breaks: ['ANY-METHOD-HEAD'],
    server: {
      wrap: intercept((req, res) => {
        if (!isHeadRequest(req)) return false;
        req.resume();
        res.setHeader('allow', 'GET');
        answer(res, 405, '{"title":"Method Not Allowed"}', 'application/problem+json');
        return true;
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
    blocks: 'every other',
    server: {
      wrap: rewriteRequest((req) => {
        const url = req.url ?? '/';
        if (url.startsWith('/v2/')) req.url = `/v1/${url.slice(4)}`;
        else if (url.startsWith('/v1/')) req.url = `/nowhere/${url.slice(4)}`;
      }),
    },
  },
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
    blocks: 'every other',
    server: { apiKey: KEY, apiKeyHeader: 'X-Pets-Key' },
    args: ['--api-key', KEY],
  },
  {
    name: 'store-orders-broken',
    kind: 'faulty',
    does: 'answers 500 to GET /store/orders',
    breaks: ['STORE-ORDERS-EXISTS', 'ANY-NO-5XX'],
    server: {
      wrap: intercept((req, res) => {
        if (!/\/store\/orders/.test(req.url ?? '')) return false;
        answer(res, 500, '{"title":"Internal Server Error"}', 'application/problem+json');
        return true;
      }),
    },
  },
];

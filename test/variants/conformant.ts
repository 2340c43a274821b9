/**
 * Conformant variants: they differ from the reference only where the contract allows, and the suite
 * must pass them in --strict mode.
 */
import { answer } from './servers/body.ts';
import { intercept, isCreate, isList, mapPets, rewriteJson, rewriteResponse } from './servers/wrap.ts';
import { KEY, type Variant } from './variant.ts';

export const conformantVariants: Variant[] = [
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
    name: 'create-no-location',
    kind: 'conformant',
    does: 'answers a create with 201 and no Location header, which the document does not show',
    breaks: [],
    server: {
      wrap: rewriteResponse((res, req) => {
        if (!isCreate(req)) return res;
        const { location: _location, ...headers } = res.headers;
        return { ...res, headers };
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
    name: 'options-cors',
    kind: 'conformant',
    does: 'answers OPTIONS /pets as a CORS server does: 204 with Access-Control-Allow-Methods and no Allow',
    breaks: [],
    server: {
      wrap: intercept((req, res) => {
        if (req.method !== 'OPTIONS') return false;
        req.resume();
        res.writeHead(204, {
          'access-control-allow-origin': '*',
          'access-control-allow-methods': 'GET, HEAD, POST',
        });
        res.end();
        return true;
      }),
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
    name: 'store-orders-missing',
    kind: 'conformant',
    does: 'answers 404 to GET /store/orders: it does not offer that MAY operation',
    breaks: [],
    server: {
      wrap: intercept((req, res) => {
        if (!/\/store\/orders/.test(req.url ?? '')) return false;
        answer(res, 404, '{"title":"Not Found"}', 'application/problem+json');
        return true;
      }),
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
];

/**
 * Conformant variants: they differ from the reference only where the contract allows, and the suite
 * must pass them in --strict mode. Beside them, servers that are correct by default but lenient where
 * a SHOULD asks otherwise (correctByDefaultVariants): each fails that SHOULD alone, so under --strict,
 * as the variants are run, it is declared faulty with that one requirement, and without --strict it is
 * conformant (a SHOULD does not gate), which correct-by-default.test.ts runs.
 */
import type { IncomingMessage } from 'node:http';
import { MAX_BODY_BYTES } from '../../reference-impl/index.ts';
import { outsideStrings, readsAs } from './faulty/minefield.ts';
import { answer, isCreateRequest, withRequestBody } from './servers/body.ts';
import {
  intercept,
  isCreate,
  isList,
  mapPets,
  rewriteJson,
  rewriteRequest,
  rewriteResponse,
  type Wrap,
} from './servers/wrap.ts';
import { KEY, type Variant } from './variant.ts';

/**
 * A create body read as Go's encoding/json reads it: bytes that are not UTF-8 become U+FFFD, and so
 * does a \u escape of a surrogate that is not in a pair (RFC 8259 §8.1 and §8.2 leave both to the reader).
 */
function readAsGoDoes(body: Buffer): Buffer {
  const text = new TextDecoder('utf-8').decode(body);
  const escapes = [...text.matchAll(/\\(u[0-9a-fA-F]{4}|.)/g)];
  let out = '';
  let at = 0;
  escapes.forEach((m, i) => {
    const unit = m[1]!.startsWith('u') && m[1]!.length === 5 ? Number.parseInt(m[1]!.slice(1), 16) : -1;
    const next = escapes[i + 1];
    const prev = escapes[i - 1];
    const nextUnit = next?.[1]?.length === 5 ? Number.parseInt(next[1]!.slice(1), 16) : -1;
    const prevUnit = prev?.[1]?.length === 5 ? Number.parseInt(prev[1]!.slice(1), 16) : -1;
    const high = unit >= 0xd800 && unit <= 0xdbff;
    const low = unit >= 0xdc00 && unit <= 0xdfff;
    const paired =
      (high && next?.index === m.index! + 6 && nextUnit >= 0xdc00 && nextUnit <= 0xdfff) ||
      (low && prev !== undefined && prev.index! + 6 === m.index && prevUnit >= 0xd800 && prevUnit <= 0xdbff);
    out += text.slice(at, m.index);
    out += (high || low) && !paired ? '\\uFFFD' : m[0];
    at = m.index! + m[0].length;
  });
  return Buffer.from(out + text.slice(at));
}

/** Whether an Accept admits application/json (RFC 9110 §12.5.1): by name, as application/* or as any type, with a q above 0. */
function admitsJson(accept: string): boolean {
  return accept.split(',').some((part) => {
    const [type = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    return (
      (q === undefined || Number(q.slice(2)) > 0) &&
      ['application/json', 'application/*', '*/*'].includes(type)
    );
  });
}

/** The methods beyond the three that the suite sends, which a server may not implement. */
const NOT_IMPLEMENTED = ['TRACE', 'CONNECT', 'PURGE', 'PROPFIND', 'MOVE'];

/** Bytes past which a server refuses a target (414) or a header field (431), as nginx's default buffer does. */
const LONG = 8 * 1024;
/** A header limit past what the suite sends, so that a wrap sees the long requests (node:http: 16 KiB). */
const ROOMY = 256 * 1024;

const longField = (req: IncomingMessage) => req.rawHeaders.some((field) => field.length > LONG);

/** The limit's digits with the white space around them trimmed, as pydantic reads an int. */
const limitTrimmed: Wrap = rewriteRequest((req) => {
  const url = new URL(req.url ?? '/', 'http://variant.invalid');
  const limit = url.searchParams.get('limit');
  if (req.method !== 'GET' || limit === null || !/^\s*-?\d+\s*$/.test(limit)) return;
  url.searchParams.set('limit', limit.trim());
  req.url = `${url.pathname}${url.search}`;
});

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
  {
    name: 'json-utf8-replaced',
    kind: 'conformant',
    does: "reads bytes that are not UTF-8 in a create body, and lone surrogate escapes, as U+FFFD, as Go's encoding/json does",
    breaks: [],
    server: {
      wrap: withRequestBody(isCreateRequest, ({ body, forward }) =>
        body.length > MAX_BODY_BYTES ? forward() : forward(readAsGoDoes(body)),
      ),
    },
  },
  {
    name: 'accept-406-honoured',
    kind: 'conformant',
    does: 'answers 406 to an Accept that does not admit application/json, honouring it (RFC 9110 §12.5.1)',
    breaks: [],
    server: {
      wrap: intercept((req, res) => {
        const accept = req.headers.accept;
        if (accept === undefined || admitsJson(accept)) return false;
        req.resume();
        answer(res, 406, '{"title":"Not Acceptable","status":406}', 'application/problem+json');
        return true;
      }),
    },
  },
  {
    name: 'methods-501',
    kind: 'conformant',
    does: 'answers 501 to TRACE, CONNECT, PURGE, PROPFIND and MOVE, methods it does not implement (RFC 9110 §9.1)',
    breaks: [],
    server: {
      wrap: intercept((req, res) => {
        if (!NOT_IMPLEMENTED.includes(req.method ?? '')) return false;
        req.resume();
        answer(res, 501, '{"title":"Not Implemented","status":501}', 'application/problem+json');
        return true;
      }),
    },
  },
  {
    name: 'long-requests-refused-414-431',
    kind: 'conformant',
    does: 'answers 414 to a target over 8 KiB and 431 to a header field over 8 KiB, as nginx does',
    breaks: [],
    server: {
      maxHeaderSize: ROOMY,
      wrap: intercept((req, res) => {
        const status = (req.url ?? '').length > LONG ? 414 : longField(req) ? 431 : undefined;
        if (status === undefined) return false;
        req.resume();
        answer(res, status, `{"status":${status}}`, 'application/problem+json');
        return true;
      }),
    },
  },
  {
    name: 'long-requests-served',
    kind: 'conformant',
    does: 'reads request lines and headers of up to 256 KiB, and answers a list asked for with a 64 KiB target as any other',
    breaks: [],
    server: { maxHeaderSize: ROOMY },
  },
];

/**
 * Correct by default, lenient where a SHOULD asks otherwise: each fails that one SHOULD, so the runs of
 * the variants test (always --strict) declare it faulty with it; without --strict each is conformant.
 * json-first-value (faulty/minefield.ts) is one more: Go's json.Decoder, which ignores what follows
 * the first value.
 */
export const correctByDefaultVariants: Variant[] = [
  {
    name: 'json-nan-read',
    kind: 'faulty',
    does: "reads NaN, Infinity and -Infinity in a create body, as Python's json.loads does (a SHOULD: conformant by default)",
    breaks: ['CREATE-JSON-EXTENSION-REFUSED'],
    server: {
      wrap: readsAs((text) => outsideStrings(text, (code) => code.replace(/-?\b(NaN|Infinity)\b/g, 'null'))),
    },
  },
  {
    name: 'limit-white-space-trimmed',
    kind: 'faulty',
    does: 'reads limit=%205 and limit=5%20 as 5, as FastAPI does (a SHOULD: conformant by default)',
    breaks: ['LIST-LIMIT-PADDED-REFUSED'],
    server: { wrap: limitTrimmed },
  },
];

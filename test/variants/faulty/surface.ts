/**
 * Faults of the HTTP surface around the operations, found by a fault writer's servers that the suite
 * judged conformant: what a 405's Allow lists, what a HEAD says of the GET (its length, the show's
 * Deprecation and Sunset), the type of an empty page and of errors a framework answers, keys compared
 * loosely, and a key guard that a case variant of the path gets past. One conformant variant: a HEAD
 * without Content-Length, which RFC 9110 §8.6 allows.
 */
import { STATUS_CODES } from 'node:http';
import { isHeadRequest, isList, rewriteRequest, rewriteResponse, type Wrap } from '../servers/wrap.ts';
import { KEY, type Variant } from '../variant.ts';

const keyArgs = ['--api-key', KEY, '--auth-required'];

/** The reference requiring KEY, in front of which the key sent is taken as KEY when `takes` says so. */
function keyTaken(takes: (sent: string) => boolean): Variant['server'] {
  return {
    apiKey: KEY,
    wrap: rewriteRequest((req) => {
      const sent = req.headers['x-api-key'];
      if (typeof sent === 'string' && takes(sent)) req.headers['x-api-key'] = KEY;
    }),
  };
}

/** HEAD answers without Content-Length (and without a body, as any HEAD). */
const headWithoutLength: Wrap = (handler) => (req, res) => {
  if (isHeadRequest(req)) {
    const writeHead = res.writeHead.bind(res);
    res.writeHead = ((status: number, headers?: Record<string, unknown>) => {
      const kept = Object.entries(headers ?? {}).filter(([name]) => name.toLowerCase() !== 'content-length');
      return writeHead(status, Object.fromEntries(kept) as Record<string, string>);
    }) as typeof res.writeHead;
  }
  handler(req, res);
};

export const surfaceVariants: Variant[] = [
  {
    name: 'allow-lists-refused',
    kind: 'faulty',
    does: 'answers PUT, PATCH and DELETE on a pet with 405 and Allow: GET, HEAD, PUT, DELETE, listing methods it refuses',
    breaks: ['ANY-METHOD-405'],
    server: {
      wrap: rewriteResponse((res, req) =>
        res.status === 405 && /\/pets\/[^/]+$/.test(req.path)
          ? { ...res, headers: { ...res.headers, allow: 'GET, HEAD, PUT, DELETE' } }
          : res,
      ),
    },
  },
  {
    name: 'head-length-zero',
    kind: 'faulty',
    does: 'answers HEAD with Content-Length: 0, where the GET sends a body',
    breaks: ['ANY-METHOD-HEAD'],
    server: {
      wrap: rewriteResponse((res, req) => (req.head ? { ...res, body: Buffer.alloc(0) } : res)),
    },
  },
  {
    name: 'deprecation-not-on-head',
    kind: 'faulty',
    does: 'answers HEAD /pets/{id} without the Deprecation and Sunset its GET carries',
    breaks: ['ANY-METHOD-HEAD'],
    server: {
      wrap: rewriteResponse((res, req) => {
        if (!req.head) return res;
        const { deprecation: _deprecation, sunset: _sunset, ...headers } = res.headers;
        return { ...res, headers };
      }),
    },
  },
  {
    name: 'empty-list-untyped',
    kind: 'faulty',
    does: 'answers an empty page, [], without Content-Type',
    breaks: ['ANY-JSON-CONTENT-TYPE'],
    server: {
      wrap: rewriteResponse((res, req) => {
        if (!isList(req) || res.status !== 200 || res.body.toString() !== '[]') return res;
        const { 'content-type': _type, ...headers } = res.headers;
        return { ...res, headers };
      }),
    },
  },
  {
    name: 'framework-errors-html',
    kind: 'faulty',
    does: "answers 405, 413 and 415 with a framework's text/html page; the service's own errors stay JSON",
    breaks: ['ANY-ERROR-JSON'],
    server: {
      wrap: rewriteResponse((res) => {
        if (![405, 413, 415].includes(res.status)) return res;
        const title = `${res.status} ${STATUS_CODES[res.status]}`;
        const page = `<html><head><title>${title}</title></head><body><center><h1>${title}</h1></center><hr><center>nginx</center></body></html>\r\n`;
        return {
          ...res,
          headers: { ...res.headers, 'content-type': 'text/html' },
          body: Buffer.from(page),
        };
      }),
    },
  },
  {
    name: 'key-last-character-ignored',
    kind: 'faulty',
    does: 'takes a key of the right length that differs from it in its last character only',
    breaks: ['AUTH-WRONG-KEY-REFUSED'],
    server: keyTaken((sent) => sent.length === KEY.length && sent.slice(0, -1) === KEY.slice(0, -1)),
    args: keyArgs,
  },
  {
    name: 'key-case-insensitive',
    kind: 'faulty',
    does: 'compares the key without regard to case',
    breaks: ['AUTH-WRONG-KEY-REFUSED'],
    server: keyTaken((sent) => sent.toLowerCase() === KEY.toLowerCase()),
    args: keyArgs,
  },
  {
    name: 'key-extra-characters-ignored',
    kind: 'faulty',
    does: 'takes a key that starts with the key, comparing the length of its own key only',
    breaks: ['AUTH-WRONG-KEY-REFUSED'],
    server: keyTaken((sent) => sent.startsWith(KEY)),
    args: keyArgs,
  },
  {
    name: 'key-prefix-accepted',
    kind: 'faulty',
    does: 'takes any beginning of the key, comparing the length of the key sent only',
    breaks: ['AUTH-WRONG-KEY-REFUSED'],
    server: keyTaken((sent) => sent !== '' && KEY.startsWith(sent)),
    args: keyArgs,
  },
  {
    name: 'auth-path-case-bypass',
    kind: 'faulty',
    does: 'routes paths in any case, but guards the key on /v1/pets exactly: GET /v1/PETS lists pets without it',
    breaks: ['AUTH-MISSING-KEY-REFUSED'],
    server: {
      apiKey: KEY,
      wrap: rewriteRequest((req) => {
        const url = req.url ?? '/';
        const prefix = '/v1/pets';
        if (!url.startsWith(prefix) && url.toLowerCase().startsWith(prefix)) {
          req.url = `${prefix}${url.slice(prefix.length)}`;
          req.headers['x-api-key'] = KEY;
        }
      }),
    },
    args: keyArgs,
  },
  {
    name: 'head-without-length',
    kind: 'conformant',
    does: 'answers HEAD without Content-Length, which a HEAD may leave out',
    breaks: [],
    server: { wrap: headWithoutLength },
  },
];

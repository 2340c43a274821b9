/**
 * Faults at the request line and the headers (issue 37), each planted in the reference by one wrap:
 * key guards that look at the request target as written rather than at the resource it names, or
 * that run after the handler; negotiation that refuses the Accept headers real clients send; readers
 * that take near misses of an enum value or a member name for the real one; methods beyond the three
 * answered; requests of the sizes clients send failed or dropped; JSON readers that complete or change
 * what they read; and a negative limit read as a slice from the end.
 */
import type { IncomingMessage } from 'node:http';
import { parse, stringify } from 'lossless-json';
import { answer } from '../servers/body.ts';
import { compose, intercept, isCreate, rewriteRequest, rewriteResponse, type Wrap } from '../servers/wrap.ts';
import { KEY, type Variant } from '../variant.ts';
import { fixCreateBody } from './create.ts';
import { outsideStrings, readsAs } from './minefield.ts';

const keyArgs = ['--api-key', KEY, '--auth-required'];

// ---------------------------------------------------------------- key guards

/** The paths of the service whose key guard compares them (the list, a pet by its digits). */
const GUARDED = /^\/v1\/pets(\/-?\d+)?$/;

/** A path percent-decoded, as it is when it is not percent-encoding. */
function decoded(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** Dot segments resolved (RFC 3986 §5.2.4), as a router that normalises paths does. */
function withoutDotSegments(path: string): string {
  const out: string[] = [];
  for (const segment of path.split('/').slice(1)) {
    if (segment === '..') out.pop();
    else if (segment !== '.') out.push(segment);
  }
  return `/${out.join('/')}`;
}

/**
 * The reference requiring KEY behind a guard that lets a request through as if it carried the key
 * when `passes` says so of its target (as written, the query included); the reference then routes
 * it by the resource the target names, absolute form included (RFC 9112 §3.2.2).
 */
function guardedBy(passes: (target: string) => boolean): Variant['server'] {
  return {
    apiKey: KEY,
    wrap: rewriteRequest((req) => {
      if (passes(req.url ?? '/')) req.headers['x-api-key'] = KEY;
    }),
  };
}

/** A target's path and query, as written: the path of an absolute-form target after its authority. */
function splitTarget(target: string): { absolute: boolean; path: string; query: string } {
  const absolute = /^https?:\/\//i.test(target);
  const rest = absolute ? target.slice(target.indexOf('/', target.indexOf('//') + 2)) : target;
  const q = rest.indexOf('?');
  return { absolute, path: q < 0 ? rest : rest.slice(0, q), query: q < 0 ? '' : rest.slice(q) };
}

/** The creates the late guard refuses once the handler has run: by their response. */
const refusedLate = new WeakSet<object>();

/**
 * A key guard that runs after the handler: a create without the key is handed to the reference as if
 * it carried it (the pet is stored), and its answer replaced by the 401 the guard gives.
 */
const guardAfterHandler: Wrap = compose(
  rewriteResponse((res, req, raw) =>
    isCreate(req) && refusedLate.has(raw)
      ? {
          status: 401,
          headers: { 'content-type': 'application/problem+json' },
          body: Buffer.from('{"title":"Unauthorized","status":401}'),
        }
      : res,
  ),
  intercept((req, res) => {
    if (req.method !== 'POST' || req.headers['x-api-key'] === KEY) return false;
    refusedLate.add(res);
    req.headers['x-api-key'] = KEY;
    return false;
  }),
);
/** A guard that reads the key's header field only when it came in one line: a repeated field passes. */
function repeatedKeyPasses(req: IncomingMessage): void {
  const lines = req.rawHeaders.filter(
    (_, i) => i % 2 === 0 && req.rawHeaders[i]!.toLowerCase() === 'x-api-key',
  );
  if (lines.length > 1) req.headers['x-api-key'] = KEY;
}

const guardVariants: Variant[] = [
  {
    name: 'auth-absolute-form-bypass',
    kind: 'faulty',
    does: 'guards the key on targets that start with /, while its router takes the absolute form too (RFC 9112 §3.2.2): GET http://host/v1/pets lists pets without it',
    breaks: ['AUTH-MISSING-KEY-REFUSED', 'AUTH-WRONG-KEY-REFUSED'],
    server: guardedBy((target) => splitTarget(target).absolute),
    args: keyArgs,
  },
  {
    name: 'auth-query-bypass',
    kind: 'faulty',
    does: 'guards the key on /v1/pets and /v1/pets/{id} as the whole target: GET /v1/pets?x=1 lists pets without it',
    breaks: ['AUTH-MISSING-KEY-REFUSED', 'AUTH-WRONG-KEY-REFUSED'],
    server: guardedBy((target) => {
      const { absolute, path, query } = splitTarget(target);
      return !absolute && query !== '' && GUARDED.test(path);
    }),
    args: keyArgs,
  },
  {
    name: 'auth-double-decode-bypass',
    kind: 'faulty',
    does: 'guards the key on the path percent-decoded once, while its router decodes it twice: GET /v1/%2570ets lists pets without it',
    breaks: ['AUTH-MISSING-KEY-REFUSED', 'AUTH-WRONG-KEY-REFUSED'],
    server: {
      apiKey: KEY,
      wrap: rewriteRequest((req) => {
        const { absolute, path, query } = splitTarget(req.url ?? '/');
        const once = decoded(path);
        const twice = decoded(once);
        if (absolute || GUARDED.test(once) || !GUARDED.test(twice)) return;
        req.url = `${twice}${query}`;
        req.headers['x-api-key'] = KEY;
      }),
    },
    args: keyArgs,
  },
  {
    name: 'auth-absolute-dot-segment-bypass',
    kind: 'faulty',
    does: 'guards the key on the path with its dot segments resolved, but takes the path of an absolute-form target as written: GET http://host/v1/./pets lists pets without it, GET /v1/./pets and GET http://host/v1/pets do not',
    breaks: ['AUTH-MISSING-KEY-REFUSED', 'AUTH-WRONG-KEY-REFUSED'],
    server: guardedBy((target) => {
      const { absolute, path } = splitTarget(target);
      return absolute && !GUARDED.test(path) && GUARDED.test(withoutDotSegments(path));
    }),
    args: keyArgs,
  },
  {
    name: 'auth-guard-after-handler',
    kind: 'faulty',
    does: 'checks the key after the handler: a create without it (or with a wrong one) is answered 401, and the pet is stored all the same',
    breaks: ['AUTH-MISSING-KEY-REFUSED', 'AUTH-WRONG-KEY-REFUSED'],
    server: { apiKey: KEY, wrap: guardAfterHandler },
    args: keyArgs,
  },
  {
    name: 'auth-repeated-key-unchecked',
    kind: 'faulty',
    does: "reads the key's header field only when it comes in one line: two lines, each a wrong key, list the pets",
    breaks: ['AUTH-WRONG-KEY-REFUSED'],
    server: { apiKey: KEY, wrap: rewriteRequest(repeatedKeyPasses) },
    args: keyArgs,
  },
];

// ---------------------------------------------------------------- negotiation

/** A 406 in problem+json, as a framework's negotiation answers it. */
function notAcceptable(res: Parameters<typeof answer>[0]): void {
  answer(res, 406, '{"title":"Not Acceptable","status":406}', 'application/problem+json');
}

/** The media ranges of an Accept with their q-values, in the order given. */
function ranges(accept: string): { type: string; q: number }[] {
  return accept.split(',').map((part) => {
    const [type = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    return { type, q: q === undefined ? 1 : Number(q.slice(2)) };
  });
}

/** Whether an Accept admits application/json (RFC 9110 §12.5.1): by name, as application/* or as any type, with a q above 0. */
function admitsJson(accept: string): boolean {
  return ranges(accept).some(
    ({ type, q }) => q > 0 && ['application/json', 'application/*', '*/*'].includes(type),
  );
}

const negotiationVariants: Variant[] = [
  {
    name: 'accept-exact-json-only',
    kind: 'faulty',
    does: 'answers 406 to every Accept but exactly application/json: curl (*/*), axios and browsers are refused',
    breaks: ['ANY-ACCEPT-JSON'],
    server: {
      wrap: intercept((req, res) => {
        const accept = req.headers.accept;
        if (accept === undefined || accept === 'application/json') return false;
        req.resume();
        notAcceptable(res);
        return true;
      }),
    },
  },
  {
    name: 'accept-first-type-only',
    kind: 'faulty',
    does: 'serves the first type an Accept names, and answers 406 when that is not JSON: text/html, application/json;q=0.5 and a browser are refused',
    breaks: ['ANY-ACCEPT-JSON'],
    server: {
      wrap: intercept((req, res) => {
        const accept = req.headers.accept;
        const first = accept === undefined ? undefined : ranges(accept)[0]?.type;
        if (first === undefined || ['application/json', 'application/*', '*/*'].includes(first)) return false;
        req.resume();
        notAcceptable(res);
        return true;
      }),
    },
  },
  {
    name: 'accept-html-page',
    kind: 'faulty',
    does: 'answers an Accept that excludes JSON (text/html) with an HTML page, as a browsable API does (an observation: MAY)',
    breaks: ['ANY-ACCEPT-NOT-JSON'],
    server: {
      wrap: intercept((req, res) => {
        const accept = req.headers.accept;
        if (accept === undefined || admitsJson(accept)) return false;
        req.resume();
        answer(res, 200, '<html><body><h1>Pets</h1></body></html>', 'text/html');
        return true;
      }),
    },
  },
];

// ---------------------------------------------------------------- near misses

/** Cyrillic letters that look like Latin ones, mapped to them as a confusables skeleton does. */
const LOOKALIKES: Record<string, string> = { а: 'a', е: 'e', о: 'o', р: 'p', с: 'c', ѕ: 's', і: 'i', ԁ: 'd' };
/** Characters that render as nothing: zero-width space, non-joiner and joiner, word joiner, BOM. */
const INVISIBLE = /[\u200b-\u200d\u2060\ufeff]/g;

/** Forwards a create whose status `change` read otherwise: the reference then judges what it became. */
function statusReadAs(change: (status: string) => string): Wrap {
  return fixCreateBody((pet) =>
    typeof pet.status === 'string' ? { ...pet, status: change(pet.status) } : pet,
  );
}

/** The Pet's own member names. */
const FIELDS = ['id', 'name', 'tag', 'status'];

/** Forwards a create whose member names `fold` read otherwise: one that folds into a field's name takes it, the last one winning. */
function namesReadAs(fold: (name: string) => string): Wrap {
  return fixCreateBody((pet) => {
    const out: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(pet))
      out[FIELDS.includes(fold(name)) ? fold(name) : name] = value;
    return out;
  });
}

const nearMissVariants: Variant[] = [
  {
    name: 'enum-trimmed',
    kind: 'faulty',
    does: 'trims a status before it checks it: "sold " is stored as sold',
    breaks: ['CREATE-STATUS-OUTSIDE-ENUM'],
    server: { wrap: statusReadAs((status) => status.trim()) },
  },
  {
    name: 'enum-white-space-removed',
    kind: 'faulty',
    does: 'takes every white space out of a status: "pen ding" is stored as pending',
    breaks: ['CREATE-STATUS-OUTSIDE-ENUM'],
    server: { wrap: statusReadAs((status) => status.replace(/\s/g, '')) },
  },
  {
    name: 'enum-invisible-stripped',
    kind: 'faulty',
    does: 'drops zero-width characters from a status: "sold" with a zero-width space is stored as sold',
    breaks: ['CREATE-STATUS-OUTSIDE-ENUM'],
    server: { wrap: statusReadAs((status) => status.replace(INVISIBLE, '')) },
  },
  {
    name: 'enum-nfkc-folded',
    kind: 'faulty',
    does: 'normalises a status to NFKC before it checks it: full-width "ｓｏｌｄ" is stored as sold',
    breaks: ['CREATE-STATUS-OUTSIDE-ENUM'],
    server: { wrap: statusReadAs((status) => status.normalize('NFKC')) },
  },
  {
    name: 'enum-lookalikes-mapped',
    kind: 'faulty',
    does: 'maps Cyrillic lookalikes to Latin letters in a status: "ѕold" is stored as sold',
    breaks: ['CREATE-STATUS-OUTSIDE-ENUM'],
    server: { wrap: statusReadAs((status) => [...status].map((c) => LOOKALIKES[c] ?? c).join('')) },
  },
  {
    name: 'member-names-case-folded',
    kind: 'faulty',
    does: 'reads member names without regard to case, as case-insensitive properties do: "Name" is the name, and "Status" after status overwrites it',
    breaks: ['CREATE-MISSING-REQUIRED', 'CREATE-PERSISTED'],
    server: { wrap: namesReadAs((name) => name.toLowerCase()) },
  },
  {
    name: 'member-names-stripped',
    kind: 'faulty',
    does: 'trims member names and drops the zero-width characters in them: "name " is the name, and "status " after status overwrites it',
    breaks: ['CREATE-MISSING-REQUIRED', 'CREATE-PERSISTED'],
    server: { wrap: namesReadAs((name) => name.trim().replace(INVISIBLE, '')) },
  },
];

// ---------------------------------------------------------------- methods beyond the three

/** The request as TRACE reflects it (message/http): its request line and every header field. */
function reflected(req: IncomingMessage): string {
  const fields = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2)
    fields.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
  return `${req.method} ${req.url} HTTP/${req.httpVersion}\r\n${fields.join('\r\n')}\r\n\r\n`;
}

const methodVariants: Variant[] = [
  {
    name: 'trace-echo',
    kind: 'faulty',
    does: 'answers TRACE with 200 and the request reflected (message/http), its X-API-Key among it',
    breaks: ['ANY-METHOD-UNDEFINED'],
    server: {
      apiKey: KEY,
      wrap: intercept((req, res) => {
        if (req.method !== 'TRACE') return false;
        req.resume();
        answer(res, 200, reflected(req), 'message/http');
        return true;
      }),
    },
    args: ['--api-key', KEY],
  },
  {
    name: 'connect-tunnel',
    kind: 'faulty',
    does: 'answers CONNECT host:port with 200 Connection Established, as an open proxy does',
    breaks: ['ANY-METHOD-UNDEFINED'],
    server: {
      wrap: intercept((req, res) => {
        if (req.method !== 'CONNECT') return false;
        res.writeHead(200, 'Connection Established');
        res.end();
        return true;
      }),
    },
  },
  {
    name: 'webdav-served',
    kind: 'faulty',
    does: "answers WebDAV's PROPFIND with 207 Multi-Status and MOVE with 201, as a WebDAV module in front of the service does",
    breaks: ['ANY-METHOD-UNDEFINED'],
    server: {
      wrap: intercept((req, res) => {
        if (req.method !== 'PROPFIND' && req.method !== 'MOVE') return false;
        req.resume();
        if (req.method === 'MOVE') answer(res, 201);
        else answer(res, 207, '<?xml version="1.0"?><multistatus xmlns="DAV:"/>', 'application/xml');
        return true;
      }),
    },
  },
  {
    name: 'purge-served',
    kind: 'faulty',
    does: "answers PURGE, a cache's method no registry lists, with 200, as a cache in front of the service does",
    breaks: ['ANY-METHOD-UNDEFINED'],
    server: {
      wrap: intercept((req, res) => {
        if (req.method !== 'PURGE') return false;
        req.resume();
        answer(res, 200, '{"purged":true}');
        return true;
      }),
    },
  },
];

// ---------------------------------------------------------------- sizes

/** Bytes past which these servers treat a target or a header field as long (nginx's default buffer). */
const LONG = 8 * 1024;
/** A header limit past what the suite sends, so that a wrap sees the long requests (node:http: 16 KiB). */
const ROOMY = 256 * 1024;

const isLong = (req: IncomingMessage) =>
  (req.url ?? '').length > LONG || req.rawHeaders.some((field) => field.length > LONG);

const sizeVariants: Variant[] = [
  {
    name: 'long-target-500',
    kind: 'faulty',
    does: 'answers 500 to a request whose target or a header field is longer than 8 KiB',
    breaks: ['ANY-NO-5XX'],
    server: {
      maxHeaderSize: ROOMY,
      wrap: intercept((req, res) => {
        if (!isLong(req)) return false;
        req.resume();
        answer(res, 500, '{"title":"Internal Server Error","status":500}', 'application/problem+json');
        return true;
      }),
    },
  },
  {
    name: 'long-request-dropped',
    kind: 'faulty',
    does: 'drops the connection, unanswered, of a request whose target or a header field is longer than 8 KiB',
    breaks: ['ANY-HTTP-MESSAGE'],
    blocks: ['ANY-NO-5XX'],
    server: {
      maxHeaderSize: ROOMY,
      wrap: intercept((req) => {
        if (!isLong(req)) return false;
        req.socket.destroy();
        return true;
      }),
    },
  },
];

// ---------------------------------------------------------------- JSON read by inventing or changing

/** The brackets a text opens and never closes, closed at its end, as a reader that completes a body does. */
function completed(text: string): string {
  const open: string[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') open.push('}');
    else if (c === '[') open.push(']');
    else if (c === '}' || c === ']') open.pop();
  }
  return `${text}${open.reverse().join('')}`;
}

/** A string in single quotes: its text, its quotes included, which a naive reader keeps in the value. */
const SINGLE_QUOTED = /'((?:[^'\\]|\\.)*)'/g;

const readerVariants: Variant[] = [
  {
    name: 'json-completed',
    kind: 'faulty',
    does: 'closes the brackets a create body leaves open, as a reader that completes a truncated body does',
    breaks: ['CREATE-MALFORMED-JSON'],
    server: { wrap: readsAs(completed) },
  },
  {
    name: 'json-holes-null',
    kind: 'faulty',
    does: 'reads a hole in a list ([1,,2]) and a member without a value as null, as a reader that allows missing values does',
    breaks: ['CREATE-MALFORMED-JSON'],
    server: {
      wrap: readsAs((text) =>
        outsideStrings(text, (code) =>
          code.replace(/,(\s*)(?=,)/g, ',$1null').replace(/:(\s*)(?=[,}])/g, ':$1null'),
        ),
      ),
    },
  },
  {
    name: 'json-single-quotes-kept',
    kind: 'faulty',
    does: "takes a string in single quotes and keeps its quotes in the value: {…,\"name\":'Rex',…} is stored with the name 'Rex', quotes and all",
    breaks: ['CREATE-JSON-EXTENSION-REFUSED', 'CREATE-PERSISTED'],
    server: {
      wrap: readsAs((text) =>
        outsideStrings(text, (code) => code.replace(SINGLE_QUOTED, (quoted) => JSON.stringify(quoted))),
      ),
    },
  },
];

// ---------------------------------------------------------------- pages

/**
 * Lists a negative limit as Python slices a list with it, pets[:limit]: every pet but the last
 * |limit|, from its own record of the pets the reference created (in the order it stored them).
 */
function negativeSlice(): Wrap {
  const stored: unknown[] = [];
  return compose(
    rewriteResponse((res, req) => {
      if (isCreate(req) && res.status === 201 && res.body.length > 0)
        stored.push(parse(res.body.toString('utf8')));
      return res;
    }),
    intercept((req, res) => {
      const url = new URL(req.url ?? '/', 'http://variant.invalid');
      const limit = url.searchParams.get('limit');
      if (req.method !== 'GET' || !/\/pets\/?$/.test(url.pathname) || !/^-\d+$/.test(limit ?? ''))
        return false;
      req.resume();
      answer(res, 200, stringify(stored.slice(0, Number(limit))) ?? '[]');
      return true;
    }),
  );
}

const pageVariants: Variant[] = [
  {
    name: 'limit-negative-slice',
    kind: 'faulty',
    does: 'lists a negative limit as a Python slice, pets[:limit]: limit=-1 answers every pet but the last, hundreds of them',
    breaks: ['LIST-LIMIT-PAGE-MAX'],
    server: { wrap: negativeSlice() },
  },
];

export const requestLineVariants: Variant[] = [
  ...guardVariants,
  ...negotiationVariants,
  ...nearMissVariants,
  ...methodVariants,
  ...sizeVariants,
  ...readerVariants,
  ...pageVariants,
];

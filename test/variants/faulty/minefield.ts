/**
 * Faults where parsers and routers commonly go wrong, which the suite once sampled too little of
 * (issue 31): JSON readers more lenient than JSON (or stricter, on a spelling JSON allows), key guards
 * that another spelling of a path gets around, and a store that checks for an id and then inserts
 * it. Each wraps the reference and breaks that one thing.
 */
import { isLosslessNumber, stringify } from 'lossless-json';
import { MAX_BODY_BYTES } from '../../../reference-impl/index.ts';
import { isCreateRequest, isUtf8, jsonOf, withRequestBody } from '../servers/body.ts';
import {
  compose,
  idText,
  isCreate,
  isHeadRequest,
  mapPets,
  rewriteRequest,
  rewriteResponse,
  type Wrap,
} from '../servers/wrap.ts';
import { KEY, type Variant } from '../variant.ts';

// ---------------------------------------------------------------- JSON readers

/**
 * Rewrites the parts of a JSON-like text outside its double-quoted strings (which it keeps, escapes
 * and all): how a lenient reader's extra grammar is put back into JSON for the reference to read.
 */
export function outsideStrings(text: string, rewrite: (code: string) => string): string {
  let out = '';
  let code = '';
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '"') {
      code += text[i];
      continue;
    }
    let end = i + 1;
    while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
    out += `${rewrite(code)}${text.slice(i, end + 1)}`;
    code = '';
    i = end;
  }
  return out + rewrite(code);
}

/**
 * Where the first JSON value of a text ends (a reader that stops there, as a streaming decoder
 * does): after the bracket that closes the first object or array, or the first string; the whole
 * text when no value closes.
 */
function firstValueEnd(text: string): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      if (depth === 0) return i + 1;
    } else if (c === '{' || c === '[') depth++;
    else if ((c === '}' || c === ']') && --depth === 0) return i + 1;
  }
  return text.length;
}

/** Hands the reference a create body as a lenient reader reads it: `read` turns its text into JSON. */
export function readsAs(read: (text: string) => string): Wrap {
  return withRequestBody(isCreateRequest, ({ body, forward }) => {
    if (body.length > MAX_BODY_BYTES || !isUtf8(body)) return forward();
    forward(Buffer.from(read(body.toString('utf8'))));
  });
}

/** JSON escapes of a surrogate pair: \uD83D\uDC08 (not preceded by an escaped backslash). */
const ESCAPED_PAIR = /(?<!\\)((?:\\\\)*)\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}/g;

const readerVariants: Variant[] = [
  {
    name: 'json-first-value',
    kind: 'faulty',
    does: "reads the first JSON value of a create body and ignores what follows it, as Go's json.Decoder does: {…}x and {…}{…} create the pet (a SHOULD: conformant by default)",
    breaks: ['CREATE-JSON-EXTENSION-REFUSED'],
    server: { wrap: readsAs((text) => text.slice(0, firstValueEnd(text))) },
  },
  {
    name: 'json-comments',
    kind: 'faulty',
    does: 'reads create bodies as JSON with comments (JSONC): /* … */ and // … are skipped',
    breaks: ['CREATE-JSON-EXTENSION-REFUSED'],
    server: {
      wrap: readsAs((text) =>
        outsideStrings(text, (code) => code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/[^\n]*/g, '')),
      ),
    },
  },
  {
    name: 'json-single-quotes',
    kind: 'faulty',
    does: "reads strings and keys in single quotes as strings: {'name': 'Rex'} creates the pet",
    breaks: ['CREATE-JSON-EXTENSION-REFUSED'],
    server: {
      wrap: readsAs((text) =>
        outsideStrings(text, (code) =>
          code.replace(/'((?:[^'\\]|\\.)*)'/g, (_, inner: string) => JSON.stringify(inner)),
        ),
      ),
    },
  },
  {
    name: 'json-unquoted-keys',
    kind: 'faulty',
    does: 'reads keys without quotes, as JavaScript object literals have them: {id: 1, name: "Rex"} creates the pet',
    breaks: ['CREATE-JSON-EXTENSION-REFUSED'],
    server: {
      wrap: readsAs((text) =>
        outsideStrings(text, (code) => code.replace(/([A-Za-z_$][\w$]*)(\s*):/g, '"$1"$2:')),
      ),
    },
  },
  {
    name: 'json-trailing-commas',
    kind: 'faulty',
    does: 'reads a comma after the last member of an object or the last item of an array as nothing',
    breaks: ['CREATE-JSON-EXTENSION-REFUSED'],
    server: { wrap: readsAs((text) => outsideStrings(text, (code) => code.replace(/,(\s*[}\]])/g, '$1'))) },
  },
  {
    name: 'surrogate-escapes-split',
    kind: 'faulty',
    does: 'reads each \\u escape of a surrogate pair alone, so that "\\uD83D\\uDC08" is kept as two U+FFFD rather than 🐈',
    breaks: ['CREATE-PERSISTED'],
    server: { wrap: readsAs((text) => text.replace(ESCAPED_PAIR, '$1\\uFFFD\\uFFFD')) },
  },
];

// ---------------------------------------------------------------- key guards and routers

const keyArgs = ['--api-key', KEY, '--auth-required'];

/** The paths of the service whose key guard compares them exactly (the list, a pet by its digits). */
const GUARDED = /^\/v1\/pets(\/-?\d+)?$/;

/**
 * The reference requiring KEY behind a router that reads a path as `route` says: a request whose
 * path the guard does not know as written, but the router takes for a guarded one, is served as if
 * it carried the key. Other requests go to the reference as they came.
 */
function routedPastGuard(route: (path: string) => string): Variant['server'] {
  return {
    apiKey: KEY,
    wrap: rewriteRequest((req) => {
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const path = q < 0 ? url : url.slice(0, q);
      const routed = route(path);
      if (routed === path || GUARDED.test(path) || !GUARDED.test(routed)) return;
      req.url = `${routed}${q < 0 ? '' : url.slice(q)}`;
      req.headers['x-api-key'] = KEY;
    }),
  };
}

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

const routerVariants: Variant[] = [
  {
    name: 'auth-trailing-slash-bypass',
    kind: 'faulty',
    does: 'guards the key on /v1/pets and /v1/pets/{id} as written, while its router takes them with a trailing slash too: GET /v1/pets/ lists pets without it',
    breaks: ['AUTH-MISSING-KEY-REFUSED', 'AUTH-WRONG-KEY-REFUSED'],
    server: routedPastGuard((path) => path.replace(/(.)\/$/, '$1')),
    args: keyArgs,
  },
  {
    name: 'auth-doubled-slash-bypass',
    kind: 'faulty',
    does: 'guards the key on the paths as written, while its router reads a doubled slash as one: GET /v1//pets lists pets without it',
    breaks: ['AUTH-MISSING-KEY-REFUSED', 'AUTH-WRONG-KEY-REFUSED'],
    server: routedPastGuard((path) => path.replace(/\/{2,}/g, '/')),
    args: keyArgs,
  },
  {
    name: 'auth-dot-segment-bypass',
    kind: 'faulty',
    does: 'guards the key on the paths as written, while its router resolves dot segments: GET /v1/./pets lists pets without it',
    breaks: ['AUTH-MISSING-KEY-REFUSED', 'AUTH-WRONG-KEY-REFUSED'],
    server: routedPastGuard(withoutDotSegments),
    args: keyArgs,
  },
  {
    name: 'auth-encoded-path-bypass',
    kind: 'faulty',
    does: 'guards the key on the paths as written, while its router percent-decodes them first: GET /v1/%70ets lists pets without it',
    breaks: ['AUTH-MISSING-KEY-REFUSED', 'AUTH-WRONG-KEY-REFUSED'],
    server: routedPastGuard(decoded),
    args: keyArgs,
  },
  {
    name: 'auth-path-parameter-bypass',
    kind: 'faulty',
    does: 'guards the key on the paths as written, while its router drops ;parameters from each segment, as servlet containers do: GET /v1/pets;x=1 lists pets without it',
    breaks: ['AUTH-MISSING-KEY-REFUSED', 'AUTH-WRONG-KEY-REFUSED'],
    server: routedPastGuard((path) => path.replace(/;[^/]*/g, '')),
    args: keyArgs,
  },
  {
    name: 'auth-head-unguarded',
    kind: 'faulty',
    does: 'guards the key on GET and POST only, and serves HEAD as GET: HEAD /v1/pets answers 200 without the key',
    breaks: ['AUTH-MISSING-KEY-REFUSED', 'AUTH-WRONG-KEY-REFUSED'],
    server: {
      apiKey: KEY,
      wrap: rewriteRequest((req) => {
        if (isHeadRequest(req)) req.headers['x-api-key'] = KEY;
      }),
    },
    args: keyArgs,
  },
];

// ---------------------------------------------------------------- races on one id

const petObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !isLosslessNumber(v);

/**
 * A store that looks an id up, waits `waitMs` (a database round trip), and then inserts without a
 * unique constraint: a create that finds its id is refused (the reference's 409), one that does not
 * is taken even if another create of the id was written during the wait, and the last one written
 * is what the store then shows. The reference answers as usual otherwise.
 */
function checkThenInsert(waitMs: number): Wrap {
  const inserted = new Set<string>();
  /** A create that found no pet of its id, by its response: the pet it writes. */
  const writing = new WeakMap<object, Record<string, unknown>>();
  const written = new Map<string, Record<string, unknown>>();
  return compose(
    rewriteResponse((res, req, raw) => {
      const pet = writing.get(raw);
      if (!isCreate(req) || !pet) return res;
      const id = idText(pet.id);
      if (res.status >= 200 && res.status <= 299) inserted.add(id);
      if (res.status !== 409) return res;
      // No unique constraint: the write goes through, over the pet written meanwhile.
      written.set(id, pet);
      return {
        status: 201,
        headers: { 'content-type': 'application/json', location: `/v1/pets/${id}` },
        body: Buffer.from(stringify(pet) ?? ''),
      };
    }),
    withRequestBody(isCreateRequest, ({ body, res, forward }) => {
      const pet = jsonOf(body);
      if (petObject(pet) && isLosslessNumber(pet.id) && !inserted.has(idText(pet.id))) writing.set(res, pet);
      setTimeout(forward, waitMs);
    }),
    mapPets((p) => written.get(idText(p.id)) ?? p),
  );
}

const raceVariants: Variant[] = [
  {
    name: 'check-then-insert',
    kind: 'faulty',
    does: 'looks the id of a create up, waits 25 ms, then inserts without a unique constraint: creates of one new id sent together are each answered 201, and the last one written is shown',
    breaks: ['CREATE-DUPLICATE-ID'],
    server: { wrap: checkThenInsert(25) },
  },
];

export const minefieldVariants: Variant[] = [...readerVariants, ...routerVariants, ...raceVariants];

/**
 * Tools for breaking the reference implementation one behaviour at a time. A variant wraps the
 * reference handler (STYLE point 13): it rewrites the request before the reference sees it, or the
 * response after the reference wrote it, and leaves everything else as the reference does it.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { isLosslessNumber, LosslessNumber, parse, stringify } from 'lossless-json';
import type { Handler } from '../../../reference-impl/index.ts';

export type Wrap = (handler: Handler) => Handler;

/** A response as the reference wrote it, before it reaches the client. */
export interface CapturedResponse {
  status: number;
  headers: OutgoingHttpHeaders;
  body: Buffer;
}

/** What a response rewrite sees of the request. */
export interface RequestView {
  /** GET for a HEAD served as GET (headAsGet); `head` tells them apart. */
  method: string;
  /** The request arrived as HEAD. */
  head: boolean;
  /** The path, without the query string, e.g. /v1/pets/7. */
  path: string;
  query: URLSearchParams;
}

/** Changes the response in place, or returns a new one. */
export type ResponseRewrite = (
  res: CapturedResponse,
  req: RequestView,
  raw: ServerResponse,
) => CapturedResponse | undefined;

function view(req: IncomingMessage): RequestView {
  const url = new URL(req.url ?? '/', 'http://variant.invalid');
  return {
    method: req.method ?? 'GET',
    head: isHeadRequest(req),
    path: url.pathname,
    query: url.searchParams,
  };
}

/** Requests that arrived as HEAD and are handed on as GET (headAsGet). */
const headRequests = new WeakSet<IncomingMessage>();

/** Whether a request arrived as HEAD, whether or not headAsGet hands it on as GET. */
export function isHeadRequest(req: IncomingMessage): boolean {
  return req.method === 'HEAD' || headRequests.has(req);
}

/**
 * Serves HEAD as the wrapped reference serves GET, without the body, as the reference itself does
 * (RFC 9110 §9.3.2): a variant's wraps see a GET, so that a fault planted in GET answers is in HEAD
 * answers too (the same status and headers, the Content-Length of the changed body), and node:http,
 * which made the response for a HEAD, leaves the body out. A variant that faults HEAD itself asks
 * isHeadRequest() (RequestView.head). The variants are run with it (variants.test.ts).
 */
export function headAsGet(wrap: Wrap): Wrap {
  return (handler) => {
    const served = wrap(handler);
    return (req, res) => {
      if (req.method === 'HEAD') {
        headRequests.add(req);
        req.method = 'GET';
      }
      served(req, res);
    };
  };
}

/**
 * Buffers what the wrapped handler writes (status, headers, body) and hands it to `rewrite` before
 * anything reaches the socket. Content-Length is recomputed from the rewritten body.
 */
export function rewriteResponse(rewrite: ResponseRewrite): Wrap {
  return (handler) => (req, res) => {
    const request = view(req);
    const chunks: Buffer[] = [];
    const original = { writeHead: res.writeHead, write: res.write, end: res.end };
    let status: number | undefined;

    res.writeHead = ((code: number, ...rest: unknown[]) => {
      status = code;
      const headers = rest.find((x) => typeof x === 'object' && x !== null);
      if (Array.isArray(headers)) {
        for (let i = 0; i + 1 < headers.length; i += 2) res.setHeader(String(headers[i]), headers[i + 1]);
      } else if (headers) {
        for (const [name, value] of Object.entries(headers))
          if (value !== undefined) res.setHeader(name, value);
      }
      return res;
    }) as ServerResponse['writeHead'];
    const collect = (chunk: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
    };
    res.write = ((chunk: unknown) => {
      collect(chunk);
      return true;
    }) as ServerResponse['write'];
    res.end = ((chunk?: unknown) => {
      collect(chunk);
      const captured: CapturedResponse = {
        status: status ?? res.statusCode,
        headers: res.getHeaders(),
        body: Buffer.concat(chunks),
      };
      const out = rewrite(captured, request, res) ?? captured;
      for (const name of res.getHeaderNames()) res.removeHeader(name);
      const headers = { ...out.headers };
      for (const name of Object.keys(headers))
        if (name.toLowerCase() === 'content-length') delete headers[name];
      if (out.body.length > 0 || out.status !== 204) headers['content-length'] = String(out.body.length);
      Object.assign(res, original);
      res.writeHead(out.status, headers);
      res.end(out.body);
      return res;
    }) as ServerResponse['end'];
    handler(req, res);
  };
}

/** Rewrites the request the reference sees (its URL, method or headers). */
export function rewriteRequest(rewrite: (req: IncomingMessage) => void): Wrap {
  return (handler) => (req, res) => {
    rewrite(req);
    handler(req, res);
  };
}

/** Answers some requests itself, before the reference sees them; other requests pass through. */
export function intercept(answer: (req: IncomingMessage, res: ServerResponse) => boolean): Wrap {
  return (handler) => (req, res) => {
    if (!answer(req, res)) handler(req, res);
  };
}

/** Applies wraps left to right: compose(a, b)(h) = b(a(h)), so `a` sits nearest the reference. */
export function compose(...wraps: Wrap[]): Wrap {
  return (handler) => wraps.reduce((h, wrap) => wrap(h), handler);
}

/** A JSON value as lossless-json reads it: numbers stay LosslessNumber, digit for digit. */
export type Json = unknown;

/** Rewrites JSON bodies losslessly (ids keep every digit); other bodies pass untouched. */
export function rewriteJson(
  rewrite: (body: Json, req: RequestView, res: CapturedResponse) => Json,
  when: (req: RequestView, res: CapturedResponse) => boolean = () => true,
): Wrap {
  return rewriteResponse((res, req) => {
    const type = String(res.headers['content-type'] ?? '');
    if (!/json/.test(type) || res.body.length === 0 || !when(req, res)) return undefined;
    const body = rewrite(parse(res.body.toString('utf8')), req, res);
    return { ...res, body: Buffer.from(stringify(body) ?? '') };
  });
}

/** Applies `change` to every Pet of a list or show body (objects with an id and a name). */
export function mapPets(change: (pet: Record<string, Json>) => Record<string, Json> | undefined): Wrap {
  const isPet = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && 'id' in v;
  return rewriteJson(
    (body) => {
      if (Array.isArray(body)) return body.map((p) => (isPet(p) ? (change({ ...p }) ?? p) : p));
      return isPet(body) ? (change({ ...body }) ?? body) : body;
    },
    (req, res) => req.method === 'GET' && res.status === 200,
  );
}

/** The id of a pet as a decimal string, whatever form the JSON reader gave it. */
export function idText(id: Json): string {
  return isLosslessNumber(id) ? id.toString() : String(id);
}

/** A JSON number from its decimal text, written back digit for digit. */
export function jsonNumber(text: string): LosslessNumber {
  return new LosslessNumber(text);
}

/** The pet id a show asks for, percent-decoded; as it is when it is not percent-encoding (a %zz names no pet). */
export function shownId(path: string): string {
  const raw = path.split('/').pop() ?? '';
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** True for the list operation (GET /v1/pets). */
export const isList = (req: RequestView) => req.method === 'GET' && /\/pets\/?$/.test(req.path);
/** True for the show operation (GET /v1/pets/{id}). */
export const isShow = (req: RequestView) => req.method === 'GET' && /\/pets\/[^/]+$/.test(req.path);
/** True for the create operation (POST /v1/pets). */
export const isCreate = (req: RequestView) => req.method === 'POST' && /\/pets\/?$/.test(req.path);

/** How a created pet is shown from then on: forgotten (404 to show, left out of lists), or changed. */
export type AfterCreate = 'forget' | ((pet: Record<string, Json>) => Record<string, Json>);

/**
 * Lets the reference create pets as it does (validation included), then changes what it shows of some
 * of them: `decide(inFlight)` is called as a create arrives, with the number of other creates in
 * flight then, and says what becomes of the pet if the reference creates it. Each create is held
 * `holdMs` before the reference sees it, so that creates sent together overlap.
 *
 * A forgotten pet is gone as from a store that never kept it: shown, 404; listed, not there, and
 * the page holds the next pets instead (a page of the reference is rebuilt from the pets its creates
 * answered, in the order it stored them, which is the order its lists follow). Without that, the
 * pets forgotten would still take room in the reference's first 100 and make its pages short.
 */
export function afterCreate(decide: (inFlight: number) => AfterCreate | undefined, holdMs = 0): Wrap {
  return (handler) => {
    const created = new Map<string, AfterCreate>();
    /** Every pet the reference stored (its create answered 2xx), in the order it stored them. */
    const stored: Record<string, Json>[] = [];
    const isPet = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && 'id' in v;
    const show = (pet: Json): Json[] => {
      if (!isPet(pet)) return [pet];
      const how = created.get(idText(pet.id));
      if (how === undefined) return [pet];
      return how === 'forget' ? [] : [how({ ...pet })];
    };
    /**
     * The page the reference would list had it never stored the pets forgotten: the first pets left,
     * as many as its own page holds (its limit, or every pet when the store holds fewer).
     */
    const page = (listed: Json[]): Json[] => {
      const out: Json[] = [];
      for (const pet of stored) {
        if (out.length >= listed.length) break;
        out.push(...show(pet));
      }
      return out;
    };
    const shown = rewriteJson(
      (body, req) => (!Array.isArray(body) ? (show(body)[0] ?? body) : isList(req) ? page(body) : body),
      (req, res) => req.method === 'GET' && res.status === 200 && (isList(req) || isShow(req)),
    )(handler);
    let inFlight = 0;
    return (req, res) => {
      const request = view(req);
      if (isCreate(request)) {
        const how = decide(inFlight);
        inFlight++;
        res.on('close', () => inFlight--);
        const remember = rewriteResponse((captured) => {
          if (captured.status < 200 || captured.status > 299) return undefined;
          const pet = captured.body.length > 0 ? parse(captured.body.toString('utf8')) : undefined;
          if (!isPet(pet)) return undefined;
          stored.push(pet);
          if (how !== undefined) created.set(idText(pet.id), how);
          return undefined;
        })(handler);
        setTimeout(() => remember(req, res), holdMs);
        return;
      }
      const id = isShow(request) ? shownId(request.path) : undefined;
      if (id !== undefined && created.get(id) === 'forget') {
        const body = JSON.stringify({
          type: 'about:blank',
          title: 'Not Found',
          status: 404,
          detail: `no pet has id "${id}"`,
        });
        res.writeHead(404, {
          'content-type': 'application/problem+json',
          'content-length': Buffer.byteLength(body),
        });
        res.end(body);
        return;
      }
      shown(req, res);
    };
  };
}

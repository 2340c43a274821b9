/**
 * The pets service: routing and the operations of spec/openapi.yaml under /v1. Each branch names the
 * requirement ids of spec/requirements.yaml it serves; where the service document is silent, the
 * comment says which plain choice is made (reference-impl/README.md lists them all).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type FieldError, fieldErrors, loadContract } from './contract.ts';
import { readBody, sendJson, sendProblem } from './http.ts';
import { readJson } from './json.ts';
import { MAX_PET_BYTES } from './limits.ts';
import { int64Text, type Pet, PetStore } from './store.ts';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface ReferenceOptions {
  /** When set (non-empty), every request must carry it, or gets 401 with a problem+json body. */
  apiKey?: string;
  /** The header that carries the key; default 'X-API-Key' (the suite's default too). */
  apiKeyHeader?: string;
  /** Carry the key in this query parameter instead of a header. */
  apiKeyQuery?: string;
  /** The pets to serve; by default a new empty store of at most `maxPets` pets. */
  store?: PetStore;
  /** The most pets the new store holds (default 10 000); not with `store`, which has its own. */
  maxPets?: number;
  /**
   * Called when a request reaches the 500 catch-all, which only a bug of this server can do.
   * Default: the error is written to stderr.
   */
  onError?: (error: unknown) => void;
}

/**
 * showPetById is deprecated (service.md, Versioning) with dates the document does not show; these
 * are this server's choices. Deprecated since 2026-01-01T00:00:00Z, an RFC 9745 structured date
 * (SHOW-DEPRECATION-HEADER); sunset on 2027-01-01T00:00:00Z, an RFC 8594 HTTP-date, later than the
 * deprecation (SHOW-SUNSET-HEADER).
 */
export const DEPRECATED_AT = new Date(Date.UTC(2026, 0, 1));
export const SUNSET_AT = new Date(Date.UTC(2027, 0, 1));
const DEPRECATION_HEADERS = {
  Deprecation: `@${DEPRECATED_AT.getTime() / 1000}`, // @1767225600
  Sunset: SUNSET_AT.toUTCString(), // Fri, 01 Jan 2027 00:00:00 GMT
};

/** Text that may be read as an integer: the plain decimal forms, leading zeros included. */
const INTEGER_TEXT = /^-?[0-9]+$/;

/**
 * The handler of the service. Asynchronous because the validators are compiled from
 * spec/openapi.yaml on first use (once per process); the handler itself answers every request.
 */
export async function createReferenceHandler(options: ReferenceOptions = {}): Promise<Handler> {
  const contract = await loadContract();
  if (options.store && options.maxPets !== undefined)
    throw new TypeError('give either store or maxPets: a store has its own maxPets');
  const store = options.store ?? new PetStore({ maxPets: options.maxPets });
  const authorized = options.apiKey ? keyCheck(options.apiKey, options) : undefined;
  const onError = options.onError ?? ((error) => console.error('reference-impl: internal error:', error));

  const route = (req: IncomingMessage, res: ServerResponse): Promise<void> | void => {
    let url = req.url ?? '/';
    // absolute-form (RFC 9112 §3.2.2); authority-form (CONNECT's host:port) names no path here
    if (url.charCodeAt(0) !== 0x2f /* / */) url = originForm(url);
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const query = q === -1 ? '' : url.slice(q + 1);
    const method = req.method;

    // AUTH-MISSING-KEY-REFUSED, AUTH-WRONG-KEY-REFUSED, AUTH-KEY-ACCEPTED: with a key configured,
    // every request must carry it, whatever its path (nothing is told about what exists).
    if (authorized && !authorized(req, query))
      return sendProblem(res, 401, 'a valid API key is required', [{ detail: keyHint(options) }]);

    // VERSION-V1-PREFIX: everything is served under /v1.
    if (path === '/v1/pets') {
      if (method === 'GET' || method === 'HEAD') return listPets(res, query);
      if (method === 'POST') return createPets(req, res);
      return notAllowed(res, method, path, 'GET, HEAD, POST');
    }
    if (path.startsWith('/v1/pets/')) {
      const petId = path.slice('/v1/pets/'.length);
      if (petId !== '' && !petId.includes('/')) {
        if (method === 'GET' || method === 'HEAD') return showPetById(res, petId);
        return notAllowed(res, method, path, 'GET, HEAD');
      }
    }
    if (path === '/v1/store/orders') {
      // STORE-ORDERS-EXISTS: the document says it exists and shows nothing more; an empty list.
      if (method === 'GET' || method === 'HEAD') return sendJson(res, 200, '[]');
      return notAllowed(res, method, path, 'GET, HEAD');
    }
    // ANY-PATH-UNKNOWN
    return sendProblem(res, 404, `there is no resource at ${excerpt(path)}`);
  };

  // listPets — LIST-OK, LIST-LIMIT-AT-MOST, LIST-LIMIT-FILLS, LIST-LIMIT-MAX-ACCEPTED, LIST-LIMIT-DEFAULT
  const listPets = (res: ServerResponse, query: string) => {
    let limit: number = contract.defaultLimit;
    if (query !== '') {
      const values = new URLSearchParams(query).getAll('limit');
      // A repeated limit is ambiguous (OpenAPI form style, explode: a single value): refused.
      if (values.length > 1)
        return invalid(res, [{ detail: 'limit must be given once', parameter: 'limit' }]);
      const text = values[0];
      if (text !== undefined) {
        // LIST-LIMIT-NOT-INTEGER: abc, 1.5, 1e2, an empty value, spaces.
        if (!INTEGER_TEXT.test(text))
          return invalid(res, [
            { detail: `limit must be an integer, not ${excerpt(text)}`, parameter: 'limit' },
          ]);
        // Digits beyond a double's range (Infinity) count as the largest double, same sign: the
        // schema judges both alike. Within range, a double orders integers correctly against 100.
        const value = Number(text);
        limit = Number.isFinite(value) ? value : Math.sign(value) * Number.MAX_VALUE;
        // LIST-LIMIT-OVER-MAX: 101, 2^31, 2^63 and longer digit strings are above the maximum.
        if (!contract.limit(limit)) return invalid(res, fieldErrors(contract.limit.errors, 'limit'));
      }
    }
    // LIST-LIMIT-BELOW-ONE: no minimum is declared, so 0 and negative limits are valid and, asking
    // for at most that many pets, get an empty list.
    return sendJson(res, 200, store.list(limit));
  };

  // createPets — CREATE-OK, CREATE-VALID-GENERATED, CREATE-PERSISTED, CREATE-CONCURRENT
  const createPets = async (req: IncomingMessage, res: ServerResponse) => {
    // CREATE-UNSUPPORTED-MEDIA-TYPE: the body must be application/json (UTF-8, not encoded).
    if (!isJsonContent(req))
      return sendProblem(res, 415, 'the body must be application/json (UTF-8, no Content-Encoding)');
    // CREATE-BODY-TOO-LARGE: readBody answers 413 itself beyond MAX_BODY_BYTES (8 KiB).
    const body = await readBody(req, res);
    if (body === undefined) return;
    // CREATE-MALFORMED-JSON: not UTF-8, empty, too deep, not JSON.
    const read = readJson(body);
    if (!read.ok) return sendProblem(res, 400, read.detail);
    // CREATE-MISSING-REQUIRED, CREATE-WRONG-TYPE, CREATE-STATUS-OUTSIDE-ENUM, CREATE-NOT-AN-OBJECT,
    // CREATE-INVALID-GENERATED: the Pet schema of the document. Extra properties are allowed by it,
    // and kept: the pet is served back as it was sent.
    if (!contract.pet(read.view)) return invalid(res, fieldErrors(contract.pet.errors));
    const pet = read.value as Pet;
    // CREATE-ID-OUT-OF-RANGE, CREATE-INT64-EXACT: the range is checked on the digits, which a double
    // cannot hold. The schema counts 1.0 and 1e2 as integers; this server asks for plain digits.
    const id = int64Text(String(pet.id));
    if (id === undefined)
      return invalid(res, [
        {
          detail: `id must be an int64 (-9223372036854775808 to 9223372036854775807) in plain digits, not ${excerpt(String(pet.id))}`,
          pointer: '#/id',
        },
      ]);
    const added = store.add(pet);
    switch (added.outcome) {
      case 'added':
        return sendJson(res, 201, added.json, { Location: `/v1/pets/${id}` });
      // CREATE-DUPLICATE-ID: the first pet stays as it was.
      case 'exists':
        return sendProblem(res, 409, `a pet with id ${id} exists already`);
      // The document sets no size; this server keeps pets of at most 4 KiB, so that a page of 100 stays
      // small (limits.ts). 413: the content is larger than the server is willing to process.
      case 'too-large':
        return sendProblem(
          res,
          413,
          `the pet takes ${added.bytes} bytes as JSON; a pet may take at most ${MAX_PET_BYTES} bytes`,
        );
      // The store is bounded (limits.ts). 409: the request conflicts with the state of the collection,
      // which holds all it may; not 5xx (the server did not fail) nor 429 (waiting does not help).
      case 'full':
        return sendProblem(
          res,
          409,
          `the store is full: it holds ${store.maxPets} pets, the most it keeps; no pet was added`,
        );
    }
  };

  // showPetById — SHOW-OK, SHOW-UNKNOWN-NOT-2XX, SHOW-UNKNOWN-404, SHOW-ID-MALFORMED
  const showPetById = (res: ServerResponse, rawId: string) => {
    let petId: string;
    try {
      petId = decodeURIComponent(rawId);
    } catch {
      // SHOW-DEPRECATION-HEADER, SHOW-SUNSET-HEADER: this answer is of the deprecated operation too.
      return sendProblem(
        res,
        400,
        `the pet id ${excerpt(rawId)} is not valid percent-encoding`,
        undefined,
        DEPRECATION_HEADERS,
      );
    }
    // petId is declared a string, so any text is a valid petId; text other than an id's canonical
    // digits (abc, 1.5, 007) names no pet: 404, like an unknown id.
    const json = store.get(petId);
    // SHOW-DEPRECATION-HEADER, SHOW-SUNSET-HEADER: on every answer of the deprecated operation.
    if (json === undefined)
      return sendProblem(res, 404, `no pet has id ${excerpt(petId)}`, undefined, DEPRECATION_HEADERS);
    return sendJson(res, 200, json, DEPRECATION_HEADERS);
  };

  const internalError = (res: ServerResponse, error: unknown) => {
    onError(error);
    if (res.headersSent) res.destroy();
    else sendProblem(res, 500, 'the server failed: a bug of the reference implementation');
  };

  // ANY-NO-5XX: nothing above throws on any input; this catch-all exists for bugs, and answers 500
  // rather than leaving the client hanging (the tests check that none of them reaches it).
  return (req, res) => {
    try {
      const pending = route(req, res);
      if (pending) pending.catch((error: unknown) => internalError(res, error));
    } catch (error) {
      internalError(res, error);
    }
  };
}

// ANY-METHOD-405, ANY-METHOD-UNDEFINED: HEAD is served wherever GET is (RFC 9110 §9.1).
function notAllowed(res: ServerResponse, method: string | undefined, path: string, allow: string) {
  sendProblem(res, 405, `${method} is not allowed on ${excerpt(path)}; allowed: ${allow}`, undefined, {
    Allow: allow,
  });
}

/** 400 for a request that breaks the contract: each error says which field and how. */
function invalid(res: ServerResponse, errors: FieldError[]) {
  sendProblem(res, 400, errors.map((error) => error.detail).join('; '), errors);
}

/**
 * The path and query of an absolute-form request target (http: or https:); any other target, such
 * as CONNECT's host:port, is kept as it is, which no route matches (404 names it).
 */
function originForm(target: string): string {
  if (!/^https?:\/\//i.test(target)) return target;
  try {
    const url = new URL(target);
    return url.pathname + url.search;
  } catch {
    return target;
  }
}

function isJsonContent(req: IncomingMessage): boolean {
  const encoding = req.headers['content-encoding'];
  // the usual request, answered without splitting the header
  if (encoding === undefined && req.headers['content-type'] === 'application/json') return true;
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') return false;
  const [type = '', ...parameters] = (req.headers['content-type'] ?? '').split(';');
  if (type.trim().toLowerCase() !== 'application/json') return false;
  return parameters.every((parameter) => {
    const [name = '', value = ''] = parameter.split('=');
    return name.trim().toLowerCase() !== 'charset' || /^"?utf-8"?$/i.test(value.trim());
  });
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/**
 * Compares the key a request carries with the configured one in constant time: both are hashed
 * first, so the comparison runs over equal lengths and reveals neither length nor a matching prefix.
 */
function keyCheck(apiKey: string, options: ReferenceOptions) {
  const expected = sha256(apiKey);
  const header = (options.apiKeyHeader ?? 'X-API-Key').toLowerCase();
  const param = options.apiKeyQuery;
  return (req: IncomingMessage, query: string): boolean => {
    let given: string | undefined;
    if (param) {
      const values = new URLSearchParams(query).getAll(param);
      given = values.length === 1 ? values[0] : undefined;
    } else {
      const value = req.headers[header];
      given = typeof value === 'string' ? value : undefined;
    }
    return given !== undefined && timingSafeEqual(sha256(given), expected);
  };
}

/** Where the key goes, for the 401 body; never the key itself. */
function keyHint(options: ReferenceOptions): string {
  return options.apiKeyQuery
    ? `send the API key in the query parameter ${options.apiKeyQuery}`
    : `send the API key in the ${options.apiKeyHeader ?? 'X-API-Key'} header`;
}

/** Request text quoted in a message, cut to a readable length. */
function excerpt(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}

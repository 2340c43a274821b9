/**
 * The pets service: routing and the three operations of spec/openapi.yaml, under /v1. Each branch
 * names the requirement ids of spec/requirements.yaml it serves; where the service document is
 * silent, a comment says which plain choice is made (README.md lists them all).
 *
 * This file, store.ts, json.ts and responses.ts are the service an implementer would write. What
 * keeps one client from hurting the others (limits, the connection cap, a graceful close) is beside
 * them, each in a file named for what it guards; README.md says how to read them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import querystring from 'node:querystring';
import { keyCheck } from './api-key.ts';
import { readBody } from './body-limit.ts';
import { answeringBugs, type Handler } from './bugs.ts';
import { originForm } from './http-edges.ts';
import { int64Text, type ReadJson, readJson } from './json.ts';
import { sendJson, sendProblem } from './responses.ts';
import { type Pet, PetStore } from './store.ts';
import { loadValidators } from './validators.ts';

export type { Handler } from './bugs.ts';

export interface ReferenceOptions {
  /** When set (non-empty), every request must carry it, or gets 401 with a problem+json body. */
  apiKey?: string;
  /** The header that carries the key; default 'X-API-Key' (the suite's default too). */
  apiKeyHeader?: string;
  /** Carry the key in this query parameter instead of a header. */
  apiKeyQuery?: string;
  /** The pets to serve; by default a new empty store of at most `maxPets` pets. */
  store?: PetStore;
  /** The most pets the new store holds (default 5 000); not with `store`, which has its own. */
  maxPets?: number;
  /** Called when a request reaches the 500 catch-all, which only a bug can do; default: stderr. */
  onError?: (error: unknown) => void;
}

/**
 * showPetById is deprecated (service.md, Versioning) with dates the document does not show; these
 * are this server's: deprecated since 2026-01-01T00:00:00Z, an RFC 9745 structured date
 * (SHOW-DEPRECATION-HEADER), sunset a year later, an RFC 8594 HTTP-date (SHOW-SUNSET-HEADER).
 */
export const DEPRECATED_AT = new Date(Date.UTC(2026, 0, 1));
export const SUNSET_AT = new Date(Date.UTC(2027, 0, 1));
const DEPRECATION_HEADERS = {
  Deprecation: `@${DEPRECATED_AT.getTime() / 1000}`, // @1767225600
  Sunset: SUNSET_AT.toUTCString(), // Fri, 01 Jan 2027 00:00:00 GMT
};

/** An integer in decimal digits (leading zeros included), as it first occurs in a text. */
const DIGITS = /-?[0-9]+/;

/** The handler of the service; asynchronous because the validators are compiled on first use. */
export async function createReferenceHandler(options: ReferenceOptions = {}): Promise<Handler> {
  const validators = await loadValidators();
  // Stryker disable next-line ConditionalExpression: a check of the library's options, before any request
  if (options.store && options.maxPets !== undefined)
    // Stryker disable next-line StringLiteral: the wording of a library error, which no request reaches
    throw new TypeError('give either store or maxPets: a store has its own maxPets');
  const store = options.store ?? new PetStore(options); // of options.maxPets pets at most
  const authorized = options.apiKey ? keyCheck(options.apiKey, options) : undefined;

  // async: whatever it throws becomes a rejection, which answeringBugs answers.
  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = originForm(String(req.url));
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const query = url.slice(path.length); // '' or '?…': URLSearchParams reads past the '?'
    // ANY-METHOD-HEAD: HEAD is served wherever GET is (RFC 9110 §9.1): as a GET, whose body node:http leaves out.
    const method = req.method === 'HEAD' ? 'GET' : req.method;

    // AUTH-MISSING-KEY-REFUSED, AUTH-WRONG-KEY-REFUSED, AUTH-KEY-ACCEPTED: with a key configured,
    // every request must carry it, whatever its path, its query or the form of its target (nothing is
    // told about what exists), and before anything is done: a create refused leaves no pet.
    if (authorized && !authorized(req, query)) return sendProblem(res, 401);

    // ANY-ACCEPT-JSON, ANY-ACCEPT-NOT-JSON: Accept is not read. JSON is the one type served, which
    // every Accept a client sends admits, and RFC 9110 §12.5.1 lets a server disregard one that does not.

    // VERSION-V1-PREFIX: everything is served under /v1.
    if (path === '/v1/pets') {
      switch (method) {
        case 'GET':
          return listPets(res, query);
        case 'POST':
          return createPets(req, res);
        // ANY-METHOD-405, ANY-METHOD-UNDEFINED: OPTIONS and every other method, TRACE (never echoed)
        // and WebDAV's among them; a method node:http does not know is refused by its parser (400).
        default:
          return notAllowed(res, 'GET, HEAD, POST');
      }
    }
    if (path.startsWith('/v1/pets/')) {
      // Any text is a petId (the id of /v1/pets/1/x is 1/x, which names no pet).
      const petId = path.slice('/v1/pets/'.length);
      if (method === 'GET') return showPetById(res, petId);
      return notAllowed(res, 'GET, HEAD');
    }
    // STORE-ORDERS-EXISTS: the document says it exists and shows nothing more; an empty list.
    // Stryker disable next-line ConditionalExpression,StringLiteral: only STORE-ORDERS-EXISTS, a MAY, looks at /store/orders, and --strict does not gate on it
    if (`${method} ${path}` === 'GET /v1/store/orders') return sendJson(res, 200, '[]');
    // ANY-PATH-UNKNOWN
    return sendProblem(res, 404);
  };

  // listPets — LIST-OK, LIST-LIMIT-AT-MOST, LIST-LIMIT-FILLS, LIST-LIMIT-MAX-ACCEPTED, LIST-LIMIT-DEFAULT
  const listPets = (res: ServerResponse, query: string) => {
    // A repeated limit counts by its first value, as URLSearchParams reads it.
    const text = new URLSearchParams(query).get('limit');
    if (text === null) return sendJson(res, 200, store.list(validators.defaultLimit));
    // LIST-LIMIT-NOT-INTEGER, LIST-LIMIT-PADDED-REFUSED: abc, 1.5, 1e2, an empty value, spaces
    // around digits: text that is not digits alone, which is to say whose first run of digits is not
    // the whole of it.
    if (DIGITS.exec(text)?.[0] !== text)
      // Stryker disable next-line StringLiteral: the wording of an error: the service document shows no error body
      return sendProblem(res, 400, 'limit must be an integer in decimal digits');
    // Digits beyond a double's range (±Infinity) count as the largest double, same sign: the schema
    // judges both alike. Within range, a double orders integers correctly against 100.
    const limit = Math.max(-Number.MAX_VALUE, Math.min(Number(text), Number.MAX_VALUE));
    // LIST-LIMIT-OVER-MAX: 101, 2^31, 2^63 and longer digit strings are above the maximum.
    const problem = validators.limit(limit);
    if (problem) return sendProblem(res, 400, problem);
    // LIST-LIMIT-BELOW-ONE, LIST-LIMIT-PAGE-MAX: no minimum is declared, so 0 and negative limits
    // are valid and, asking for at most that many pets, get an empty list (never a slice from the end).
    return sendJson(res, 200, store.list(limit));
  };

  // createPets — CREATE-OK, CREATE-VALID-GENERATED, CREATE-PERSISTED, CREATE-CONCURRENT
  const createPets = async (req: IncomingMessage, res: ServerResponse) => {
    // CREATE-UNSUPPORTED-MEDIA-TYPE: the body must be application/json (UTF-8, not encoded).
    if (!isJsonContent(req)) return sendProblem(res, 415); // Unsupported Media Type says it all
    // CREATE-BODY-TOO-LARGE: readBody answers 413 itself beyond MAX_BODY_BYTES (8 KiB), and then
    // never resolves: the request has its answer.
    const body = await readBody(req, res);
    // CREATE-MALFORMED-JSON, CREATE-JSON-EXTENSION-REFUSED: not UTF-8, empty, too deep, not JSON, an
    // extension of JSON. Of what JSON leaves to the reader (CREATE-PERSISTED's i_ bodies): a byte order
    // mark before the text is ignored, lone surrogates and numbers beyond a double are kept as sent.
    let read: ReadJson;
    try {
      read = readJson(body);
    } catch (error) {
      // Stryker disable next-line StringLiteral: the wording of an error: the service document shows no error body
      return sendProblem(res, 400, `the body is not JSON: ${(error as Error).message}`);
    }
    // CREATE-MISSING-REQUIRED, CREATE-WRONG-TYPE, CREATE-STATUS-OUTSIDE-ENUM, CREATE-NOT-AN-OBJECT,
    // CREATE-INVALID-GENERATED: the Pet schema. Extra properties are allowed by it, and kept. Names
    // and enum values are compared code point for code point: "Name", "sold " and "ｓｏｌｄ" are
    // neither name nor sold, and a member named like a field never changes that field.
    const problem = validators.pet(read.view);
    if (problem) return sendProblem(res, 400, problem);
    const pet = read.value as Pet;
    // CREATE-ID-OUT-OF-RANGE, CREATE-INT64-EXACT: the range is checked on the digits, which a double
    // cannot hold. The schema counts 1.0 and 1e2 as integers; this server asks for plain digits.
    const id = int64Text(String(pet.id));
    if (id === undefined)
      // Stryker disable next-line StringLiteral: the wording of an error: the service document shows no error body
      return sendProblem(res, 400, 'pet/id must be an int64 in plain digits');
    switch (store.add(pet)) {
      // CREATE-LOCATION: the 201 says where the pet is now, and shows it as show does.
      case 'added':
        // Stryker disable next-line ObjectLiteral: the Location of a 201 may be left out (the pet is then identified by the request's URL, RFC 9110 §15.3.2)
        return sendJson(res, 201, store.get(id)!, { Location: `/v1/pets/${id}` });
      // The store is bounded (limits.ts). 409: the request conflicts with the state of the
      // collection, which holds all it may; not 5xx (the server did not fail) nor 429 (waiting does not help).
      // Stryker disable next-line ConditionalExpression,StringLiteral: the reference's own cap of pets: no conformance check fills a store
      case 'full':
        return sendProblem(
          res,
          409,
          // Stryker disable next-line StringLiteral: the wording of an error: the service document shows no error body
          `the store is full: it holds ${store.maxPets} pets, the most it keeps; no pet was added`,
        );
      // CREATE-DUPLICATE-ID: the first pet stays as it was.
      case 'exists':
        // Stryker disable next-line StringLiteral: the wording of an error: the service document shows no error body
        return sendProblem(res, 409, `a pet with id ${id} exists already`);
    }
  };

  // showPetById — SHOW-OK, SHOW-UNKNOWN-NOT-2XX, SHOW-UNKNOWN-404, SHOW-ID-MALFORMED; every answer
  // of the deprecated operation carries SHOW-DEPRECATION-HEADER and SHOW-SUNSET-HEADER.
  const showPetById = (res: ServerResponse, rawId: string) => {
    // Percent-decoded (querystring's unescape leaves what is not percent-encoding, %zz, as it is).
    const petId = querystring.unescape(rawId);
    // petId is declared a string, so any text is a valid petId; text other than an id's canonical
    // digits (abc, 1.5, 007, %zz) names no pet: 404, like an unknown id.
    const json = store.get(petId);
    if (json === undefined) return sendProblem(res, 404, undefined, DEPRECATION_HEADERS);
    return sendJson(res, 200, json, DEPRECATION_HEADERS);
  };

  // ANY-NO-5XX: nothing above throws on any input; bugs.ts answers what a bug would leave hanging.
  return answeringBugs(route, options.onError);
}

// ANY-METHOD-405, ANY-METHOD-UNDEFINED
function notAllowed(res: ServerResponse, allow: string) {
  sendProblem(res, 405, undefined, { Allow: allow });
}

/**
 * application/json, whatever its parameters: JSON text is UTF-8 (RFC 8259 §8.1), which reading the
 * body checks, whatever charset is named. A content coding is not implemented: its bytes are not
 * UTF-8 JSON, and are refused when read.
 */
function isJsonContent(req: IncomingMessage): boolean {
  const type = String(req.headers['content-type']).split(';')[0]!;
  // CREATE-MEDIA-TYPE-FORMS: case-insensitive, and spaces may come before a parameter (RFC 9110 §8.3.1).
  return type.trim().toLowerCase() === 'application/json';
}

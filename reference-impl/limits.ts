/**
 * Every limit of the reference implementation, with the answer a client gets when it reaches it.
 * They bound what one client can make the process hold (memory) and do (CPU) on its single thread;
 * reference-impl/README.md lists them for people. The values follow from what the contract needs.
 */

/**
 * The largest request body read: 8 KiB. A pet of the Pet schema needs a few hundred bytes (an int64
 * id is at most 20 characters, status at most 9; the suite's generated pets have names of at most 24
 * graphemes and a few small extra properties); 8 KiB leaves room for long names, extra properties,
 * whitespace and `\u` escapes. Declared or counted beyond it: 413 with `Connection: close`.
 *
 * It bounds a pet too: a pet is stored as JSON written from what was read, never longer than the body
 * it came in (whitespace goes, escapes stay or shorten), so a page of 100 pets is at most
 * 100 × 8192 + 101 bytes (about 800 KiB), under the 1 MiB the suite reads of a response body. And it
 * bounds the CPU one request costs (`npm run bench` measures the event loop while clients send the
 * costliest 8 KiB bodies of bench/bodies.ts).
 */
export const MAX_BODY_BYTES = 8 * 1024;

/**
 * How deeply arrays and objects may nest in a body: 256 levels, deeper than any pet needs, shallow
 * enough that the recursive parser and serializer cannot exhaust the stack. Deeper: 400.
 */
export const MAX_DEPTH = 256;

/**
 * The number of pets a store holds by default (--max-pets): 5 000, at most about 40 MiB of pets sent
 * over HTTP (5 000 × MAX_BODY_BYTES; 80 MiB in memory if every string is two-byte; `npm run bench`
 * reports the resident memory of a store filled to this cap). A suite run creates about 170 pets.
 * When the store is full: 409, nothing stored, every pet already stored kept.
 */
export const DEFAULT_MAX_PETS = 5_000;

/**
 * The most connections open at once (--max-connections): 512. The first request on a connection
 * beyond it is answered 503 with `Retry-After: 1` and `Connection: close`; a connection beyond it
 * that sends no request within OVERFLOW_WAIT_MS is closed. Beyond twice the cap, new connections are
 * closed at once by node:http (server.maxConnections), unanswered.
 */
export const DEFAULT_MAX_CONNECTIONS = 512;

/**
 * A limit given to the library (maxPets, maxConnections), as it is when it is a positive integer;
 * else a RangeError naming it, so that a mistaken option fails at start rather than at the first request.
 */
export function positiveLimit(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new RangeError(`${name} must be a positive integer, not ${value}`);
  return value;
}

/** How long a connection over the cap may take to send its request before it is closed. */
export const OVERFLOW_WAIT_MS = 1_000;

/** The time allowed for a request's headers: 10 s. Slower: 408, then the connection is closed. */
export const HEADERS_TIMEOUT_MS = 10_000;

/** The time allowed for a whole request, headers and body: 30 s by default. Slower: 408, closed. */
export const REQUEST_TIMEOUT_MS = 30_000;

/** How long an idle keep-alive connection stays open: 5 s, then it is closed (no answer is owed). */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/** How long close() waits for requests in flight before it cuts their connections: 5 s. */
export const CLOSE_GRACE_MS = 5_000;

/**
 * After a refusal that closes the connection (413, 501, 503) the server keeps reading and discarding
 * what the client still sends, up to these bounds, before it closes: closing with unread bytes makes
 * the kernel answer them with a reset, which can reach the client before it has read the answer (a
 * "lingering close", as nginx does).
 */
export const LINGER_BYTES = 16 * 1024 * 1024;
export const LINGER_MS = 2_000;

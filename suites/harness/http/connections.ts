/**
 * Which request went before on a connection. The pool's clients (one connection each at a time, one
 * request at a time on it, written in the order dispatched) are made here, through the `factory`
 * undici's Agent and Pool document; each notes the dispatch options of the requests it is given, and
 * forgets its last request when its connection closes or a new one opens. A request asks, as it gets
 * its connection (its handler's onRequestStart), which request went before it there, so that an
 * answer spoiled by what that one left behind (a body the server did not read, read as the start of
 * the next request) can be told from the server's own (client.ts, spoiled.ts).
 */
import type { Dispatcher } from 'undici';

/** A request written on a connection, and how it was answered. */
export interface PriorRequest {
  readonly method: string;
  /** It had a body (which the server may have left unread). */
  readonly hadBody: boolean;
  /** Its answer's status, once it came (set by its sender). */
  status?: number;
  /** What its sender tagged it with: the client's record of the request. */
  readonly tag?: unknown;
}

/** The last request written on one client's connection. */
interface ConnectionState {
  last: PriorRequest | undefined;
}

/** The client each request was given to, by its dispatch options (the object Agent and Pool hand on). */
const clientOf = new WeakMap<object, ConnectionState>();

/** The Agent's `factory`: a Pool per origin whose clients note the requests they are given. */
export function trackingFactory(
  undici: typeof import('undici'),
): (origin: string | URL, opts: object) => Dispatcher {
  return (origin, opts) =>
    new undici.Pool(origin, {
      ...opts,
      factory: (o: string | URL, clientOpts: object) => trackedClient(undici, o, clientOpts),
    });
}

function trackedClient(undici: typeof import('undici'), origin: string | URL, opts: object): Dispatcher {
  const client = new undici.Client(origin, opts);
  const state: ConnectionState = { last: undefined };
  // A new connection has had no request yet; a closed one is gone with what it held.
  client.on('connect', () => {
    state.last = undefined;
  });
  client.on('disconnect', () => {
    state.last = undefined;
  });
  const dispatch = client.dispatch.bind(client);
  client.dispatch = (options, handler) => {
    clientOf.set(options, state);
    return dispatch(options, handler);
  };
  return client;
}

/**
 * The request dispatched with `options` got its connection: returns the request written before it
 * there (undefined when none, or when its client is not one of these), and notes `me` as the last.
 */
export function connected(options: object, me: PriorRequest): PriorRequest | undefined {
  const state = clientOf.get(options);
  if (!state) return undefined;
  const prior = state.last;
  state.last = me;
  return prior;
}

/**
 * An answer spoiled by the request before it on the same connection: a server that answers a request
 * without reading its body (a 405, a 413, a 401) must read it anyway or close the connection (RFC 9112
 * §9.3); one that keeps the connection alive and leaves the body there reads it as the start of the
 * next request, which then gets an answer to garbage (a 400, a 501) or no HTTP message at all. That is
 * ANY-HTTP-MESSAGE's, naming both requests, not the failure of whichever check sent the second: the
 * client sends it again alone on a new connection (client.ts), and judges by that answer.
 */
import type { SentRequest } from '../evidence/exchange.ts';
import { toCurl } from '../evidence/exchange.ts';
import type { PriorRequest } from './connections.ts';

/** Answers a server gives to a request line it cannot read: what a leftover body turns a request into. */
const GARBAGE_ANSWERS = new Set([400, 414, 431, 501, 505]);

/**
 * Whether an answer may have been spoiled by the request before it on its connection: that one had a
 * body and was not answered 2xx (a server may answer those without reading the body), and this one
 * was answered as garbage is, closing the connection (`status` with `closes`, as servers give up on a
 * request line they cannot read), or was no complete HTTP message (`broken`). A 400 that keeps the
 * connection is the server's own answer to the request.
 */
export function maySpoil(
  prior: PriorRequest | undefined,
  answer: { readonly status: number | undefined; readonly closes: boolean; readonly broken: boolean },
): boolean {
  if (!prior?.hadBody || prior.status === undefined || (prior.status >= 200 && prior.status <= 299))
    return false;
  if (answer.broken) return true;
  return answer.closes && answer.status !== undefined && GARBAGE_ANSWERS.has(answer.status);
}

/** What ANY-HTTP-MESSAGE is told of a spoiled answer: both requests, both answers, and the lines that show it. */
export interface Spoiled {
  readonly expected: string;
  readonly received: string;
  readonly reproduce: string;
}

/**
 * The finding: `second` got `spoiled` on the connection where `first` (answered `firstStatus`) had
 * left its body; alone on a new connection it got `alone`. Its reproduce line sends both on one
 * connection (curl's --next keeps the connection for a request to the same host).
 */
export function spoiledFinding(
  first: SentRequest,
  firstStatus: number,
  second: SentRequest,
  spoiled: string,
  alone: string,
): Spoiled {
  const a = `${first.method} ${new URL(first.url).pathname}`;
  const b = `${second.method} ${new URL(second.url).pathname}`;
  return {
    expected: `each request on a connection read from where the one before it ended: a server that answers without reading a request's body reads it or closes the connection (RFC 9112 §9.3)`,
    received: `${b} was answered ${spoiled} on the connection where ${a} (answered ${firstStatus}) had left its body; sent alone on a new connection, it was answered ${alone}`,
    // -w ends the first answer with a line of its own: the second's status line starts a line.
    reproduce: `${toCurl(first)} -w '\\n' --next ${toCurl(second).replace(/^curl /, '')}  # both on one connection: the second is read after the first's body`,
  };
}

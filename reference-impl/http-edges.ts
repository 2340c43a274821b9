/**
 * Honest answers at the edges of HTTP, which guard clients from hangs and resets where node:http
 * alone would give none: requests it cannot parse, a missing Host, transfer codings this server does
 * not implement, CONNECT (which node:http hands to an event of its own), and absolute-form targets.
 */
import { type IncomingMessage, ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { lingeringClose, refuseAndClose } from './lingering-close.ts';
import { problemJson } from './responses.ts';

/** Answers (and returns true) a request this server cannot serve as HTTP/1.1 asks. */
export function refusedAtTheEdge(req: IncomingMessage, res: ServerResponse): boolean {
  // RFC 9112 §3.2: an HTTP/1.1 request without Host is answered 400 (node:http's own check, turned
  // off in server.ts, would answer without a body).
  if (req.headers.host === undefined && req.httpVersion === '1.1') {
    refuseAndClose(req, res, 400, 'the request has no Host header (RFC 9112 §3.2)');
    return true;
  }
  // Transfer codings. node:http decodes chunked, the only one this server implements. A list whose
  // last coding is not chunked (`gzip`, `chunked, gzip`) has a body of unknown length: node:http's
  // parser fails on it right after its headers, and answerClientError answers 400, as RFC 9112 §6.3
  // asks. Chunked after another coding (`gzip, chunked`) is passed on as chunked, and the body would
  // be read still encoded: 501, a coding not implemented (RFC 9112 §6.1).
  const codings = req.headers['transfer-encoding']
    ?.toLowerCase()
    .split(',')
    .map((c) => c.trim());
  if (codings === undefined) return false;
  if (codings.at(-1) !== 'chunked') return true;
  if (codings.length === 1) return false;
  const detail = `the transfer coding ${JSON.stringify(req.headers['transfer-encoding'])} is not implemented; only chunked, alone, is (RFC 9112 §6.1)`;
  refuseAndClose(req, res, 501, detail);
  return true;
}

/**
 * node:http's 'clientError' listener: a request it could not parse (ANY-NO-5XX) gets 400 (431 for
 * oversized headers, 408 for a client too slow to send its request), then the connection is closed.
 * Nothing is written when the client left or a response is already under way on the connection.
 */
export function answerClientError(responsesOn: (socket: Duplex) => ReadonlySet<ServerResponse>) {
  return (error: NodeJS.ErrnoException, socket: Duplex) => {
    const underway = [...responsesOn(socket)].some((res) => res.headersSent);
    if (error.code === 'ECONNRESET' || !socket.writable || underway) {
      socket.destroy();
      return;
    }
    const [status, detail] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'the request headers are too large']
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'the request did not arrive in time']
          : [400, 'the request is not valid HTTP/1.1'];
    const body = problemJson(status, detail);
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/problem+json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      () => socket.destroy(),
    );
  };
}

/**
 * node:http's 'connect' listener: CONNECT (a tunnel through a proxy) is answered by the request
 * handler all the same, as any other method (this server is no proxy: its host:port target names no
 * resource here, 404; on a path of the API, 405 with Allow). The connection is closed after the answer.
 */
export function answerConnect(
  onRequest: (req: IncomingMessage, res: ServerResponse) => void,
  timeoutMs: number,
) {
  return (req: IncomingMessage, socket: Duplex) => {
    // node:http's timeouts no longer watch this socket
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.once('close', () => clearTimeout(timer));
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    res.once('finish', () => {
      res.detachSocket(socket as Socket);
      lingeringClose(socket);
    });
    onRequest(req, res);
  };
}

/**
 * The path and query of an absolute-form request target (`http://host/v1/pets`, RFC 9112 §3.2.2);
 * any other target that does not start with `/`, such as CONNECT's host:port, is kept as it is, which
 * no route matches (404 names it).
 */
export function originForm(target: string): string {
  if (target.startsWith('/') || !/^https?:\/\//i.test(target)) return target;
  try {
    const url = new URL(target);
    return url.pathname + url.search;
  } catch {
    return target;
  }
}

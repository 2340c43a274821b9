/**
 * The reference server on node:http: the handler of handlers.ts behind the limits that keep one
 * client from pinning it (timeouts, a connection cap), honest answers at the edges of HTTP (requests
 * that are not HTTP, unknown transfer codings, CONNECT), and a close() that answers what it accepted.
 */
import { createServer, type IncomingMessage, ServerResponse, STATUS_CODES } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { createReferenceHandler, type Handler, type ReferenceOptions } from './handlers.ts';
import { problemJson, refuseAndClose } from './http.ts';
import {
  CLOSE_GRACE_MS,
  DEFAULT_MAX_CONNECTIONS,
  HEADERS_TIMEOUT_MS,
  KEEP_ALIVE_TIMEOUT_MS,
  LINGER_BYTES,
  LINGER_MS,
  OVERFLOW_WAIT_MS,
  REQUEST_TIMEOUT_MS,
} from './limits.ts';

export { CLOSE_GRACE_MS };

export interface StartOptions extends ReferenceOptions {
  /** Default 0: a free port, chosen by the system. */
  port?: number;
  /** Default '127.0.0.1'. */
  host?: string;
  /** Wraps the handler, e.g. to break one behaviour (the project's faulty-server variants). */
  wrap?: (handler: Handler) => Handler;
  /**
   * The longest one request may take to arrive, headers and body, in milliseconds; default 30 000.
   * Headers alone get at most 10 000. A slower client gets 408 and its connection is closed.
   */
  requestTimeoutMs?: number;
  /**
   * The most connections served at once; default 512. The first request of a connection beyond it is
   * answered 503 (`Retry-After: 1`, `Connection: close`); beyond twice as many, connections are closed
   * at once, unanswered.
   */
  maxConnections?: number;
}

export interface RunningServer {
  /** The base URL, /v1 included, e.g. http://127.0.0.1:43123/v1. */
  url: string;
  port: number;
  /**
   * Stops accepting connections and answers what it accepted: requests in flight finish (their
   * responses say `Connection: close`), requests that have reached an idle keep-alive connection are
   * read and answered too, then idle connections are closed. Connections still busy after
   * CLOSE_GRACE_MS are cut. Resolves when every connection is closed; calling it again returns the
   * same promise.
   */
  close(): Promise<void>;
}

export async function startReferenceServer(options: StartOptions = {}): Promise<RunningServer> {
  const handler = await createReferenceHandler(options);
  const serve = options.wrap ? options.wrap(handler) : handler;
  const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  if (!Number.isSafeInteger(maxConnections) || maxConnections < 1)
    throw new RangeError(`maxConnections must be a positive integer, not ${maxConnections}`);
  let closing = false;
  /** Responses not yet finished: told to close their connection when close() is called. */
  const inFlight = new Set<ServerResponse>();
  function forget(this: ServerResponse) {
    inFlight.delete(this);
  }
  /** Every open connection. */
  const sockets = new Set<Socket>();
  /** Connections opened beyond maxConnections (their first request is answered 503), with the timer that closes them if none comes. */
  const overCap = new WeakMap<Socket, NodeJS.Timeout>();

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    // While closing, every response ends its connection, so that keep-alive cannot hold close() up.
    if (closing) res.setHeader('Connection', 'close');
    else {
      inFlight.add(res);
      res.on('close', forget);
    }
    // The connection cap: 503 (RFC 9110 §15.6.4, a temporary overload), with when to try again.
    const overflow = overCap.get(req.socket);
    if (overflow) {
      clearTimeout(overflow);
      return refuseAndClose(
        req,
        res,
        503,
        `the server has ${maxConnections} connections open, the most it serves at once; try again in a second`,
        { 'Retry-After': '1' },
      );
    }
    // RFC 9112 §3.2: an HTTP/1.1 request without Host is answered 400 (node:http's own check,
    // turned off below, would answer without a body).
    if (req.headers.host === undefined && req.httpVersion === '1.1')
      return refuseAndClose(req, res, 400, 'the request has no Host header (RFC 9112 §3.2)');
    // Transfer codings. node:http decodes chunked, the only one this server implements. A list whose
    // last coding is not chunked (`gzip`, `chunked, gzip`) has a body of unknown length: node:http's
    // parser fails on it right after its headers, and answerClientError answers 400, as RFC 9112 §6.3
    // asks. Chunked after another coding (`gzip, chunked`) is passed on as chunked, and the body
    // would be read still encoded: 501, a coding not implemented (RFC 9112 §6.1).
    const codings = req.headers['transfer-encoding']
      ?.toLowerCase()
      .split(',')
      .map((c) => c.trim());
    if (codings !== undefined && codings.at(-1) !== 'chunked') return;
    if (codings !== undefined && codings.length > 1)
      return refuseAndClose(
        req,
        res,
        501,
        `the transfer coding ${JSON.stringify(req.headers['transfer-encoding'])} is not implemented; only chunked, alone, is (RFC 9112 §6.1)`,
      );
    serve(req, res);
  };

  const server = createServer(
    {
      requestTimeout,
      headersTimeout: Math.min(HEADERS_TIMEOUT_MS, requestTimeout),
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      requireHostHeader: false,
      // how often the two timeouts above are checked (node's default is 30 s)
      connectionsCheckingInterval: Math.min(1_000, Math.max(10, requestTimeout / 4)),
    },
    onRequest,
  );
  // Beyond twice the cap node:http closes new connections at once; up to it they get a 503.
  server.maxConnections = 2 * maxConnections;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    if (sockets.size > maxConnections) {
      // A connection over the cap gets one answer, and only if it asks for it soon.
      const timer = setTimeout(() => socket.destroy(), OVERFLOW_WAIT_MS);
      overCap.set(socket, timer);
      socket.once('close', () => clearTimeout(timer));
    }
  });
  server.on('clientError', answerClientError);
  // CONNECT (a tunnel through a proxy) reaches node:http's 'connect' event, not the request handler:
  // it is answered by the handler all the same, as any other method (this server is no proxy: its
  // host:port target names no resource here, 404; on a path of the API, 405 with Allow).
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    // node:http's timeouts no longer watch this socket
    const timer = setTimeout(() => socket.destroy(), requestTimeout);
    socket.once('close', () => clearTimeout(timer));
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    res.once('finish', () => {
      res.detachSocket(socket as Socket);
      lingeringClose(socket);
    });
    onRequest(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  // Errors of the listening socket after start (out of file descriptors, for example) are reported,
  // not thrown: the connections already open keep being served.
  server.on('error', (error) => console.error('reference-impl: server error:', error));
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}/v1`;

  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= new Promise<void>((resolve) => {
      closing = true;
      // Keep-alive connections whose response had started: closed once it is sent, unless the
      // client has sent more since (bytesRead moved), which is then answered with Connection: close.
      const idleAfter = new Map<Socket, number>();
      for (const res of inFlight) {
        if (!res.headersSent) res.setHeader('Connection', 'close');
        else {
          const socket = res.socket;
          if (socket) res.once('finish', () => idleAfter.set(socket, socket.bytesRead));
        }
      }
      const sweep = setInterval(() => {
        for (const [socket, bytesRead] of idleAfter)
          if (socket.bytesRead === bytesRead && !hasResponse(socket)) socket.destroy();
      }, 20);
      const cut = setTimeout(() => {
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
      }, CLOSE_GRACE_MS);
      // One turn of the event loop first: a request that has already reached an idle keep-alive
      // connection is read in it and answered (with Connection: close). server.close() then stops
      // listening and closes the connections that are idle; destroying one with a request still
      // unread would answer that request with a reset.
      setImmediate(() =>
        setImmediate(() =>
          server.close(() => {
            clearInterval(sweep);
            clearTimeout(cut);
            resolve();
          }),
        ),
      );
    });
    return closed;
  };
  return { url, port, close };
}

/** Whether a response is being written on the connection, or queued for it. */
function hasResponse(socket: Duplex): boolean {
  return (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage != null;
}

/**
 * Closes a connection without a reset: sends what is buffered and a FIN, then reads and discards what
 * the client still sends until it closes its side, LINGER_BYTES have come or LINGER_MS have passed.
 */
function lingeringClose(socket: Duplex) {
  let discarded = 0;
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  socket.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > LINGER_BYTES) socket.destroy();
  });
  socket.once('end', () => socket.destroy());
  socket.once('close', () => clearTimeout(timer));
  socket.on('error', () => {});
  socket.end();
  socket.resume();
}

/**
 * A request node:http could not parse (ANY-NO-5XX): 400 (431 for oversized headers, 408 for a client
 * too slow to send its request), then the connection is closed. Nothing is written when the client
 * left or a response is already under way on the connection.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex) {
  const response = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || response?.headersSent) {
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
}

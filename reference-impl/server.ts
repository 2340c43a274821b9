/**
 * The reference server on node:http: the handler of handlers.ts behind timeouts that keep slow
 * clients from pinning it, an answer for requests that are not HTTP, and a close() that finishes the
 * requests in flight.
 */
import { createServer, type ServerResponse, STATUS_CODES } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { createReferenceHandler, type Handler, type ReferenceOptions } from './handlers.ts';
import { problemJson, sendProblem } from './http.ts';

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
}

export interface RunningServer {
  /** The base URL, /v1 included, e.g. http://127.0.0.1:43123/v1. */
  url: string;
  port: number;
  /**
   * Stops accepting connections, lets the requests in flight finish (their responses say
   * `Connection: close`), closes idle keep-alive connections at once and each other one as soon as
   * its response is done. Connections still busy
   * after CLOSE_GRACE_MS are cut. Resolves when every connection is closed; calling it again
   * returns the same promise.
   */
  close(): Promise<void>;
}

/** How long close() waits for requests in flight before it cuts their connections. */
export const CLOSE_GRACE_MS = 5_000;

export async function startReferenceServer(options: StartOptions = {}): Promise<RunningServer> {
  const handler = await createReferenceHandler(options);
  const serve = options.wrap ? options.wrap(handler) : handler;
  const requestTimeout = options.requestTimeoutMs ?? 30_000;
  let closing = false;
  /** Responses not yet finished: told to close their connection when close() is called. */
  const inFlight = new Set<ServerResponse>();
  function forget(this: ServerResponse) {
    inFlight.delete(this);
  }

  const server = createServer(
    {
      requestTimeout,
      headersTimeout: Math.min(10_000, requestTimeout),
      keepAliveTimeout: 5_000,
      requireHostHeader: false,
      // how often the two timeouts above are checked (node's default is 30 s)
      connectionsCheckingInterval: Math.min(1_000, Math.max(10, requestTimeout / 4)),
    },
    (req, res) => {
      // While closing, every response ends its connection, so that keep-alive cannot hold close() up.
      if (closing) res.setHeader('Connection', 'close');
      else {
        inFlight.add(res);
        res.on('close', forget);
      }
      // RFC 9112 §3.2: an HTTP/1.1 request without Host is answered 400 (node:http's own check,
      // turned off above, would answer without a body).
      if (req.headers.host === undefined && req.httpVersion === '1.1') {
        res.setHeader('Connection', 'close');
        return sendProblem(res, 400, 'the request has no Host header (RFC 9112 §3.2)');
      }
      serve(req, res);
    },
  );
  server.on('clientError', answerClientError);
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
      for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
      // Connections become idle as their responses finish; each is closed on the next sweep.
      const sweep = setInterval(() => server.closeIdleConnections(), 20);
      const cut = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
      server.close(() => {
        clearInterval(sweep);
        clearTimeout(cut);
        resolve();
      });
      server.closeIdleConnections();
    });
    return closed;
  };
  return { url, port, close };
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

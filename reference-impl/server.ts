/**
 * The reference server on node:http: the service of service.ts behind what keeps one client from
 * pinning it, each in a file named for what it guards: timeouts (below), the connection cap, the
 * body limit, honest answers at the edges of HTTP, and a close() that answers what it accepted.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { capConnections } from './connection-cap.ts';
import { GracefulClose } from './graceful-close.ts';
import { answerClientError, answerConnect, refusedAtTheEdge } from './http-edges.ts';
import {
  CLOSE_GRACE_MS,
  DEFAULT_MAX_CONNECTIONS,
  HEADERS_TIMEOUT_MS,
  KEEP_ALIVE_TIMEOUT_MS,
  REQUEST_TIMEOUT_MS,
} from './limits.ts';
import { createReferenceHandler, type Handler, type ReferenceOptions } from './service.ts';

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
  /**
   * The most bytes of request line and headers read; default node:http's 16 KiB. A request over it
   * is answered 431, then its connection is closed.
   */
  maxHeaderSize?: number;
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

  const server = createServer({
    // Slow clients (slowloris): headers within 10 s, the whole request within requestTimeout (408).
    requestTimeout,
    headersTimeout: Math.min(HEADERS_TIMEOUT_MS, requestTimeout),
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    // how often the two timeouts above are checked (node's default is 30 s)
    connectionsCheckingInterval: Math.min(1_000, Math.max(10, requestTimeout / 4)),
    requireHostHeader: false, // refusedAtTheEdge answers it, with a body
    ...(options.maxHeaderSize === undefined ? {} : { maxHeaderSize: options.maxHeaderSize }),
  });
  const overCap = capConnections(server, options.maxConnections ?? DEFAULT_MAX_CONNECTIONS);
  const closer = new GracefulClose(server);
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    closer.track(req, res);
    if (overCap(req, res) || refusedAtTheEdge(req, res)) return;
    serve(req, res);
  };
  server.on('request', onRequest);
  server.on(
    'clientError',
    answerClientError((socket) => closer.responsesOn(socket)),
  );
  server.on('connect', answerConnect(onRequest, requestTimeout));

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // Errors of the listening socket after start (out of file descriptors, for example) are reported,
  // not thrown: the connections already open keep being served.
  server.on('error', (error) => console.error('reference-impl: server error:', error));
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}/v1`;
  return { url, port, close: () => closer.close() };
}

/**
 * The graceful close, which guards the requests a stopping server has accepted: close() stops
 * accepting connections and answers what it accepted. Requests in flight finish (their responses say
 * `Connection: close`); a request that has already reached an idle keep-alive connection is read and
 * answered too; idle connections are then closed, and whatever is still busy after CLOSE_GRACE_MS is cut.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { CLOSE_GRACE_MS } from './limits.ts';

export class GracefulClose {
  #closing = false;
  #closed: Promise<void> | undefined;
  /** Every open connection. */
  readonly #sockets = new Set<Socket>();
  /** Responses not yet finished, each under the connection of its request. */
  readonly #responses = new Map<Duplex, Set<ServerResponse>>();

  constructor(private readonly server: Server) {
    server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
    });
  }

  /** Keeps `res` until it is finished; while closing, it ends its connection (keep-alive cannot hold close() up). */
  track(req: IncomingMessage, res: ServerResponse) {
    if (this.#closing) res.setHeader('Connection', 'close');
    const socket = req.socket;
    const responses = this.#responses.get(socket) ?? new Set<ServerResponse>();
    this.#responses.set(socket, responses);
    responses.add(res);
    // emitted once the response is sent, or its connection is gone
    res.once('close', () => {
      responses.delete(res);
      if (responses.size === 0) this.#responses.delete(socket);
    });
  }

  /** The responses being written on a connection, or queued for it. */
  responsesOn(socket: Duplex): ReadonlySet<ServerResponse> {
    return this.#responses.get(socket) ?? new Set();
  }

  /** Resolves when every connection is closed; calling it again returns the same promise. */
  close(): Promise<void> {
    this.#closed ??= new Promise<void>((resolve) => {
      this.#closing = true;
      // Keep-alive connections whose response had started: closed once it is sent, unless the
      // client has sent more since (bytesRead moved), which is then answered with Connection: close.
      const idleAfter = new Map<Socket, number>();
      for (const [socket, responses] of this.#responses) {
        for (const res of responses) {
          if (!res.headersSent) res.setHeader('Connection', 'close');
          else res.once('finish', () => idleAfter.set(socket as Socket, (socket as Socket).bytesRead));
        }
      }
      const sweep = setInterval(() => {
        for (const [socket, bytesRead] of idleAfter)
          if (socket.bytesRead === bytesRead && this.responsesOn(socket).size === 0) socket.destroy();
      }, 20);
      const cut = setTimeout(() => {
        this.server.closeAllConnections();
        for (const socket of this.#sockets) socket.destroy();
      }, CLOSE_GRACE_MS);
      // One turn of the event loop first: a request that has already reached an idle keep-alive
      // connection is read in it and answered (with Connection: close). server.close() then stops
      // listening and closes the connections that are idle; destroying one with a request still
      // unread would answer that request with a reset.
      setImmediate(() =>
        setImmediate(() =>
          this.server.close(() => {
            clearInterval(sweep);
            clearTimeout(cut);
            resolve();
          }),
        ),
      );
    });
    return this.#closed;
  }
}

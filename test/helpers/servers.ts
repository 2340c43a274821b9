/**
 * The servers the project's tests start, each on 127.0.0.1 and a free port: hand-made ones (an
 * HTTP handler, a socket that stays silent, raw bytes) and the reference implementation itself,
 * its 500 catch-all watched. Every one is a TestServer; close() ends it and its connections, so
 * that a hanging server never outlives its test.
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, expect } from 'vitest';
import { type RunningServer, type StartOptions, startReferenceServer } from '../../reference-impl/index.ts';

export interface TestServer {
  /** Base URL, /v1 included. */
  readonly url: string;
  close(): Promise<void>;
}

/** A hand-made server: it counts the connections it accepted. */
export interface HandMadeServer extends TestServer {
  /** Connections accepted so far. */
  connections(): number;
}

async function listen(server: Server): Promise<HandMadeServer> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  server.on('connection', (socket: Socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('test server has no port');
  return {
    url: `http://127.0.0.1:${address.port}/v1`,
    connections: () => accepted,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** An HTTP server with the given handler. */
export function httpServer(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<HandMadeServer> {
  return listen(createHttpServer({ keepAliveTimeout: 5_000 }, handle));
}

/** A TCP server that accepts connections and never writes a byte. */
export function silentServer(): Promise<HandMadeServer> {
  return listen(createNetServer((socket) => socket.resume()));
}

/** A TCP server that writes `bytes` raw on every connection. */
export function rawServer(bytes: string): Promise<HandMadeServer> {
  return listen(
    createNetServer((socket) => {
      socket.resume();
      socket.end(bytes);
    }),
  );
}

/** The reference implementation, started for its own tests (a TestServer, with its port). */
export interface ReferenceServer extends RunningServer {
  /** What reached the 500 catch-all: stays empty unless the handler has a bug. */
  readonly internalErrors: unknown[];
}

export async function startServer(options: StartOptions = {}): Promise<ReferenceServer> {
  const internalErrors: unknown[] = [];
  const server = await startReferenceServer({
    onError: (error) => internalErrors.push(error),
    ...options,
    port: 0,
    host: '127.0.0.1',
  });
  return { ...server, internalErrors };
}

/**
 * A server for the describe block this is called in: started before its tests (`options` may be a
 * function, to fill a store first), closed after them, and checked that no request reached the 500
 * catch-all. Read `server` and `base` inside tests and hooks, not while the tests are collected.
 */
export function serverForBlock(options: StartOptions | (() => StartOptions) = {}, startTimeoutMs?: number) {
  let running: ReferenceServer | undefined;
  beforeAll(async () => {
    running = await startServer(typeof options === 'function' ? options() : options);
  }, startTimeoutMs);
  afterAll(async () => {
    await running?.close();
    expect(running?.internalErrors).toEqual([]);
  });
  return {
    get server(): ReferenceServer {
      if (!running) throw new Error('the server starts in beforeAll: read it inside a test or a hook');
      return running;
    },
    /** The base URL, /v1 included. */
    get base(): string {
      return this.server.url;
    },
  };
}

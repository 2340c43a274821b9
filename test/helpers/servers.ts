/**
 * Tiny servers for the harness's own tests, each on 127.0.0.1 port 0. Every socket is tracked and
 * destroyed on close(), so that a hanging server never outlives its test.
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type Server, type Socket } from 'node:net';
import type { Config } from '../../suites/harness/config.ts';

export interface TestServer {
  /** Base URL, /v1 included. */
  readonly url: string;
  /** Connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<TestServer> {
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
export function httpServer(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<TestServer> {
  return listen(createHttpServer({ keepAliveTimeout: 5_000 }, handle));
}

/** A TCP server that accepts connections and never writes a byte. */
export function silentServer(): Promise<TestServer> {
  return listen(createNetServer((socket) => socket.resume()));
}

/** A TCP server that writes `bytes` raw on every connection. */
export function rawServer(bytes: string): Promise<TestServer> {
  return listen(
    createNetServer((socket) => {
      socket.resume();
      socket.end(bytes);
    }),
  );
}

/** A Config for the harness's tests: defaults, with `fields` set. */
export function testConfig(baseUrl: string, fields: Partial<Config> = {}): Config {
  return Object.freeze({
    baseUrl,
    apiKeyHeader: 'X-API-Key',
    authRequired: false,
    readOnly: false,
    strict: false,
    only: [],
    exclude: [],
    seed: 42,
    timeoutMs: 1_000,
    runId: 'harness-test',
    ...fields,
  });
}

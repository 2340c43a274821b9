// Servers for the command's own tests: the reference with one deliberate fault, and servers that
// misbehave below HTTP. Each listens on 127.0.0.1 on a free port and closes every socket on close().
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Socket } from 'node:net';
import { startReferenceServer } from '../../reference-impl/index.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
export type Wrap = (handler: Handler) => Handler;

/** MUST fault (LIST-LIMIT-OVER-MAX): a limit above 100 is served as if it were 100, with 200. */
export const acceptAnyLimit: Wrap = (handler) => (req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  const limit = url.searchParams.get('limit');
  if (req.method === 'GET' && url.pathname === '/v1/pets' && limit !== null && Number(limit) > 100) {
    url.searchParams.set('limit', '100');
    req.url = `${url.pathname}${url.search}`;
  }
  handler(req, res);
};

/** SHOULD-only fault (SHOW-UNKNOWN-404): a pet that does not exist is answered 410 instead of 404. */
export const goneInsteadOfNotFound: Wrap = (handler) => (req, res) => {
  if (/^\/v1\/pets\/[^/?]+/.test(req.url ?? '')) {
    const writeHead = res.writeHead.bind(res) as (status: number, ...rest: unknown[]) => ServerResponse;
    (res as { writeHead: unknown }).writeHead = (status: number, ...rest: unknown[]) =>
      writeHead(status === 404 ? 410 : status, ...rest);
  }
  handler(req, res);
};

export function reference(options: { wrap?: Wrap; apiKey?: string } = {}) {
  return startReferenceServer({ port: 0, host: '127.0.0.1', ...options });
}

export interface Raw {
  url: string;
  close(): Promise<void>;
}

/** A TCP server that accepts connections and then does `onSocket` (hang, send garbage…). */
export async function rawServer(onSocket: (socket: Socket) => void): Promise<Raw> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    onSocket(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Accepts, reads, never answers. */
export const hangs = () => rawServer((socket) => socket.resume());

/** Answers every request with bytes that are not HTTP, then closes. */
export const garbage = () =>
  rawServer((socket) => {
    socket.once('data', () => socket.end('\u0000\u0001 this is not HTTP \u00ff\r\n\r\n'));
  });

/** A port nothing listens on: bound, noted, closed. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

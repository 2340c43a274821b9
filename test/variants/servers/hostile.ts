/**
 * Servers that misbehave below the level of the contract: they hang, reset, drip, flood or answer
 * bytes that are not HTTP. They listen on 127.0.0.1 and destroy every socket on close(); most stand
 * on the harness tests' servers.
 */
import type { ServerResponse } from 'node:http';
import { createServer, type Socket } from 'node:net';
import { httpServer, silentServer, type TestServer } from '../../helpers/servers.ts';

export type HostileServer = () => Promise<TestServer>;

/** What the command's tests need of a server: where it is and how to stop it. */
export type Raw = Pick<TestServer, 'url' | 'close'>;

const PET_LIST = '[{"id":1,"name":"slow"}]';

/** Accepts the connection, reads what comes, never writes a byte. */
export const neverAnswers: HostileServer = silentServer;

/** Promises 1000 bytes of JSON, sends a few, then resets the connection. */
export const resetsMidBody: HostileServer = () =>
  httpServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
    res.write('[{"id":1,"na', () => setTimeout(() => res.socket?.resetAndDestroy(), 10));
  });

/** Answers 200 with a valid list, one byte a second. */
export const drips: HostileServer = () =>
  httpServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(PET_LIST.length) });
    let sent = 0;
    const timer = setInterval(() => {
      if (sent >= PET_LIST.length || res.destroyed) {
        clearInterval(timer);
        res.end();
        return;
      }
      res.write(PET_LIST[sent++]);
    }, 1000);
    res.on('close', () => clearInterval(timer));
  });

/** Streams a valid 50 MB JSON array of pets, minding backpressure, until done or the client leaves. */
export function streamHugeList(res: ServerResponse): void {
  const item = Buffer.from(
    '{"id":1,"name":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"},'.repeat(1000),
  );
  const total = 50 * 1024 * 1024;
  let sent = 0;
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('[');
  const pump = () => {
    while (sent < total && !res.destroyed) {
      sent += item.length;
      if (!res.write(item)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end('{"id":1,"name":"last"}]');
  };
  pump();
}

/** A TCP server that accepts connections and then does `onSocket` with each (hang, send garbage…). */
export async function socketServer(onSocket: (socket: Socket) => void): Promise<Raw> {
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

/** Answers every request with bytes that are not HTTP, then closes. */
export const garbage = () =>
  socketServer((socket) => {
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

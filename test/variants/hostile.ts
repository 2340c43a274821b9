/**
 * Servers that misbehave below the level of the contract: they hang, reset or drip. Each listens on
 * 127.0.0.1, tracks its sockets, and closes them all on close(), so a test never leaves one behind.
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type Server, type Socket } from 'node:net';

export interface RunningHostile {
  url: string;
  close(): Promise<void>;
}
export type HostileServer = () => Promise<RunningHostile>;

async function listen(server: Server): Promise<RunningHostile> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('hostile server has no port');
  return {
    url: `http://127.0.0.1:${address.port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function http(handle: (req: IncomingMessage, res: ServerResponse) => void): HostileServer {
  return () => listen(createHttpServer(handle));
}

const PET_LIST = '[{"id":1,"name":"slow"}]';

export const hostile = {
  /** Accepts the connection, reads what comes, never writes a byte. */
  neverAnswers: (() => listen(createNetServer((socket) => socket.resume()))) as HostileServer,

  /** Promises 1000 bytes of JSON, sends a few, then resets the connection. */
  resetsMidBody: http((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
    res.write('[{"id":1,"na', () => setTimeout(() => res.socket?.resetAndDestroy(), 10));
  }),

  /** Answers 200 with a valid list, one byte a second. */
  drips: http((req, res) => {
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
  }),
};

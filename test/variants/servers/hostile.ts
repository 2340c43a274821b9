/**
 * Servers that misbehave below the level of the contract: they hang, reset or drip. They stand on
 * the harness tests' servers (127.0.0.1, every socket tracked and destroyed on close()).
 */
import type { ServerResponse } from 'node:http';
import { httpServer, silentServer, type TestServer } from '../../harness/servers.ts';

export type HostileServer = () => Promise<TestServer>;

const PET_LIST = '[{"id":1,"name":"slow"}]';

export const hostile = {
  /** Accepts the connection, reads what comes, never writes a byte. */
  neverAnswers: silentServer as HostileServer,

  /** Promises 1000 bytes of JSON, sends a few, then resets the connection. */
  resetsMidBody: (() =>
    httpServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('[{"id":1,"na', () => setTimeout(() => res.socket?.resetAndDestroy(), 10));
    })) as HostileServer,

  /** Answers 200 with a valid list, one byte a second. */
  drips: (() =>
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
    })) as HostileServer,
};

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

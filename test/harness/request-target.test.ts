/**
 * The request line beyond a method and a path: CONNECT's authority-form target, whose answer undici
 * hands over with its connection, and a method a server may not implement (a 501 that is HTTP's own
 * answer, not kept for ANY-NO-5XX). The absolute form is tested with the spellings (spellings.test.ts).
 */
import { execFile, spawnSync } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Client } from '../../suites/harness/http/client.ts';
import { testConfig } from '../helpers/config.ts';
import { type HandMadeServer, httpServer } from '../helpers/servers.ts';

const execFileAsync = promisify(execFile);
const hasCurl = spawnSync('curl', ['--version']).status === 0;

/** A server whose CONNECT answers `reply` gives, raw; it records each CONNECT's target. */
async function connectServer(
  reply: (req: IncomingMessage) => string,
): Promise<{ url: string; targets: string[]; close(): Promise<void> }> {
  const targets: string[] = [];
  const server = createServer((_req, res) => res.end());
  const sockets = new Set<Duplex>();
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    targets.push(String(req.url));
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.write(reply(req));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/v1`,
    targets,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) (socket as Socket).destroy();
        server.close(() => resolve());
      }),
  };
}

describe('CONNECT with an authority-form target (RequestOptions.target)', () => {
  test('sends the host and port as the target, and reads a refusal, its body as its Content-Length says', async () => {
    const body = '{"title":"Method Not Allowed"}';
    const server = await connectServer(
      () =>
        `HTTP/1.1 405 Method Not Allowed\r\nAllow: GET\r\nContent-Type: application/problem+json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    try {
      const res = await new Client(testConfig(server.url)).request('CONNECT', '/pets', {
        target: 'authority',
      });
      expect(server.targets).toEqual([new URL(server.url).host]);
      expect({ status: res.status, allow: res.headers.allow, text: res.text }).toEqual({
        status: 405,
        allow: 'GET',
        text: body,
      });
    } finally {
      await server.close();
    }
  });

  test('takes a 2xx, a tunnel opened, at once, without a body, however long the server keeps it', async () => {
    const server = await connectServer(() => 'HTTP/1.1 200 Connection Established\r\n\r\n');
    try {
      const started = performance.now();
      const res = await new Client(testConfig(server.url, { timeoutMs: 5_000 })).request('CONNECT', '/pets', {
        target: 'authority',
      });
      expect(res.status).toBe(200);
      expect(res.body.length).toBe(0);
      expect(performance.now() - started).toBeLessThan(4_000);
    } finally {
      await server.close();
    }
  });

  test.runIf(hasCurl)('is re-sent so by its curl line (--request-target host:port -X CONNECT)', async () => {
    const server = await connectServer(() => 'HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
    try {
      const res = await new Client(testConfig(server.url)).request('CONNECT', '/pets', {
        target: 'authority',
      });
      const host = new URL(server.url).host;
      expect(res.reproduce).toContain(`--request-target '${host}' -X CONNECT`);
      const { stdout } = await execFileAsync('sh', ['-c', res.reproduce]);
      expect(stdout).toMatch(/^HTTP\/1\.1 404/);
      expect(server.targets).toEqual([host, host]);
    } finally {
      await server.close();
    }
  });
});

describe('a method a server may not implement (RequestOptions.mayBeUnimplemented)', () => {
  let server: HandMadeServer;
  beforeAll(async () => {
    server = await httpServer((req, res) => {
      req.resume();
      res.statusCode = req.method === 'PROPFIND' ? 501 : 500;
      res.end();
    });
  });
  afterAll(() => server.close());

  test("a 501 to it is HTTP's own answer (RFC 9110 §9.1), not kept for ANY-NO-5XX; any other 5xx is", async () => {
    const api = new Client(testConfig(server.url));
    await api.request('PROPFIND', '/pets', { mayBeUnimplemented: true });
    expect(api.serverErrors).toEqual([]);
    await api.request('MOVE', '/pets', { mayBeUnimplemented: true });
    await api.request('PROPFIND', '/pets');
    expect(api.serverErrors.map((e) => `${e.method} ${e.status}`)).toEqual(['MOVE 500', 'PROPFIND 501']);
  });
});

describe("the key's header field sent twice (auth: 'wrong-twice')", () => {
  let server: HandMadeServer;
  const seen: string[][] = [];
  beforeAll(async () => {
    server = await httpServer((req, res) => {
      seen.push(req.rawHeaders);
      req.resume();
      res.end();
    });
  });
  afterAll(() => server.close());

  test('goes out as two lines of the field, each a wrong key, and its curl line sends two as well', async () => {
    const api = new Client(testConfig(server.url, { apiKey: 'the-configured-key-0123' }));
    const res = await api.get('/pets', { auth: 'wrong-twice' });
    const lines = seen[0]!.flatMap((value, i) =>
      i % 2 === 0 && value.toLowerCase() === 'x-api-key' ? [seen[0]![i + 1]!] : [],
    );
    expect(lines).toHaveLength(2);
    expect(new Set(lines).size).toBe(2);
    expect(lines.some((line) => line.includes('the-configured-key'))).toBe(false);
    expect(res.reproduce.match(/-H '(x-api-key|X-API-KEY): /g)).toHaveLength(2);
  });
});

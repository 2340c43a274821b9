import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, test } from 'vitest';
import { createReferenceHandler, PetStore } from '../../reference-impl/index.ts';
import { startServer } from '../helpers/servers.ts';
import { call, delay, rawConnect, readUntilClosed, statusOf } from './helpers.ts';

describe('startReferenceServer and close()', () => {
  test('starts on a free port of 127.0.0.1 and reports it in its URL', async () => {
    const server = await startServer();
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/v1`);
    expect(server.port).toBeGreaterThan(0);
    await server.close();
  });

  test('two servers keep separate stores', async () => {
    const a = await startServer();
    const b = await startServer();
    await call(a.url, 'POST', '/pets', { body: '{"id":1,"name":"a"}' });
    expect((await call(b.url, 'GET', '/pets')).text).toBe('[]');
    await Promise.all([a.close(), b.close()]);
  });

  test('close() lets a request in flight finish, then resolves', async () => {
    const server = await startServer();
    const socket = await rawConnect(server.url);
    const reply = readUntilClosed(socket);
    const body = '{"id":42,"name":"in flight"}';
    socket.write(
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    socket.write(body.slice(0, 10));
    await delay(50); // the server is reading the body when close() is called
    let closed = false;
    const closing = server.close().then(() => {
      closed = true;
    });
    await delay(50);
    expect(closed).toBe(false);
    socket.write(body.slice(10));
    const raw = await reply;
    expect(statusOf(raw)).toBe(201);
    expect(raw).toContain('Connection: close');
    expect(raw).toContain(body);
    await closing;
    expect(closed).toBe(true);
    expect(server.internalErrors).toEqual([]);
  });

  test('close() does not wait for idle keep-alive connections', async () => {
    const server = await startServer();
    const socket = await rawConnect(server.url);
    const reply = readUntilClosed(socket);
    socket.write('GET /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n'); // keep-alive: the connection stays open
    await delay(50);
    const started = performance.now();
    await server.close();
    expect(performance.now() - started).toBeLessThan(500);
    expect(statusOf(await reply)).toBe(200);
  });

  test('a request that has reached an idle keep-alive connection when close() is called is answered, not reset', async () => {
    const server = await startServer();
    const socket = await rawConnect(server.url);
    let error: string | undefined;
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error = e.code;
    });
    const reply = readUntilClosed(socket);
    socket.write('GET /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n');
    await delay(50); // answered; the connection is now idle, kept alive
    socket.write('GET /v1/pets?limit=1 HTTP/1.1\r\nHost: x\r\n\r\n');
    // called before the server has read the second request: it is in the kernel's buffer
    await server.close();
    const raw = await reply;
    expect(raw.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200']);
    expect(raw.split('HTTP/1.1 200')[2]).toContain('Connection: close');
    expect(error).toBeUndefined();
    expect(server.internalErrors).toEqual([]);
  });

  test('a connection whose answer was under way when close() was called is closed once it is sent', async () => {
    const store = new PetStore();
    for (let id = 1; id <= 100; id++) store.add({ id, name: 'n'.repeat(4000) });
    const server = await startServer({ store });
    const socket = await rawConnect(server.url);
    socket.pause(); // the 400 KB answer waits in the buffers until the client reads
    socket.write('GET /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n');
    await delay(50);
    const started = performance.now();
    const closing = server.close();
    const reply = readUntilClosed(socket);
    socket.resume();
    const raw = await reply;
    await closing;
    expect(statusOf(raw)).toBe(200);
    expect(raw.length).toBeGreaterThan(100 * 4000);
    expect(raw.endsWith('}]')).toBe(true);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  test('close() refuses new connections at once', async () => {
    const server = await startServer();
    await server.close();
    await expect(call(server.url, 'GET', '/pets')).rejects.toThrow();
  });

  test('close() called twice returns the same promise', async () => {
    const server = await startServer();
    const first = server.close();
    expect(server.close()).toBe(first);
    await first;
  });

  test('a wrap sees every request before the reference handler, and can answer itself', async () => {
    const seen: string[] = [];
    const server = await startServer({
      wrap: (handler) => (req, res) => {
        seen.push(`${req.method} ${req.url}`);
        if (req.url === '/v1/teapot') {
          res.writeHead(418);
          res.end();
        } else handler(req, res);
      },
    });
    expect((await call(server.url, 'GET', '/pets')).status).toBe(200);
    expect((await call(server.url, 'GET', '/teapot')).status).toBe(418);
    expect(seen).toEqual(['GET /v1/pets', 'GET /v1/teapot']);
    await server.close();
  });

  test("the handler can be mounted on a node:http server of one's own", async () => {
    const handler = await createReferenceHandler();
    const own = createServer(handler);
    await new Promise<void>((resolve) => own.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(own.address() as AddressInfo).port}/v1`;
    expect((await call(base, 'POST', '/pets', { body: '{"id":3,"name":"mounted"}' })).status).toBe(201);
    expect((await call(base, 'GET', '/pets/3')).text).toBe('{"id":3,"name":"mounted"}');
    own.closeAllConnections();
    await new Promise((resolve) => own.close(resolve));
  });

  test('a port in use makes startReferenceServer reject', async () => {
    const server = await startServer();
    const { startReferenceServer } = await import('../../reference-impl/index.ts');
    await expect(startReferenceServer({ port: server.port })).rejects.toThrow(/EADDRINUSE/);
    await server.close();
  });
});

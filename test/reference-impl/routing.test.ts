import { describe, expect, test } from 'vitest';
import { PetStore } from '../../reference-impl/index.ts';
import { serverForBlock } from '../helpers/servers.ts';
import { call, rawConnect, readUntilClosed, statusOf } from './helpers.ts';

describe('routing under /v1', () => {
  const ref = serverForBlock(() => {
    const store = new PetStore();
    store.add({ id: 1, name: 'one' });
    return { store };
  });

  test('the base URL ends in /v1', () => {
    expect(ref.base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  });

  test('GET /v1/store/orders answers 200 with an empty JSON array', async () => {
    const res = await call(ref.base, 'GET', '/store/orders');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.text).toBe('[]');
  });

  test.each([
    ['PUT', '/pets', 'GET, HEAD, POST'],
    ['PATCH', '/pets', 'GET, HEAD, POST'],
    ['DELETE', '/pets', 'GET, HEAD, POST'],
    ['OPTIONS', '/pets', 'GET, HEAD, POST'],
    ['PUT', '/pets/1', 'GET, HEAD'],
    ['PATCH', '/pets/1', 'GET, HEAD'],
    ['DELETE', '/pets/1', 'GET, HEAD'],
    ['POST', '/pets/1', 'GET, HEAD'],
  ])('%s %s is answered 405 with Allow: %s', async (method, path, allow) => {
    const res = await call(ref.base, method, path, method === 'GET' ? {} : { body: '{"id":1,"name":"x"}' });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe(allow);
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(res.json()).toMatchObject({ title: 'Method Not Allowed' });
  });

  test('a method the contract does not define leaves the pet unchanged', async () => {
    await call(ref.base, 'DELETE', '/pets/1');
    await call(ref.base, 'PUT', '/pets/1', { body: '{"id":1,"name":"changed"}' });
    const res = await call(ref.base, 'GET', '/pets/1');
    expect(res.text).toBe('{"id":1,"name":"one"}');
  });

  test.each([
    '/',
    '/v1',
    '/v1/',
    '/pets',
    '/v2/pets',
    '/v1/pets/',
    '/v1/pets/1/owner',
    '/v1/Pets',
    '/v1/store',
    '/v1/store/orders/1',
    '/v1//pets',
  ])('the unknown path %s is answered 404 with a problem body', async (path) => {
    const res = await call(ref.base.replace(/\/v1$/, ''), 'GET', path);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(res.json()).toMatchObject({ title: 'Not Found' });
  });

  test('HEAD /v1/pets answers like GET without a body', async () => {
    const res = await call(ref.base, 'HEAD', '/pets');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['content-length']).toBe(String('[{"id":1,"name":"one"}]'.length));
    expect(res.text).toBe('');
  });

  test('a request target in absolute form is routed by its path', async () => {
    const socket = await rawConnect(ref.base);
    const reply = readUntilClosed(socket);
    socket.end(`GET ${ref.base}/pets?limit=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    const raw = await reply;
    expect(statusOf(raw)).toBe(200);
    expect(raw).toContain('[{"id":1,"name":"one"}]');
  });

  test('every JSON answer, success or error, declares its media type and length', async () => {
    for (const [method, path] of [
      ['GET', '/pets'],
      ['GET', '/pets/1'],
      ['GET', '/pets/2'],
      ['GET', '/store/orders'],
      ['PUT', '/pets'],
      ['GET', '/nothing'],
    ] as const) {
      const res = await call(ref.base, method, path);
      expect(String(res.headers['content-type'])).toMatch(/^application\/(problem\+)?json$/);
      expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
      expect(() => JSON.parse(res.text)).not.toThrow();
    }
  });
});

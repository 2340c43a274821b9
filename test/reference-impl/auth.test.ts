import { describe, expect, test } from 'vitest';
import { serverForBlock } from '../helpers/servers.ts';
import { call } from './helpers.ts';

const KEY = 'k3y-with-some-length-0123456789';

/** One request of each operation, plus an unknown path and an undefined method. */
const REQUESTS = [
  ['GET', '/pets'],
  ['GET', '/pets?limit=1'],
  ['POST', '/pets'],
  ['GET', '/pets/1'],
  ['GET', '/store/orders'],
  ['GET', '/unknown'],
  ['DELETE', '/pets/1'],
] as const;

const bodyFor = (method: string) => (method === 'POST' ? { body: '{"id":1,"name":"x"}' } : {});

describe('with an API key in the default header (X-API-Key)', () => {
  const ref = serverForBlock({ apiKey: KEY });

  test.each(REQUESTS)(
    '%s %s without the key is refused with 401 and a problem body',
    async (method, path) => {
      const res = await call(ref.server.url, method, path, bodyFor(method));
      expect(res.status).toBe(401);
      expect(res.headers['content-type']).toBe('application/problem+json');
      expect(JSON.parse(res.text)).toEqual({ title: 'Unauthorized', status: 401 });
      expect(res.text).not.toContain(KEY);
    },
  );

  test.each([
    ['a wrong key', 'wrong'],
    ['a prefix of the key', KEY.slice(0, -1)],
    ['the key and more', `${KEY}x`],
    ['the key in another case', KEY.toUpperCase()],
    ['an empty key', ''],
  ])('a request with %s is refused with 401', async (_, key) => {
    const res = await call(ref.server.url, 'GET', '/pets', { headers: { 'X-API-Key': key } });
    expect(res.status).toBe(401);
  });

  test('the key sent twice is refused with 401', async () => {
    const res = await call(ref.server.url, 'GET', '/pets', {
      headers: { 'X-API-Key': [KEY, KEY] as unknown as string },
    });
    expect(res.status).toBe(401);
  });

  test('the key in a query parameter does not count when the header carries it', async () => {
    const res = await call(ref.server.url, 'GET', `/pets?api_key=${KEY}`);
    expect(res.status).toBe(401);
  });

  test('requests carrying the key are served: create, list, show, orders', async () => {
    const headers = { 'x-api-key': KEY };
    expect(
      (await call(ref.server.url, 'POST', '/pets', { headers, body: '{"id":1,"name":"x"}' })).status,
    ).toBe(201);
    expect((await call(ref.server.url, 'GET', '/pets', { headers })).status).toBe(200);
    expect((await call(ref.server.url, 'GET', '/pets/1', { headers })).status).toBe(200);
    expect((await call(ref.server.url, 'GET', '/store/orders', { headers })).status).toBe(200);
  });

  test('with the key, an unknown path is still 404 and an undefined method still 405', async () => {
    const headers = { 'X-API-Key': KEY };
    expect((await call(ref.server.url, 'GET', '/unknown', { headers })).status).toBe(404);
    expect((await call(ref.server.url, 'DELETE', '/pets/1', { headers })).status).toBe(405);
  });
});

describe('with an API key in another header', () => {
  const ref = serverForBlock({ apiKey: KEY, apiKeyHeader: 'Authorization-Key' });

  test('the key in the configured header is accepted, whatever its case', async () => {
    const res = await call(ref.server.url, 'GET', '/pets', { headers: { 'AUTHORIZATION-KEY': KEY } });
    expect(res.status).toBe(200);
  });

  test('the key in X-API-Key does not count', async () => {
    const res = await call(ref.server.url, 'GET', '/pets', { headers: { 'X-API-Key': KEY } });
    expect(res.status).toBe(401);
  });
});

describe('with an API key in a query parameter', () => {
  const ref = serverForBlock({ apiKey: KEY, apiKeyQuery: 'api_key' });

  test('the key in the query parameter is accepted, alongside limit', async () => {
    const res = await call(ref.server.url, 'GET', `/pets?limit=5&api_key=${encodeURIComponent(KEY)}`);
    expect(res.status).toBe(200);
    expect(res.text).toBe('[]');
  });

  test('a missing or wrong query key is refused with 401; given twice, the first counts', async () => {
    for (const query of ['', '?api_key=wrong', `?api_key=wrong&api_key=${KEY}`]) {
      expect((await call(ref.server.url, 'GET', `/pets${query}`)).status).toBe(401);
    }
    expect((await call(ref.server.url, 'GET', `/pets?api_key=${KEY}&api_key=wrong`)).status).toBe(200);
  });

  test('the key in the X-API-Key header does not count', async () => {
    const res = await call(ref.server.url, 'GET', '/pets', { headers: { 'X-API-Key': KEY } });
    expect(res.status).toBe(401);
  });
});

describe('without an API key configured', () => {
  const ref = serverForBlock({ apiKey: '' });

  test('requests without a key are served (an empty key means none)', async () => {
    expect((await call(ref.server.url, 'GET', '/pets')).status).toBe(200);
  });

  test('requests with any key are served too', async () => {
    expect(
      (await call(ref.server.url, 'GET', '/pets', { headers: { 'X-API-Key': 'anything' } })).status,
    ).toBe(200);
  });
});

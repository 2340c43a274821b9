import { describe, expect, test } from 'vitest';
import { PetStore } from '../../reference-impl/index.ts';
import { serverForBlock, startServer } from '../helpers/servers.ts';
import { call, idsOf } from './helpers.ts';

describe('GET /v1/pets', () => {
  const PETS = 120;

  const ref = serverForBlock(() => {
    const store = new PetStore();
    for (let i = 1; i <= PETS; i++) store.add({ id: BigInt(i), name: `pet ${i}` });
    return { store };
  });

  const firstIds = (n: number) => Array.from({ length: n }, (_, i) => String(i + 1));

  test('without a limit, it answers 200 with the first 100 pets as a JSON array', async () => {
    const res = await call(ref.base, 'GET', '/pets');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(idsOf(res)).toEqual(firstIds(100));
  });

  test.each([1, 7, 99, 100])('limit=%i answers exactly that many pets, in insertion order', async (limit) => {
    const res = await call(ref.base, 'GET', `/pets?limit=${limit}`);
    expect(res.status).toBe(200);
    expect(idsOf(res)).toEqual(firstIds(limit));
  });

  test('a limit written with leading zeros (007) is the integer it spells', async () => {
    const res = await call(ref.base, 'GET', '/pets?limit=007');
    expect(idsOf(res)).toEqual(firstIds(7));
  });

  test.each([
    ['101', '101'],
    ['1000', '1000'],
    ['2^31', '2147483648'],
    ['2^63', '9223372036854775808'],
    ['400 digits', '9'.repeat(400)],
  ])('a limit above 100 (%s) is refused with 400 naming the limit parameter', async (_, limit) => {
    const res = await call(ref.base, 'GET', `/pets?limit=${limit}`);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(res.text)).toEqual({
      title: 'Bad Request',
      status: 400,
      detail: 'limit must be <= 100',
    });
  });

  test.each([
    ['abc', 'abc'],
    ['1.5', '1.5'],
    ['an empty value', ''],
    ['1e2', '1e2'],
    ['a space', '%2010'],
    ['a plus sign', '%2B10'],
    ['0x10', '0x10'],
  ])(
    'a limit that is not an integer (%s) is refused with 400 naming the limit parameter',
    async (_, limit) => {
      const res = await call(ref.base, 'GET', `/pets?limit=${limit}`);
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toBe('application/problem+json');
      expect(res.json()).toMatchObject({ detail: 'limit must be an integer in decimal digits' });
    },
  );

  test('a bare "limit" without "=" is an empty value and is refused with 400', async () => {
    const res = await call(ref.base, 'GET', '/pets?limit');
    expect(res.status).toBe(400);
  });

  test('a limit given twice counts by its first value, as URLSearchParams reads it', async () => {
    expect(idsOf(await call(ref.base, 'GET', '/pets?limit=2&limit=5'))).toEqual(firstIds(2));
    expect((await call(ref.base, 'GET', '/pets?limit=abc&limit=5')).status).toBe(400);
  });

  test.each(['0', '-1', '-0', `-${'9'.repeat(400)}`])(
    'limit=%s, below 1 but allowed by the schema (no minimum), answers 200 with an empty array',
    async (limit) => {
      const res = await call(ref.base, 'GET', `/pets?limit=${limit}`);
      expect(res.status).toBe(200);
      expect(res.text).toBe('[]');
    },
  );

  test('other query parameters are ignored', async () => {
    const res = await call(ref.base, 'GET', '/pets?limit=3&page=2&cursor=x');
    expect(idsOf(res)).toEqual(firstIds(3));
  });

  test('a pet created after the first page was served appears in a longer page', async () => {
    const small = new PetStore();
    small.add({ id: 1, name: 'one' });
    const other = await startServer({ store: small });
    try {
      expect(idsOf(await call(other.url, 'GET', '/pets?limit=2'))).toEqual(['1']);
      expect(idsOf(await call(other.url, 'GET', '/pets?limit=1'))).toEqual(['1']);
      const created = await call(other.url, 'POST', '/pets', { body: '{"id":2,"name":"two"}' });
      expect(created.status).toBe(201);
      expect(idsOf(await call(other.url, 'GET', '/pets?limit=2'))).toEqual(['1', '2']);
      expect(idsOf(await call(other.url, 'GET', '/pets?limit=1'))).toEqual(['1']);
    } finally {
      await other.close();
    }
    expect(other.internalErrors).toEqual([]);
  });
});

describe('GET /v1/pets over a million pets', () => {
  let fillMs: number;

  const ref = serverForBlock(() => {
    const store = new PetStore();
    const started = performance.now();
    for (let i = 1; i <= 1_000_000; i++) store.add({ id: BigInt(i), name: `pet ${i}`, tag: 'bulk' });
    fillMs = performance.now() - started;
    return { store };
  }, 30_000);

  test('the store takes a million pets through add() in a few seconds', () => {
    expect(fillMs).toBeLessThan(10_000);
  });

  test('limit=100 answers the first 100 pets within milliseconds, as from a small store', async () => {
    await call(ref.server.url, 'GET', '/store/orders'); // connects, so that the timing below is the listing
    const started = performance.now();
    const res = await call(ref.server.url, 'GET', '/pets?limit=100');
    const elapsed = performance.now() - started;
    expect(res.status).toBe(200);
    expect(idsOf(res)).toEqual(Array.from({ length: 100 }, (_, i) => String(i + 1)));
    expect(elapsed).toBeLessThan(100);
  });

  test('every limit from 1 to 100 is answered in well under a second altogether', async () => {
    const started = performance.now();
    for (let limit = 1; limit <= 100; limit++) {
      const res = await call(ref.server.url, 'GET', `/pets?limit=${limit}`);
      expect((res.json() as unknown[]).length).toBe(limit);
    }
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

import { describe, expect, test } from 'vitest';
import { DEPRECATED_AT, PetStore, SUNSET_AT } from '../../reference-impl/index.ts';
import { serverForBlock } from '../helpers/servers.ts';
import { call } from './helpers.ts';

describe('GET /v1/pets/{petId}', () => {
  const ref = serverForBlock(() => {
    const store = new PetStore();
    store.add({ id: 7n, name: 'Seven', tag: 'cat', status: 'sold' });
    store.add({ id: '-9223372036854775808', name: 'Min' });
    return { store };
  });

  test('an existing pet is answered 200 with that pet as application/json', async () => {
    const res = await call(ref.base, 'GET', '/pets/7');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.text).toBe('{"id":7,"name":"Seven","tag":"cat","status":"sold"}');
  });

  test('the Deprecation header is an RFC 9745 structured date: @ and the epoch seconds of 2026-01-01', async () => {
    const res = await call(ref.base, 'GET', '/pets/7');
    expect(res.headers.deprecation).toBe('@1767225600');
    expect(DEPRECATED_AT.toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });

  test('the Sunset header is an IMF-fixdate HTTP-date, 2027-01-01, later than the deprecation', async () => {
    const res = await call(ref.base, 'GET', '/pets/7');
    const sunset = String(res.headers.sunset);
    expect(sunset).toBe('Fri, 01 Jan 2027 00:00:00 GMT');
    expect(sunset).toMatch(
      /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
    );
    expect(Date.parse(sunset)).toBe(SUNSET_AT.getTime());
    const deprecatedSeconds = Number(String(res.headers.deprecation).slice(1));
    expect(Date.parse(sunset) / 1000).toBeGreaterThan(deprecatedSeconds);
  });

  test('the smallest int64 id is found by its digits', async () => {
    const res = await call(ref.base, 'GET', '/pets/-9223372036854775808');
    expect(res.status).toBe(200);
    expect(res.text).toBe('{"id":-9223372036854775808,"name":"Min"}');
  });

  test('a percent-encoded id is decoded before the lookup', async () => {
    const res = await call(ref.base, 'GET', '/pets/%37');
    expect(res.status).toBe(200);
  });

  test('an unknown id is answered 404 with a problem body, still with the deprecation headers', async () => {
    const res = await call(ref.base, 'GET', '/pets/8');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(res.json()).toMatchObject({
      title: 'Not Found',
    });
    expect(res.headers.deprecation).toBe('@1767225600');
    expect(res.headers.sunset).toBe('Fri, 01 Jan 2027 00:00:00 GMT');
  });

  test.each([
    ['abc', 'abc'],
    ['1.5', '1.5'],
    ['007, not the canonical digits of 7', '007'],
    ['+7', '+7'],
    ['2^63, outside int64', '9223372036854775808'],
    ['a space', '%20'],
    ['a 2000-character id', 'x'.repeat(2000)],
  ])('a petId that is no int64 id (%s) names no pet: 404', async (_, petId) => {
    const res = await call(ref.base, 'GET', `/pets/${petId}`);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('application/problem+json');
  });

  test('a petId that is not valid percent-encoding names no pet: 404, still with the deprecation headers', async () => {
    const res = await call(ref.base, 'GET', '/pets/%E0%A4%A');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(res.headers.deprecation).toBe('@1767225600');
    expect(res.headers.sunset).toBe('Fri, 01 Jan 2027 00:00:00 GMT');
  });
});

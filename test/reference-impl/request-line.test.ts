/**
 * The reference at the request line and the headers (issue 37): the key guarded whatever the form of
 * the target, Accept, methods beyond the three, sizes, near-miss names and values, and what JSON
 * leaves to the reader.
 */
import { describe, expect, test } from 'vitest';
import { serverForBlock } from '../helpers/servers.ts';
import { call, createPet, rawConnect, readUntilClosed, statusOf } from './helpers.ts';

const KEY = 'k3y-of-the-request-line-tests';

/** A raw request's answer: the request line and headers as given, the connection closed after. */
async function raw(base: string, head: string): Promise<string> {
  const socket = await rawConnect(base);
  const reply = readUntilClosed(socket);
  socket.end(`${head}\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
  return reply;
}

describe('with an API key, every form of the target is guarded', () => {
  const ref = serverForBlock({ apiKey: KEY });

  test.each(['/pets?', '/pets?x=1', '/pets?limit=5', '/%2570ets', '/pets;x=1'])(
    'GET /v1%s without the key is refused with 401',
    async (path) => {
      expect((await call(ref.base, 'GET', path)).status).toBe(401);
    },
  );

  test('a target in absolute form without the key is refused with 401, with it served', async () => {
    expect(statusOf(await raw(ref.base, `GET ${ref.base}/./pets?x=1 HTTP/1.1`))).toBe(401);
    expect(statusOf(await raw(ref.base, `GET ${ref.base}/pets HTTP/1.1\r\nX-API-Key: ${KEY}`))).toBe(200);
  });

  test('a create refused for its key leaves no pet', async () => {
    expect((await createPet(ref.base, '{"id":37,"name":"refused"}')).status).toBe(401);
    const shown = await call(ref.base, 'GET', '/pets/37', { headers: { 'x-api-key': KEY } });
    expect(shown.status).toBe(404);
  });
});

describe('without a key', () => {
  const ref = serverForBlock();

  test.each([
    '*/*',
    'application/*',
    'application/json, text/plain, */*',
    'text/html, application/json;q=0.5',
    'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    'text/html',
  ])('Accept: %s is answered in JSON (Accept is not read)', async (accept) => {
    const res = await call(ref.base, 'GET', '/pets', { headers: { accept } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
  });

  test.each(['TRACE', 'PROPFIND', 'MOVE', 'PURGE'])(
    '%s /v1/pets is 405 with Allow, nothing of the request echoed',
    async (method) => {
      const res = await call(ref.base, method, '/pets', { headers: { 'x-echo-me': 'secret-ish' } });
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD, POST');
      expect(res.text).not.toContain('secret-ish');
    },
  );

  test('a method node:http does not know is a request it cannot parse: 400', async () => {
    expect(statusOf(await raw(ref.base, 'BREW /v1/pets HTTP/1.1'))).toBe(400);
  });

  test('a target of 64 KiB, and a header of 16 KiB, are answered 431', async () => {
    expect((await call(ref.base, 'GET', `/pets?x=${'a'.repeat(64 * 1024)}`)).status).toBe(431);
    const padded = await call(ref.base, 'GET', '/pets', { headers: { 'x-padding': 'a'.repeat(16 * 1024) } });
    expect(padded.status).toBe(431);
  });

  test.each(['%205', '5%20'])(
    'limit=%s, digits with white space around them, is refused with 400',
    async (limit) => {
      expect((await call(ref.base, 'GET', `/pets?limit=${limit}`)).status).toBe(400);
    },
  );

  test('members named like the fields are kept beside them, and change none of them', async () => {
    const body =
      '{"id":3701,"name":"Rex","status":"pending","status ":"sold","Status":"sold","Name":"x","nаme":"x"}';
    expect((await createPet(ref.base, body)).status).toBe(201);
    const shown = (await call(ref.base, 'GET', '/pets/3701')).json() as Record<string, unknown>;
    expect({ name: shown.name, status: shown.status, near: shown['status '] }).toEqual({
      name: 'Rex',
      status: 'pending',
      near: 'sold',
    });
  });

  test.each(['sold ', 'pen ding', 'sold\u200b', 'ｓｏｌｄ', 'ѕold', 'SOLD'])(
    'status %j, a near miss of the enum, is refused with 400',
    async (status) => {
      const res = await createPet(ref.base, JSON.stringify({ id: 3702, name: 'Rex', status }));
      expect(res.status).toBe(400);
    },
  );

  test('of what JSON leaves to the reader: a byte order mark, a lone surrogate and huge numbers taken, 500 levels refused', async () => {
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"id":3703,"name":"Rex"}')]);
    expect((await call(ref.base, 'POST', '/pets', { body: bom })).status).toBe(201);
    expect((await createPet(ref.base, '{"id":3704,"name":"Rex\\uD800"}')).status).toBe(201);
    expect(
      (await createPet(ref.base, '{"id":3705,"name":"Rex","n":[1e400,123456789012345678901234567890]}'))
        .status,
    ).toBe(201);
    expect((await call(ref.base, 'GET', '/pets/3705')).text).toContain(
      '[1e400,123456789012345678901234567890]',
    );
    const deep = `{"id":3706,"name":"Rex","n":${'['.repeat(500)}${']'.repeat(500)}}`;
    expect((await createPet(ref.base, deep)).status).toBe(400);
  });
});

describe('with maxHeaderSize of 256 KiB', () => {
  const ref = serverForBlock({ maxHeaderSize: 256 * 1024 });

  test('a target of 64 KiB is served, which the default of 16 KiB answers 431', async () => {
    const res = await call(ref.base, 'GET', `/pets?x=${'a'.repeat(64 * 1024)}`);
    expect(res.status).toBe(200);
    expect(res.text).toBe('[]');
  });
});

/**
 * The limits of reference-impl/limits.ts over HTTP: each is reached, answered as documented in
 * reference-impl/README.md, and leaves the server serving with nothing lost.
 */
import type { Socket } from 'node:net';
import { describe, expect, test } from 'vitest';
import { hostileBodies } from '../../bench/bodies.ts';
import { MAX_BODY_BYTES, PetStore } from '../../reference-impl/index.ts';
import { serverForBlock, startServer } from '../helpers/servers.ts';
import { call, createPet, delay, petOfSize, rawConnect, readUntilClosed, statusOf } from './helpers.ts';

describe('the size of a pet', () => {
  const ref = serverForBlock();

  test.each([
    ['ASCII', false],
    ['with a two-byte character', true],
  ])('a pet whose body is exactly MAX_BODY_BYTES (%s) is stored and served back whole', async (_, wide) => {
    const id = wide ? 2 : 1;
    const json = petOfSize(id, MAX_BODY_BYTES, wide);
    expect(Buffer.byteLength(json)).toBe(MAX_BODY_BYTES);
    const res = await createPet(ref.base, json);
    expect(res.status).toBe(201);
    expect((await call(ref.base, 'GET', `/pets/${id}`)).text).toBe(json);
  });

  test('a pet is stored as its JSON, never longer than the body it came in: spaces go, escapes shorten', async () => {
    const json = petOfSize(4, MAX_BODY_BYTES - 100);
    const body = `  \n${json.replace('"name":"', '"name":"\\u0041\\/')}\n  `;
    const res = await createPet(ref.base, body);
    expect(res.status).toBe(201);
    expect(res.text).toBe(json.replace('"name":"', '"name":"A/'));
    expect(Buffer.byteLength(res.text)).toBeLessThan(Buffer.byteLength(body));
  });

  test('a page of 100 pets at the body limit stays under the 1 MiB the suite reads of a body', async () => {
    const store = new PetStore();
    for (let id = 1; id <= 100; id++) store.add(JSON.parse(petOfSize(id, MAX_BODY_BYTES, true)));
    const other = await startServer({ store });
    try {
      const res = await call(other.url, 'GET', '/pets?limit=100');
      expect(res.status).toBe(200);
      expect((res.json() as unknown[]).length).toBe(100);
      expect(Number(res.headers['content-length'])).toBe(100 * MAX_BODY_BYTES + 101);
      expect(100 * MAX_BODY_BYTES + 101).toBeLessThan(1024 * 1024);
    } finally {
      await other.close();
    }
  });
});

describe('a full store', () => {
  const ref = serverForBlock({ maxPets: 3 });

  test('the pet after the last one it holds is refused with 409 naming the cap, and every pet is kept', async () => {
    for (const id of [1, 2, 3])
      expect((await createPet(ref.base, `{"id":${id},"name":"p${id}"}`)).status).toBe(201);
    const res = await createPet(ref.base, '{"id":4,"name":"p4"}');
    expect(res.status).toBe(409);
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(res.json()).toMatchObject({
      title: 'Conflict',
      detail: 'the store is full: it holds 3 pets, the most it keeps; no pet was added',
    });
    expect((await call(ref.base, 'GET', '/pets/4')).status).toBe(404);
    expect((await call(ref.base, 'GET', '/pets')).text).toBe(
      '[{"id":1,"name":"p1"},{"id":2,"name":"p2"},{"id":3,"name":"p3"}]',
    );
  });

  test('an existing id is still told as a duplicate, not as a full store', async () => {
    const res = await createPet(ref.base, '{"id":1,"name":"again"}');
    expect(res.status).toBe(409);
    expect(res.json()).toMatchObject({ detail: 'a pet with id 1 exists already' });
  });

  test('store and maxPets together are refused: the store has its own cap', async () => {
    await expect(startServer({ store: new PetStore(), maxPets: 5 })).rejects.toThrow(
      /either store or maxPets/,
    );
  });
});

describe('the connection cap', () => {
  const CAP = 3;
  const ref = serverForBlock({ maxConnections: CAP });

  /** Opens `n` connections and waits until the server has accepted them. */
  async function hold(n: number): Promise<Socket[]> {
    const sockets = await Promise.all(Array.from({ length: n }, () => rawConnect(ref.base)));
    for (const socket of sockets) socket.on('error', () => {});
    await delay(50);
    return sockets;
  }

  test('a request on a connection beyond the cap is answered 503 with Retry-After, then closed; the others are served', async () => {
    const held = await hold(CAP);
    try {
      const extra = await rawConnect(ref.base);
      const reply = readUntilClosed(extra);
      extra.write('GET /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n');
      const raw = await reply;
      expect(statusOf(raw)).toBe(503);
      expect(raw).toContain('Retry-After: 1');
      expect(raw).toContain('Connection: close');
      expect(raw).toContain('Content-Type: application/problem+json');
      expect(raw).toContain(`the server has ${CAP} connections open, the most it serves at once`);
      // the connections under the cap are served as usual
      const first = held[0]!;
      const answer = readUntilClosed(first, 5_000, '\r\n\r\n[');
      first.write('GET /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n');
      expect(statusOf(await answer)).toBe(200);
    } finally {
      for (const socket of held) socket.destroy();
    }
    await delay(50);
    expect((await call(ref.base, 'GET', '/pets')).status).toBe(200);
  });

  test('a connection beyond the cap that sends nothing is closed within a few seconds', async () => {
    const held = await hold(CAP);
    try {
      const extra = await rawConnect(ref.base);
      const started = performance.now();
      expect(await readUntilClosed(extra, 5_000)).toBe('');
      expect(performance.now() - started).toBeLessThan(4_000);
    } finally {
      for (const socket of held) socket.destroy();
    }
  });

  test('beyond twice the cap, a connection is closed at once without an answer', async () => {
    const held = await hold(2 * CAP);
    try {
      const extra = await rawConnect(ref.base);
      extra.on('error', () => {});
      const reply = readUntilClosed(extra, 3_000);
      extra.write('GET /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n');
      expect(await reply).toBe('');
    } finally {
      for (const socket of held) socket.destroy();
    }
  });
});

describe('the costliest bodies the limits let through (bench/bodies.ts, measured by npm run bench)', () => {
  const ref = serverForBlock();
  let id = 9000n;
  const bodies = hostileBodies(() => id++);

  test('each fits the body limit, so that the server reads it whole', () => {
    for (const { body } of bodies) expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_BODY_BYTES);
  });

  test.each(bodies.map(({ name, body }) => [name, body]))(
    '%s: answered as the limits say (201, or 400 with a problem body past the depth limit), never 5xx',
    async (name, body) => {
      const res = await createPet(ref.base, body);
      if (name !== 'nesting past the depth limit') expect(res.status).toBe(201);
      else {
        expect(res.status).toBe(400);
        expect(res.headers['content-type']).toBe('application/problem+json');
      }
    },
  );
});

describe('the edges of HTTP', () => {
  const ref = serverForBlock();

  test('CONNECT host:port (this server is no proxy) is answered 404 with a problem body, then closed without a reset', async () => {
    const socket = await rawConnect(ref.base);
    let error: string | undefined;
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error = e.code;
    });
    const reply = readUntilClosed(socket);
    socket.write('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    const raw = await reply;
    expect(statusOf(raw)).toBe(404);
    expect(raw).toContain('Connection: close');
    expect(raw).toContain('{"title":"Not Found","status":404}');
    expect(error).toBeUndefined();
  });

  test('CONNECT on a path of the API is answered 405 with Allow', async () => {
    const socket = await rawConnect(ref.base);
    const reply = readUntilClosed(socket);
    socket.write('CONNECT /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n');
    const raw = await reply;
    expect(statusOf(raw)).toBe(405);
    expect(raw).toContain('Allow: GET, HEAD, POST');
    expect(raw).toContain('Content-Type: application/problem+json');
  });

  test('TRACE is answered 405 with Allow, the request not echoed', async () => {
    const res = await call(ref.base, 'TRACE', '/pets', { headers: { 'x-secret': 'echo-me' } });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, POST');
    expect(res.text).not.toContain('echo-me');
  });

  test('a transfer coding other than chunked (gzip, chunked) is answered 501, the body not read as a pet', async () => {
    const socket = await rawConnect(ref.base);
    const reply = readUntilClosed(socket);
    const body = '{"id":77,"name":"compressed?"}';
    socket.write(
      'POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n\r\n' +
        `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    );
    const raw = await reply;
    expect(statusOf(raw)).toBe(501);
    expect(raw).toContain('Connection: close');
    expect(raw).toContain('the transfer coding \\"gzip, chunked\\" is not implemented');
    expect((await call(ref.base, 'GET', '/pets/77')).status).toBe(404);
  });

  test.each([
    ['chunked not last', 'chunked, gzip'],
    ['an unknown coding alone', 'gzip'],
  ])('a transfer coding list with %s is answered 400 (RFC 9112 §6.3), then closed', async (_, coding) => {
    const socket = await rawConnect(ref.base);
    const reply = readUntilClosed(socket);
    socket.write(
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: ${coding}\r\n\r\n3\r\nabc\r\n0\r\n\r\n`,
    );
    expect(statusOf(await reply)).toBe(400);
  });

  test('a chunked body (any case) is read as usual', async () => {
    const socket = await rawConnect(ref.base);
    const reply = readUntilClosed(socket, 5_000, '}');
    const body = '{"id":78,"name":"chunked"}';
    socket.write(
      'POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: Chunked\r\n\r\n' +
        `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    );
    const raw = await reply;
    socket.destroy();
    expect(statusOf(raw)).toBe(201);
  });
});

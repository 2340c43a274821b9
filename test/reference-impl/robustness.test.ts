import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { MAX_BODY_BYTES, MAX_DEPTH, PetStore } from '../../reference-impl/index.ts';
import { serverForBlock, startServer } from '../helpers/servers.ts';
import { call, createPet, delay, rawConnect, readUntilClosed, statusOf } from './helpers.ts';

describe('hostile and broken requests', () => {
  let nextId = 5000;
  const freshId = () => ++nextId;

  const ref = serverForBlock();

  /** The server still answers a plain request. */
  const stillServing = async () => expect((await call(ref.base, 'GET', '/pets?limit=1')).status).toBe(200);

  describe('bodies over the body limit (8 KiB)', () => {
    test('a 5 MB body with a Content-Length gets 413, readable by the client (no reset)', async () => {
      const res = await createPet(ref.base, `{"id":1,"name":"${'x'.repeat(5_000_000)}"}`);
      expect(res.status).toBe(413);
      expect(res.headers['content-type']).toBe('application/problem+json');
      expect(res.headers.connection).toBe('close');
      expect(res.json()).toMatchObject({ title: 'Payload Too Large' });
      await stillServing();
    });

    test('a 5 MB chunked body, without a Content-Length, gets 413 too', async () => {
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const body = Readable.from(
        (function* () {
          yield Buffer.from('{"id":1,"name":"');
          for (let i = 0; i < 80; i++) yield chunk;
          yield Buffer.from('"}');
        })(),
      );
      const res = await call(ref.base, 'POST', '/pets', { body: body as unknown as Buffer });
      expect(res.status).toBe(413);
      await stillServing();
    });

    test('a client that sends its whole 5 MB body before reading still reads the 413 (no EPIPE, no reset)', async () => {
      const socket = await rawConnect(ref.base);
      let error: string | undefined;
      socket.on('error', (e: NodeJS.ErrnoException) => {
        error = e.code;
      });
      socket.pause(); // reads nothing until the upload is done
      socket.write(
        'POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000000\r\n\r\n',
      );
      const chunk = Buffer.alloc(5_000_000 / 50, 0x20);
      for (let i = 0; i < 50 && !socket.destroyed; i++) {
        if (!socket.write(chunk))
          await new Promise((resolve) => {
            socket.once('drain', resolve);
            socket.once('close', resolve);
          });
      }
      const reply = readUntilClosed(socket);
      socket.resume();
      const raw = await reply;
      expect(error).toBeUndefined();
      expect(statusOf(raw)).toBe(413);
      expect(raw).toContain('Connection: close');
    });

    test('a body declared larger than the limit is answered 413 once its first 8 KiB have come, not at its end', async () => {
      const socket = await rawConnect(ref.base);
      const reply = readUntilClosed(socket, 5_000, '"status":413');
      socket.write(
        'POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000000\r\n\r\n',
      );
      socket.write(Buffer.alloc(MAX_BODY_BYTES + 1, 0x20));
      const raw = await reply;
      socket.destroy();
      expect(statusOf(raw)).toBe(413);
      await stillServing();
    });

    test('a client that stops sending after the 413 is disconnected within the linger bound', async () => {
      const socket = await rawConnect(ref.base);
      const started = performance.now();
      const reply = readUntilClosed(socket, 5_000);
      socket.write(
        'POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000000\r\n\r\n',
      );
      socket.write(Buffer.alloc(MAX_BODY_BYTES + 10, 0x20));
      const raw = await reply;
      expect(statusOf(raw)).toBe(413);
      expect(performance.now() - started).toBeLessThan(4_000);
    });

    test('a client that leaves in the middle of a 5 MB upload does not disturb the server', async () => {
      const socket = await rawConnect(ref.base);
      socket.on('error', () => {});
      socket.write(
        'POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000000\r\n\r\n',
      );
      socket.write(Buffer.alloc(2 * MAX_BODY_BYTES, 0x20));
      await delay(50);
      socket.destroy();
      await stillServing();
    });

    test('a body of exactly MAX_BODY_BYTES (a pet padded with spaces) is read whole; one byte more is 413', async () => {
      const pet = `{"id":${freshId()},"name":"x"}`;
      const json = pet + ' '.repeat(MAX_BODY_BYTES - pet.length);
      expect(Buffer.byteLength(json)).toBe(MAX_BODY_BYTES);
      const res = await createPet(ref.base, json);
      expect(res.status).toBe(201);
      expect(res.text).toBe(pet);
      const over = await createPet(ref.base, ` ${json.replace(/"id":\d+/, `"id":${freshId()}`)}`);
      expect(over.status).toBe(413);
      expect(over.json()).toMatchObject({
        detail: `the body is larger than ${MAX_BODY_BYTES} bytes, the most this server reads`,
      });
    });
  });

  describe('bodies that are hard to parse', () => {
    // As deep as the body limit lets them be: far deeper than MAX_DEPTH.
    test.each([
      ['4,000 nested arrays', `${'['.repeat(4_000)}${']'.repeat(4_000)}`],
      [
        '1,300 nested objects in an extra property',
        `{"id":1,"name":"x","deep":${'{"a":'.repeat(1_300)}1${'}'.repeat(1_300)}}`,
      ],
      ['8,000 unclosed arrays', '['.repeat(8_000)],
      [`${MAX_DEPTH + 1} nested arrays`, `${'['.repeat(MAX_DEPTH + 1)}${']'.repeat(MAX_DEPTH + 1)}`],
    ])('%s are refused with 400, not a crash', async (_, body) => {
      const res = await createPet(ref.base, body);
      expect(res.status).toBe(400);
      expect(res.json()).toMatchObject({ title: 'Bad Request' });
      await stillServing();
    });

    test('brackets inside strings do not count as nesting', async () => {
      const res = await createPet(ref.base, `{"id":${freshId()},"name":"${'['.repeat(3_000)}\\"{"}`);
      expect(res.status).toBe(201);
    });

    test('an extra property nested 200 deep is kept', async () => {
      const id = freshId();
      const json = `{"id":${id},"name":"x","deep":${'['.repeat(200)}${']'.repeat(200)}}`;
      const res = await createPet(ref.base, json);
      expect(res.status).toBe(201);
      expect((await call(ref.base, 'GET', `/pets/${id}`)).text).toBe(json);
    });

    test.each([
      ['a 0xFF byte', [0xff]],
      ['an overlong "/"', [0xc0, 0xaf]],
      ['a UTF-16 surrogate encoded as UTF-8', [0xed, 0xa0, 0x80]],
      ['a truncated sequence', [0xe2, 0x82]],
    ])('a body with invalid UTF-8 (%s) is refused with 400', async (_, bytes) => {
      const body = Buffer.concat([
        Buffer.from(`{"id":${freshId()},"name":"`),
        Buffer.from(bytes),
        Buffer.from('"}'),
      ]);
      const res = await call(ref.base, 'POST', '/pets', { body });
      expect(res.status).toBe(400);
      expect(res.json()).toMatchObject({ detail: expect.stringMatching(/not valid for encoding utf-8/) });
    });

    test('a lone surrogate written as a JSON escape is kept as that escape', async () => {
      const id = freshId();
      const res = await createPet(ref.base, `{"id":${id},"name":"\\ud800"}`);
      expect(res.status).toBe(201);
      expect((await call(ref.base, 'GET', `/pets/${id}`)).text).toBe(`{"id":${id},"name":"\\ud800"}`);
    });

    test.each([
      ['1e999999', '1e999999'],
      ['-1e999999', '-1e999999'],
      ['a 4,000-digit integer', '7'.repeat(4_000)],
      ['1e-999999', '1e-999999'],
    ])('a huge number (%s) in an extra property is kept as written', async (_, number) => {
      const id = freshId();
      const json = `{"id":${id},"name":"x","n":${number}}`;
      const res = await createPet(ref.base, json);
      expect(res.status).toBe(201);
      expect((await call(ref.base, 'GET', `/pets/${id}`)).text).toBe(json);
    });

    test.each([
      ['1e999999', '1e999999'],
      ['an 8,000-digit integer', '9'.repeat(8_000)],
    ])('a huge number (%s) as the id is refused with 400, quickly', async (_, number) => {
      const started = performance.now();
      const res = await createPet(ref.base, `{"id":${number},"name":"x"}`);
      expect(res.status).toBe(400);
      expect(performance.now() - started).toBeLessThan(1_000);
    });
  });

  describe('__proto__ and friends', () => {
    test('a __proto__ key is stored as an ordinary property and pollutes no prototype', async () => {
      const id = freshId();
      const json = `{"id":${id},"name":"x","__proto__":{"polluted":true,"id":1},"constructor":{"prototype":{"polluted":true}}}`;
      const res = await createPet(ref.base, json);
      expect(res.status).toBe(201);
      expect(res.text).toBe(json);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.prototype).not.toHaveProperty('polluted');
      expect((await call(ref.base, 'GET', `/pets/${id}`)).text).toBe(json);
    });

    test('required fields hidden under __proto__ do not count: 400', async () => {
      const res = await createPet(ref.base, '{"__proto__":{"id":1,"name":"x"}}');
      expect(res.status).toBe(400);
      expect(({} as Record<string, unknown>).name).toBeUndefined();
    });

    test('a nested __proto__ pollutes nothing either', async () => {
      const res = await createPet(
        ref.base,
        `{"id":${freshId()},"name":"x","a":[{"__proto__":{"polluted":1}}]}`,
      );
      expect(res.status).toBe(201);
      expect(([] as unknown as Record<string, unknown>).polluted).toBeUndefined();
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  });

  describe('requests that are not HTTP', () => {
    test.each([
      ['a garbage request line', 400, 'GARBAGE\r\n\r\n'],
      ['an invalid Content-Length', 400, 'POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n'],
      ['a header without a colon', 400, 'GET /v1/pets HTTP/1.1\r\nHost: x\r\nbroken\r\n\r\n'],
      ['no Host header', 400, 'GET /v1/pets HTTP/1.1\r\n\r\n'],
      [
        '32 KiB of headers',
        431,
        `GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(32 * 1024)}\r\n\r\n`,
      ],
    ])('%s is answered %i with a problem body, then the connection is closed', async (_, status, request) => {
      const socket = await rawConnect(ref.base);
      const reply = readUntilClosed(socket);
      socket.write(request);
      const raw = await reply;
      expect(statusOf(raw)).toBe(status);
      expect(raw).toContain('Content-Type: application/problem+json');
      expect(raw).toContain(`"status":${status}`);
      await stillServing();
    });

    test('a client that connects and leaves at once does not disturb the server', async () => {
      for (let i = 0; i < 20; i++) (await rawConnect(ref.base)).destroy();
      await stillServing();
    });

    test('a client that leaves in the middle of its body does not disturb the server', async () => {
      const socket = await rawConnect(ref.base);
      socket.on('error', () => {});
      socket.write(
        'POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"id":',
      );
      await delay(30);
      socket.destroy();
      await delay(30);
      await stillServing();
    });

    test('a client that leaves before reading a large answer does not disturb the server', async () => {
      const store = new PetStore();
      for (let i = 0; i < 100; i++) store.add({ id: i, name: 'n'.repeat(MAX_BODY_BYTES - 30) });
      expect(store.size).toBe(100);
      const other = await startServer({ store });
      const socket = await rawConnect(other.url);
      socket.on('error', () => {});
      socket.write('GET /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(20));
      socket.destroy();
      expect((await call(other.url, 'GET', '/pets?limit=1')).status).toBe(200);
      await other.close();
      expect(other.internalErrors).toEqual([]);
    });
  });

  test('no generated body, JSON or not, is answered with a 5xx status', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.json(),
          fc.string(),
          fc
            .record(
              { id: fc.oneof(fc.bigInt(), fc.double(), fc.string()), name: fc.anything() },
              { requiredKeys: [] },
            )
            .map((v) => JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? x.toString() : x))),
        ),
        async (body) => {
          const res = await createPet(ref.base, body);
          expect(res.status).toBeGreaterThanOrEqual(200);
          expect(res.status).toBeLessThan(500);
        },
      ),
      { numRuns: 200, seed: 20261122 },
    );
  });
});

describe('slow clients', () => {
  const ref = serverForBlock({ requestTimeoutMs: 500 });

  test('a client trickling its headers is answered 408 and disconnected once the request time is up', async () => {
    const socket = await rawConnect(ref.server.url);
    const started = performance.now();
    const reply = readUntilClosed(socket, 5_000);
    socket.write('GET /v1/pets HTTP/1.1\r\nHost: x\r\n');
    const trickle = setInterval(() => socket.writable && socket.write('X-Slow: 1\r\n'), 100);
    const raw = await reply;
    clearInterval(trickle);
    expect(statusOf(raw)).toBe(408);
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  test('a client trickling its body is answered 408 and disconnected once the request time is up', async () => {
    const socket = await rawConnect(ref.server.url);
    const started = performance.now();
    const reply = readUntilClosed(socket, 5_000);
    socket.write(
      'POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n',
    );
    const trickle = setInterval(() => socket.writable && socket.write(' '), 100);
    const raw = await reply;
    clearInterval(trickle);
    expect(statusOf(raw)).toBe(408);
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  test('a request completed in time is served normally', async () => {
    expect((await call(ref.server.url, 'GET', '/pets')).status).toBe(200);
  });
});

describe('the 500 catch-all', () => {
  class BrokenStore extends PetStore {
    override list(): string {
      throw new Error('broken on purpose');
    }
  }

  test('a bug that throws in the handler is answered 500 problem+json, reported, and the server keeps serving', async () => {
    const server = await startServer({ store: new BrokenStore() });
    try {
      const res = await call(server.url, 'GET', '/pets');
      expect(res.status).toBe(500);
      expect(res.headers['content-type']).toBe('application/problem+json');
      expect(server.internalErrors).toHaveLength(1);
      expect(String(server.internalErrors[0])).toContain('broken on purpose');
      expect((await call(server.url, 'GET', '/store/orders')).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

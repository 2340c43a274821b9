// --retries in the client: a safe request whose connection failed before any answer is sent again;
// a create never is, and an answer (a 5xx, a body cut short) is never retried away. An answer that is
// not a complete HTTP message is ANY-HTTP-MESSAGE's, whichever check met it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, test } from 'vitest';
import { isBrokenMessage } from '../../suites/harness/evidence/errors.ts';
import { Client, isBroken } from '../../suites/harness/http/client.ts';
import { backoffMs, isSafeMethod, totalBackoffMs } from '../../suites/harness/http/retry.ts';
import { testConfig } from '../helpers/config.ts';
import { rejection } from '../helpers/rejection.ts';
import { type HandMadeServer, httpServer, silentServer } from '../helpers/servers.ts';

let server: HandMadeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A server that resets the connection of the first `resets` requests, then answers 200 `[]`. */
async function resetsFirst(
  resets: number,
  answer: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('[]');
  },
): Promise<{ seen: () => number }> {
  let seen = 0;
  server = await httpServer((req, res) => {
    req.resume();
    seen++;
    if (seen <= resets) {
      req.socket.resetAndDestroy();
      return;
    }
    answer(req, res);
  });
  return { seen: () => seen };
}

// At one request at a time, as these runs are, a reset is no longer the deployment's capacity
// (harness/http/capacity.ts): only --retries sends a request again.
describe('retries after the transport failed', () => {
  test('without --retries a reset fails the request, naming the reset', async () => {
    await resetsFirst(1);
    const err = await rejection(new Client(testConfig(server!.url, { concurrency: 1 })).get('/pets'));
    expect(err.received).toMatch(
      /connection reset by the server \(ECONNRESET\)|connection closed by the server/,
    );
    expect(err.received).toContain('before the status line and headers arrived');
  });

  test('with --retries a GET whose connection was reset is sent again, and the retry is kept', async () => {
    const counter = await resetsFirst(2);
    const api = new Client(testConfig(server!.url, { retries: 2, concurrency: 1 }));
    const res = await api.get('/pets');
    expect(res.status).toBe(200);
    expect(res.transportRetries).toBe(2);
    expect(counter.seen()).toBe(3);
    expect(api.retried).toHaveLength(2);
    expect(api.retried[0]).toMatchObject({ method: 'GET', url: `${server!.url}/pets` });
    expect(api.retried[0]?.error).toContain('before the status line and headers arrived');
    // The failed attempts stay in the exchange log, before the answer.
    expect(api.exchanges.map((e) => e.error === undefined)).toEqual([false, false, true]);
  });

  test('retries are counted: more resets than --retries fail the request, naming every attempt', async () => {
    await resetsFirst(5);
    const api = new Client(testConfig(server!.url, { retries: 1, concurrency: 1 }));
    const err = await rejection(api.get('/pets'));
    expect(err.received).toMatch(/\(and 1 earlier attempt: /);
    expect(api.retried).toHaveLength(1);
  });

  test('a create is never sent again: its lost answer is for the check to judge', async () => {
    const counter = await resetsFirst(1);
    const api = new Client(testConfig(server!.url, { retries: 3 }));
    await rejection(api.post('/pets', { json: { id: 1, name: 'x' } }));
    expect(counter.seen()).toBe(1);
    expect(api.retried).toEqual([]);
  });

  test('a 5xx is an answer: never retried away', async () => {
    let seen = 0;
    server = await httpServer((req, res) => {
      req.resume();
      seen++;
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{}');
    });
    const api = new Client(testConfig(server.url, { retries: 3 }));
    expect((await api.get('/pets')).status).toBe(500);
    expect(seen).toBe(1);
  });

  test('an answer cut in its body is a broken answer: not retried', async () => {
    let seen = 0;
    server = await httpServer((req, res) => {
      req.resume();
      seen++;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('[{"id":');
      setTimeout(() => req.socket.resetAndDestroy(), 20);
    });
    const api = new Client(testConfig(server.url, { retries: 3 }));
    const err = await rejection(api.get('/pets'));
    expect(err.received).toContain('after status 200');
    expect(seen).toBe(1);
  });

  test('a timeout before any answer is retried, each attempt with a timeout of its own', async () => {
    server = await silentServer();
    const api = new Client(testConfig(server.url, { timeoutMs: 200, retries: 1 }));
    const started = performance.now();
    const err = await rejection(api.get('/pets'));
    expect(performance.now() - started).toBeGreaterThanOrEqual(2 * 190 + backoffMs(1));
    expect(err.received).toMatch(
      /^no complete response within 200 ms .*\(and 1 earlier attempt: no complete/,
    );
    expect(api.exchanges).toHaveLength(2);
  });
});

describe('the retry policy', () => {
  test('only the safe methods of RFC 9110 are retried', () => {
    expect(['GET', 'head', 'OPTIONS'].map(isSafeMethod)).toEqual([true, true, true]);
    expect(['POST', 'PUT', 'PATCH', 'DELETE'].map(isSafeMethod)).toEqual([false, false, false, false]);
  });

  test('the backoff doubles from 100 ms up to 2 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map(backoffMs)).toEqual([100, 200, 400, 800, 1600, 2000, 2000]);
    expect(totalBackoffMs(0)).toBe(0);
    expect(totalBackoffMs(3)).toBe(700);
  });
});

describe("an answer that is not a complete HTTP message is ANY-HTTP-MESSAGE's", () => {
  test('a body cut short after the status line throws BrokenMessage and reports ANY-HTTP-MESSAGE; so does a reset before any answer, as a dropped connection', async () => {
    server = await httpServer((req, res) => {
      req.resume();
      if (req.url?.endsWith('/cut')) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('[{"id":1,');
        setImmediate(() => res.socket?.destroy());
        return;
      }
      req.socket.resetAndDestroy();
    });
    const api = new Client(testConfig(server.url, { concurrency: 1 }));
    const cut = await rejection(api.get('/cut'));
    expect(isBrokenMessage(cut)).toBe(true);
    expect(cut.expected).toBe(
      'a complete HTTP message in answer to GET /cut, framed as its headers say (RFC 9112 §6)',
    );
    expect(cut.received).toMatch(/^GET \/cut: .*after status 200 and 9 bytes of body/);
    expect(api.findings.map((f) => f.requirementId)).toEqual(['ANY-HTTP-MESSAGE']);
    const reset = await rejection(api.get('/reset'));
    expect(isBrokenMessage(reset)).toBe(true);
    expect(reset.expected).toBe(
      'an HTTP answer to GET /reset (--retries 2 meets a network that drops connections)',
    );
    expect(api.findings.map((f) => f.requirementId)).toEqual(['ANY-HTTP-MESSAGE', 'ANY-HTTP-MESSAGE']);
  });

  test('isBroken: parser errors and length mismatches always, a closed connection only once the answer began', () => {
    const coded = (code: string) => Object.assign(new Error(code), { code });
    expect(isBroken(coded('HPE_INVALID_CONSTANT'), false)).toBe(true);
    expect(isBroken(coded('UND_ERR_RES_CONTENT_LENGTH_MISMATCH'), false)).toBe(true);
    expect(isBroken(coded('UND_ERR_SOCKET'), true)).toBe(true);
    expect(isBroken(coded('UND_ERR_SOCKET'), false)).toBe(false);
    expect(isBroken(coded('ECONNREFUSED'), false)).toBe(false);
    expect(isBroken(coded('UND_ERR_HEADERS_TIMEOUT'), false)).toBe(false);
  });
});

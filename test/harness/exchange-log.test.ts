// The exchange log: what the client posts for every exchange (masked, bodies bounded, the operation
// named, the timings), and what cli/record/exchanges.ts receives. And the key's scheme: with
// apiKeyScheme the key travels as `Authorization: <scheme> <key>`, a wrong one in the same scheme.
import type { IncomingMessage } from 'node:http';
import { BroadcastChannel, Worker } from 'node:worker_threads';
import { afterEach, describe, expect, test } from 'vitest';
import {
  type ExchangeLogInbox,
  LOG_BODY_BYTES,
  openExchangeLog,
  operationName,
} from '../../cli/record/exchanges.ts';
import { Client } from '../../suites/harness/client.ts';
import { ConformanceError } from '../../suites/harness/errors.ts';
import {
  checkRunning,
  type ExchangeLogSettings,
  exchangeSink,
  flushExchangeLog,
  loggedBody,
  operationMatcher,
  POST_AT,
  POST_EVERY_MS,
} from '../../suites/harness/exchange-log.ts';
import { MASK } from '../../suites/harness/redact.ts';
import { testConfig } from '../helpers/config.ts';
import { type HandMadeServer, httpServer, silentServer } from '../helpers/servers.ts';

let server: HandMadeServer | undefined;
const inboxes: ExchangeLogInbox[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const inbox of inboxes.splice(0)) inbox.close();
});

const OPERATIONS = [
  { method: 'GET', path: '/pets', operationId: 'listPets' },
  { method: 'POST', path: '/pets', operationId: 'createPets' },
  { method: 'GET', path: '/pets/{petId}', operationId: 'showPetById' },
];

/** A new log, received here as the CLI receives it. */
function inbox(bodyBytes = LOG_BODY_BYTES): { log: ExchangeLogInbox; settings: ExchangeLogSettings } {
  const log = openExchangeLog();
  inboxes.push(log);
  return { log, settings: { channel: log.channel, bodyBytes, operations: OPERATIONS } };
}

/** A client posting to a new log, and the log's entries once received. */
function logged(baseUrl: string, fields: Parameters<typeof testConfig>[1] = {}, bodyBytes?: number) {
  const { log, settings } = inbox(bodyBytes);
  const config = testConfig(baseUrl, fields);
  const sink = exchangeSink(settings, baseUrl, { requirement: 'LIST-OK', check: 'LIST-OK the list [case]' })!;
  const read = async () => {
    flushExchangeLog(); // as a check's end does
    await log.drain();
    return log.entries();
  };
  return { api: new Client(config, { log: sink }), read };
}

const echo = (status = 200) =>
  httpServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(status, {
        'content-type': 'application/json',
        'x-seen-key': String(req.headers['x-api-key']),
      });
      res.end(JSON.stringify({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
  });

describe('every exchange is logged, one line each', () => {
  test('the request as sent and the response as received, tagged, with the operation and the timings', async () => {
    server = await echo();
    const { api, read } = logged(server.url);
    await api.get('/pets', { query: { limit: 3 } });
    await api.post('/pets', { json: { id: 7n, name: 'Rex' } });
    await api.get('/pets/7');
    const [list, create, show] = await read();
    expect(list).toMatchObject({
      v: 1,
      requirement: 'LIST-OK',
      check: 'LIST-OK the list [case]',
      operation: { method: 'GET', path: '/pets', operationId: 'listPets' },
      request: { method: 'GET', url: `${server.url}/pets?limit=3`, headers: {} },
      response: { status: 200, headers: { 'content-type': 'application/json' } },
    });
    expect(create?.request.body).toEqual({ size: 21, text: '{"id":7,"name":"Rex"}' });
    expect(create?.operation?.operationId).toBe('createPets');
    expect(operationName(show!)).toBe('GET /pets/{petId}');
    for (const x of [list!, create!, show!]) {
      expect(Date.parse(x.startedAt)).toBeGreaterThan(Date.now() - 60_000);
      expect(x.timings.blocked + x.timings.wait + x.timings.receive).toBeCloseTo(x.durationMs, 1);
      expect(x.timings.wait).toBeGreaterThan(0);
    }
  });

  test('a request outside the API’s paths has no operation; an undefined method keeps the path template', async () => {
    const match = operationMatcher(OPERATIONS, 'http://h:1/v1');
    expect(match('GET', 'http://h:1/v1/pets/9?x=1')).toEqual({
      method: 'GET',
      path: '/pets/{petId}',
      operationId: 'showPetById',
    });
    expect(match('DELETE', 'http://h:1/v1/pets/9')).toEqual({ method: 'DELETE', path: '/pets/{petId}' });
    expect(match('GET', 'http://h:1/v2/pets')).toBeUndefined();
    expect(match('GET', 'http://h:1/v1/pets/9/toys')).toBeUndefined();
    expect(match('GET', 'http://other:1/v1/pets')).toBeUndefined();
  });

  test('an exchange that got no answer is logged with why, and no response', async () => {
    server = await silentServer();
    const { api, read } = logged(server.url, { timeoutMs: 200 });
    await expect(api.get('/pets')).rejects.toBeInstanceOf(ConformanceError);
    const [x] = await read();
    expect(x?.response).toBeUndefined();
    expect(x?.error).toMatch(/no complete response within 200 ms/);
    expect(x?.timings.receive).toBe(0);
  });

  /** A sink on a new log, and every message the log's channel carries, as the number of entries in each. */
  function counted() {
    const { log, settings } = inbox();
    const sink = exchangeSink(settings, 'http://h:1/v1', { requirement: 'LIST-OK', check: 'c' })!;
    const listen = new BroadcastChannel(log.channel);
    const messages: number[] = [];
    listen.onmessage = (event) =>
      messages.push((JSON.parse((event as MessageEvent).data as string) as unknown[]).length);
    const sent = { method: 'GET', url: 'http://h:1/v1/pets', headers: {} };
    const timing = { started: 1, attemptStarted: 1, ended: 2 };
    const write = (status: number) => sink.write(sent, { status, durationMs: 1 }, timing);
    return { log, listen, messages, write };
  }

  test('the entries of checks running together go as one message, once the last of them ends', async () => {
    const { log, listen, messages, write } = counted();
    const first = checkRunning();
    const second = checkRunning();
    write(200);
    write(201);
    first();
    first(); // ending a check twice counts once
    await log.drain();
    expect(messages).toEqual([]);
    write(202);
    second();
    await log.drain();
    // A worker ending after its last check (the end of a file, of the run) has posted everything.
    expect(messages).toEqual([3]);
    write(204);
    flushExchangeLog(); // at once, whatever runs
    await log.drain();
    listen.close();
    expect(messages).toEqual([3, 1]);
    expect(log.entries().map((x) => x.response?.status)).toEqual([200, 201, 202, 204]);
  });

  test('entries queued while a check runs long are posted every POST_EVERY_MS, and at once past POST_AT', async () => {
    const { log, listen, messages, write } = counted();
    const end = checkRunning();
    write(200);
    await new Promise((resolve) => setTimeout(resolve, POST_EVERY_MS + 50));
    await log.drain();
    expect(messages).toEqual([1]);
    for (let i = 0; i < POST_AT; i++) write(200);
    await log.drain();
    expect(messages).toEqual([1, POST_AT]);
    end();
    await log.drain();
    listen.close();
    expect(messages).toEqual([1, POST_AT]);
    expect(log.entries()).toHaveLength(1 + POST_AT);
  });

  test('what a worker thread posted is all received once drained, even when the thread has ended', async () => {
    const { log } = inbox();
    // A thread that posts 500 entries on the channel and ends, as a vitest worker does.
    const worker = new Worker(
      `const { BroadcastChannel } = require('node:worker_threads');
       const c = new BroadcastChannel(${JSON.stringify(log.channel)});
       for (let i = 0; i < 500; i += 5)
         c.postMessage(JSON.stringify(Array.from({ length: 5 }, (_, j) =>
           ({ v: 1, requirement: 'X', check: String(i + j), startedAt: new Date(1e12 + i + j).toISOString() }))));
       c.close();`,
      { eval: true },
    );
    await new Promise((resolve) => worker.once('exit', resolve));
    await log.drain();
    const checks = log.entries().map((x) => x.check);
    expect(checks).toHaveLength(500);
    expect(checks.slice(0, 3)).toEqual(['0', '1', '2']);
  });
});

describe('masked before it is written', () => {
  test('the key where the suite put it, cookies whole, the answer in every spelling; the rest as sent', async () => {
    const key = 'k3y-logged-é-0042';
    server = await httpServer((req, res) => {
      req.resume();
      const sent = req.headers['x-api-key'] ?? new URL(req.url ?? '/', 'http://h').searchParams.get('key');
      res.writeHead(200, { 'set-cookie': 'session=abc123', 'x-echo': `${sent}` });
      res.end(`{"seen":${JSON.stringify(sent)},"escaped":"${encodeURIComponent(String(sent))}"}`);
    });
    // In its header, then in its query parameter.
    const inHeader = logged(server.url, { apiKey: key });
    await inHeader.api.post('/pets', {
      query: { q: 'pets' },
      body: 'a body of the suite: wrong, required, pets',
      headers: { cookie: 'mine=1' },
    });
    const inQuery = logged(server.url, { apiKey: key, apiKeyQuery: 'key' });
    await inQuery.api.get('/pets', { query: { limit: 2 } });
    const [x, y] = [...(await inHeader.read()), ...(await inQuery.read())];
    const text = JSON.stringify([x, y]);
    expect(text).not.toContain(key);
    expect(text).not.toContain(encodeURIComponent(key));
    expect(text).not.toContain('abc123');
    expect(x?.request.headers).toMatchObject({ 'x-api-key': MASK, cookie: MASK });
    expect(x?.response?.headers).toMatchObject({ 'set-cookie': MASK, 'x-echo': MASK });
    expect(x?.response?.body?.text).toBe(`{"seen":"${MASK}","escaped":"${MASK}"}`);
    // What the suite wrote itself is its own: as sent.
    expect(x?.request.body?.text).toBe('a body of the suite: wrong, required, pets');
    expect(x?.request.url).toBe(`${server.url}/pets?q=pets`);
    expect(y?.request.url).toBe(`${server.url}/pets?limit=2&key=${MASK}`);
    expect(y?.response?.body?.text).toBe(`{"seen":"${MASK}","escaped":"${MASK}"}`);
  });

  test('a long body is masked, then cut at the bound to a whole character, its size kept', () => {
    const key = 'secret-key-straddling';
    new Client(testConfig('http://127.0.0.1:9/v1', { apiKey: key })); // a client registers its key
    // The key straddles the bound (byte 100 to 121): cut first, its first characters would show.
    const body = Buffer.from(`${'é'.repeat(50)}${key}${'x'.repeat(200)}`);
    const cut = loggedBody(body, 105);
    expect(cut).toEqual({ size: body.length, text: `${'é'.repeat(50)}***xx`, cut: true });
    // A bound in the middle of a character cuts before it.
    expect(loggedBody(Buffer.from(`a${'é'.repeat(60)}`), 10)).toEqual({
      size: 121,
      text: 'aéééé',
      cut: true,
    });
    expect(loggedBody(Buffer.from('short'), 105)).toEqual({ size: 5, text: 'short' });
    expect(loggedBody(Buffer.from('no bodies kept'), 0)).toEqual({ size: 14 });
  });

  test('a body that is not UTF-8 is kept as base64, masked as bytes', () => {
    const key = 'binary-secret-77';
    new Client(testConfig('http://127.0.0.1:9/v1', { apiKey: key }));
    const body = Buffer.concat([
      Buffer.from([0xff, 0xfe, 0x00]),
      Buffer.from(key, 'latin1'),
      Buffer.from([0x80]),
    ]);
    const logged = loggedBody(body, 1024);
    expect(logged.encoding).toBe('base64');
    const decoded = Buffer.from(logged.text!, 'base64').toString('latin1');
    expect(decoded).not.toContain(key);
    expect(decoded).toContain(MASK);
  });
});

describe('receiving the log', () => {
  test('oldest first, whatever the order received; messages of another version are not entries', async () => {
    const { log } = inbox();
    const post = new BroadcastChannel(log.channel);
    const entry = (startedAt: string, check: string) => ({ v: 1, requirement: 'X', check, startedAt });
    const batch = (...entries: unknown[]) => JSON.stringify(entries);
    post.postMessage(batch(entry('2026-01-01T00:00:02.000Z', 'b'), { v: 2, check: 'later format' }));
    post.postMessage('not an entry');
    post.postMessage(JSON.stringify(entry('2026-01-01T00:00:04.000Z', 'not in a batch')));
    post.postMessage([entry('2026-01-01T00:00:05.000Z', 'not JSON text')]);
    post.postMessage(batch(entry('2026-01-01T00:00:01.000Z', 'a'), entry('2026-01-01T00:00:03.000Z', 'c')));
    post.close();
    await log.drain();
    expect(log.entries().map((x) => x.check)).toEqual(['a', 'b', 'c']);
  });

  test('a closed log receives nothing more and keeps what it had', async () => {
    const { log } = inbox();
    const post = new BroadcastChannel(log.channel);
    post.postMessage(
      JSON.stringify([{ v: 1, requirement: 'X', check: 'kept', startedAt: '2026-01-01T00:00:01.000Z' }]),
    );
    await log.drain();
    log.close();
    post.postMessage(
      JSON.stringify([{ v: 1, requirement: 'X', check: 'late', startedAt: '2026-01-01T00:00:02.000Z' }]),
    );
    post.close();
    await log.drain();
    expect(log.entries().map((x) => x.check)).toEqual(['kept']);
  });
});

describe('the key in a scheme: Authorization: <scheme> <key>', () => {
  test('the configured key, a wrong one in the same scheme, none without Authorization at all', async () => {
    const seen: (string | undefined)[] = [];
    server = await httpServer((req, res) => {
      seen.push(req.headers.authorization);
      expect(req.headers['x-api-key']).toBeUndefined();
      req.resume();
      res.end('{}');
    });
    const api = new Client(testConfig(server.url, { apiKey: 'tok-123', apiKeyScheme: 'Bearer' }));
    await api.get('/pets');
    await api.get('/pets', { auth: 'wrong' });
    await api.get('/pets', { auth: 'none' });
    expect(seen[0]).toBe('Bearer tok-123');
    expect(seen[1]).toMatch(/^Bearer wrong-[0-9a-f]{16}$/);
    expect(seen[2]).toBeUndefined();
    // The whole value is masked wherever it is shown.
    const res = await api.get('/pets');
    expect(res.exchange.requestHeaders.authorization).toBe(MASK);
    expect(res.reproduce).toContain(`-H 'authorization: ${MASK}'`);
    expect(res.reproduce).not.toContain('tok-123');
  });
});

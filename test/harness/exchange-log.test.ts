// The exchange log: what the client writes for every exchange (masked, bodies bounded, the operation
// named, the timings), one line each to the log's file as the exchange ends, and what
// cli/record/exchanges.ts reads back. And the key's scheme: with apiKeyScheme the key travels as
// `Authorization: <scheme> <key>`, a wrong one in the same scheme.
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, test } from 'vitest';
import {
  type ExchangeLogInbox,
  LOG_BODY_BYTES,
  openExchangeLog,
  operationName,
} from '../../cli/record/exchanges.ts';
import { ConformanceError } from '../../suites/harness/evidence/errors.ts';
import {
  type ExchangeLogSettings,
  exchangeSink,
  loggedBody,
  operationMatcher,
} from '../../suites/harness/evidence/exchange-log.ts';
import { MASK } from '../../suites/harness/evidence/redact.ts';
import { Client } from '../../suites/harness/http/client.ts';
import { testConfig } from '../helpers/config.ts';
import { type HandMadeServer, httpServer, silentServer } from '../helpers/servers.ts';

let server: HandMadeServer | undefined;
const folders: string[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const OPERATIONS = [
  { method: 'GET', path: '/pets', operationId: 'listPets' },
  { method: 'POST', path: '/pets', operationId: 'createPets' },
  { method: 'GET', path: '/pets/{petId}', operationId: 'showPetById' },
];

/** A new log in a folder of its own, read here as the CLI reads it. */
function inbox(bodyBytes = LOG_BODY_BYTES): { log: ExchangeLogInbox; settings: ExchangeLogSettings } {
  const dir = mkdtempSync(path.join(tmpdir(), 'exchange-log-'));
  folders.push(dir);
  const log = openExchangeLog(path.join(dir, 'exchanges.jsonl'));
  return { log, settings: { file: log.file, bodyBytes, operations: OPERATIONS } };
}

/** A client writing to a new log, and the log's entries. */
function logged(baseUrl: string, fields: Parameters<typeof testConfig>[1] = {}, bodyBytes?: number) {
  const { log, settings } = inbox(bodyBytes);
  const config = testConfig(baseUrl, fields);
  const sink = exchangeSink(settings, baseUrl, { requirement: 'LIST-OK', check: 'LIST-OK the list [case]' })!;
  return { api: new Client(config, { log: sink }), read: () => log.entries() };
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
    const [list, create, show] = read();
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
    const [x] = read();
    expect(x?.response).toBeUndefined();
    expect(x?.error).toMatch(/no complete response within 200 ms/);
    expect(x?.timings.receive).toBe(0);
  });

  test('an entry is in the file when write() returns, one line each: nothing waits to be sent later', () => {
    const { log, settings } = inbox();
    const sink = exchangeSink(settings, 'http://h:1/v1', { requirement: 'LIST-OK', check: 'c' })!;
    const sent = { method: 'GET', url: 'http://h:1/v1/pets', headers: {} };
    const timing = { started: 1, attemptStarted: 1, ended: 2 };
    sink.write(sent, { status: 200, durationMs: 1 }, timing);
    expect(readFileSync(log.file, 'utf8').split('\n')).toHaveLength(2);
    sink.write(sent, { status: 201, durationMs: 1 }, timing);
    expect(log.entries().map((x) => x.response?.status)).toEqual([200, 201]);
  });

  test('what a worker thread wrote is all read once it has exited, even when it was terminated mid-run', async () => {
    const { log } = inbox();
    // A thread that appends entries as the harness does, ended by terminate() as vitest ends its
    // worker: 500 entries, then it waits to be stopped.
    const worker = new Worker(
      `const { appendFileSync } = require('node:fs');
       const { parentPort } = require('node:worker_threads');
       for (let i = 0; i < 500; i++)
         appendFileSync(${JSON.stringify(log.file)}, JSON.stringify(
           { v: 1, requirement: 'X', check: String(i), startedAt: new Date(1e12 + i).toISOString() }) + '\\n');
       parentPort.postMessage('written');
       setInterval(() => {}, 1000);`,
      { eval: true },
    );
    await new Promise((resolve) => worker.once('message', resolve));
    await worker.terminate();
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
    const [x, y] = [...inHeader.read(), ...inQuery.read()];
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

describe('reading the log', () => {
  test('oldest first, whatever the order written; lines of another version are not entries', () => {
    const { log } = inbox();
    const entry = (startedAt: string, check: string) =>
      `${JSON.stringify({ v: 1, requirement: 'X', check, startedAt })}\n`;
    appendFileSync(log.file, entry('2026-01-01T00:00:02.000Z', 'b'));
    appendFileSync(log.file, `${JSON.stringify({ v: 2, check: 'later format' })}\n`);
    appendFileSync(log.file, entry('2026-01-01T00:00:01.000Z', 'a'));
    appendFileSync(log.file, entry('2026-01-01T00:00:03.000Z', 'c'));
    appendFileSync(log.file, entry('2026-01-01T00:00:03.000Z', 'd'));
    expect(log.entries().map((x) => x.check)).toEqual(['a', 'b', 'c', 'd']);
  });

  test('a last line cut short (a worker stopped as it wrote) is left out; an empty log has no entries', () => {
    const { log } = inbox();
    expect(log.entries()).toEqual([]);
    appendFileSync(
      log.file,
      `${JSON.stringify({ v: 1, requirement: 'X', check: 'whole', startedAt: 'a' })}\n`,
    );
    appendFileSync(log.file, '{"v":1,"requirement":"X","che');
    expect(log.entries().map((x) => x.check)).toEqual(['whole']);
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
    // The whole value is masked wherever it is shown; a curl line reads the key from PETSTORE_API_KEY.
    const res = await api.get('/pets');
    expect(res.exchange.requestHeaders.authorization).toBe(MASK);
    expect(res.reproduce).toContain(`-H 'authorization: Bearer '"\${PETSTORE_API_KEY:-***}"`);
    expect(res.reproduce).not.toContain('tok-123');
  });
});

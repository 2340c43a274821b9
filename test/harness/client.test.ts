import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { rootCertificates } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { expectStatus, readJson } from '../../suites/harness/contract/expect.ts';
import {
  ConformanceError,
  isBrokenMessage,
  isRateLimited,
  type RateLimited,
} from '../../suites/harness/evidence/errors.ts';
import { redact } from '../../suites/harness/evidence/redact.ts';
import { Client } from '../../suites/harness/http/client.ts';
import { tlsConnectOptions } from '../../suites/harness/http/network.ts';
import { type Certificates, makeCertificates } from '../helpers/certs.ts';
import { testConfig } from '../helpers/config.ts';
import { type ForwardProxy, forwardProxy, requestLog } from '../helpers/forward-proxy.ts';
import { rejection } from '../helpers/rejection.ts';
import { type HandMadeServer, httpServer, rawServer, silentServer } from '../helpers/servers.ts';

let server: HandMadeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('the client, against servers that misbehave', () => {
  test('a server that never answers fails the request after the timeout, with what happened', async () => {
    server = await silentServer();
    const api = new Client(testConfig(server.url, { timeoutMs: 300 }));
    const started = performance.now();
    const err = await rejection(api.get('/pets'));
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(2_000); // generous: a loaded machine delays timers, not by seconds
    expect(err.expected).toBe('a complete HTTP response to GET /pets within 300 ms');
    expect(err.received).toBe(
      'no complete response within 300 ms (timed out before the status line and headers arrived)',
    );
    expect(err.reproduce).toBe(`curl -i -sS '${server.url}/pets'`);
    expect(err.exchanges?.[0]).toMatchObject({ method: 'GET', error: err.received });
  });

  test('the timeout covers the body: a server dripping one byte every 50 ms is cut at the deadline', async () => {
    server = await httpServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(' ')), 50);
      res.on('close', () => clearInterval(timer));
    });
    const api = new Client(testConfig(server.url, { timeoutMs: 400 }));
    const started = performance.now();
    const err = await rejection(api.get('/pets'));
    expect(performance.now() - started).toBeLessThan(2_500); // the body alone would take 50 s
    expect(err.received).toMatch(
      /^no complete response within 400 ms \(timed out after status 200 and \d+ bytes of body\)$/,
    );
  });

  test('a 50 MB answer is read up to the cap only, and said to exceed it', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let written = 0;
    server = await httpServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(50 * 1024 * 1024) });
      const pump = () => {
        while (written < 50 * 1024 * 1024 && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) return res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    const api = new Client(testConfig(server.url, { timeoutMs: 5_000 }), { maxBodyBytes: 1024 * 1024 });
    const res = await api.get('/pets');
    expect(res.truncated).toBe(true);
    expect(res.body.length).toBe(1024 * 1024);
    expect(written).toBeLessThan(50 * 1024 * 1024);
    const err = (() => {
      try {
        readJson(res);
      } catch (e) {
        return e as ConformanceError;
      }
    })();
    expect(err?.received).toMatch(/^200, a body that exceeded 1 MiB \(reading stopped there\)/);
    expect(res.exchange).toMatchObject({ truncated: true, responseBody: { size: 1024 * 1024, cut: true } });
  });

  test('a connection reset in the middle of the body is a failure that says so', async () => {
    server = await httpServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('[{"id":1,"na', () => setTimeout(() => res.socket?.resetAndDestroy(), 10));
    });
    const api = new Client(testConfig(server.url));
    const err = await rejection(api.get('/pets'));
    expect(err.received).toMatch(
      /(reset|closed) by the server \((ECONNRESET|UND_ERR_SOCKET)\) after \d+ ms, after status 200 and 12 bytes of body/,
    );
  });

  test("a refused connection is ANY-HTTP-MESSAGE's once the run is down to one request at a time, saying so", async () => {
    const closed = await httpServer(() => {});
    const url = closed.url;
    await closed.close();
    const err = await rejection(new Client(testConfig(url)).get('/pets'));
    expect(isBrokenMessage(err)).toBe(true);
    expect(err.received).toMatch(
      /^GET \/pets: connection refused \(ECONNREFUSED\).*\(and \d+ earlier attempts: connection refused/,
    );
    expect(err.expected).toBe(
      'an HTTP answer to GET /pets with one request at a time (the run came down from --concurrency 128 to 1, and the deployment still did not take it)',
    );
  });

  test('bytes that are not HTTP are a failure that says so', async () => {
    server = await rawServer('SSH-2.0-OpenSSH_9.6\r\n\r\n');
    const err = await rejection(new Client(testConfig(server.url)).get('/pets'));
    expect(err.received).toMatch(/before the status line and headers arrived/);
  });

  test('invalid JSON labelled application/json fails the JSON read with the parser message and an excerpt', async () => {
    server = await httpServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('[{"id": 1, "name": "a",}');
    });
    const res = await new Client(testConfig(server.url)).get('/pets');
    let err: ConformanceError | undefined;
    try {
      readJson(res, 'a JSON array');
    } catch (e) {
      err = e as ConformanceError;
    }
    expect(err).toBeInstanceOf(ConformanceError);
    expect(err?.expected).toBe('a JSON array');
    expect(err?.received).toContain(
      'application/json body of 24 bytes that is not JSON: "[{\\"id\\": 1, \\"name\\": \\"a\\",}"',
    );
  });

  test('a server that answers 503 to everything, whatever the pace, fails a status check with its status and body', async () => {
    server = await httpServer((req, res) => {
      req.resume();
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('down for maintenance');
    });
    const res = await new Client(testConfig(server.url)).get('/pets', { query: { limit: 101 } });
    expect(() => expectStatus(res, 200)).toThrow(
      `expected: status 200\nreceived: 503, text/plain body of 20 bytes that is not JSON: "down for maintenance", after 1 refusal (429, 503) waited out\nreproduce: curl -i -sS '${server.url}/pets?limit=101'`,
    );
  });
});

describe('the client, on the way', () => {
  test('429 with Retry-After is waited out and the request retried', async () => {
    let calls = 0;
    server = await httpServer((req, res) => {
      req.resume();
      calls++;
      if (calls < 3) {
        res.writeHead(429, { 'retry-after': '0' });
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('[]');
    });
    const res = await new Client(testConfig(server.url)).get('/pets');
    expect(res.status).toBe(200);
    expect(res.retries).toBe(2);
    expect(calls).toBe(3);
  });

  test("a 429 left over after the patience is not the check's to judge: RateLimited, never a failure", async () => {
    let calls = 0;
    server = await httpServer((req, res) => {
      req.resume();
      calls++;
      res.writeHead(429, { 'retry-after': '0' });
      res.end();
    });
    const api = new Client(testConfig(server.url), { patienceMs: 300 });
    const err = await api.get('/pets').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isRateLimited(err)).toBe(true);
    expect((err as RateLimited).message).toMatch(
      /^rate-limited: GET \/pets was refused \d+ times \(429, Retry-After 0\)/,
    );
    expect(calls).toBeGreaterThan(1);
    // every refused attempt is in the record: the HAR counts what was sent
    expect(api.exchanges).toHaveLength(calls);
    expect(api.exchanges.every((x) => x.status === 429)).toBe(true);
  });

  test('a Retry-After longer than a request waits is not waited: RateLimited at once, saying so', async () => {
    server = await httpServer((req, res) => {
      req.resume();
      res.writeHead(429, { 'retry-after': '30' });
      res.end();
    });
    const started = performance.now();
    const err = await new Client(testConfig(server.url), { patienceMs: 5_000 }).get('/pets').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(performance.now() - started).toBeLessThan(2_000); // not the 30 s asked for
    expect((err as RateLimited).message).toMatch(/refused 1 time \(429, Retry-After 30\)/);
  });

  test('a 503 with Retry-After that every request gets is waited out as the deployment shedding load', async () => {
    let calls = 0;
    server = await httpServer((req, res) => {
      req.resume();
      calls++;
      if (calls <= 4) {
        res.writeHead(503, { 'retry-after': '0' });
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('[]');
    });
    const res = await new Client(testConfig(server.url)).get('/pets');
    expect(res.status).toBe(200);
    expect(res.retries).toBe(4);
  });

  test('a 503 with Retry-After that one request keeps getting while others are answered is its answer', async () => {
    server = await httpServer((req, res) => {
      req.resume();
      if (req.url?.includes('/pets/7')) {
        res.writeHead(503, { 'retry-after': '0' });
        res.end();
        return;
      }
      // the others are answered, slowly enough for several to come between two of the 503s
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('[]');
      }, 5);
    });
    const config = testConfig(server.url);
    const api = new Client(config);
    // The others are other checks, begun since (a client each): the pace serves the checks begun
    // first first, and a request refused again queues anew behind those asking before it.
    let going = true;
    const traffic = (async () => {
      while (going) await new Client(config).get('/pets');
    })();
    const res = await api.get('/pets/7');
    going = false;
    await traffic;
    expect(res.status).toBe(503);
  });

  test("a check's next request goes before the first requests of checks begun after it", async () => {
    const order: string[] = [];
    server = await httpServer((req, res) => {
      req.resume();
      order.push(req.url ?? '');
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('[]'), 20);
    });
    // One request at a time: every other request queues for the pace.
    const config = testConfig(server.url, { concurrency: 1 });
    const first = new Client(config);
    const later = new Client(config);
    const step1 = first.get('/pets?step=1');
    await new Promise((r) => setTimeout(r, 5));
    // Asked while the first check's step 1 is under way; its step 2 is asked after these.
    const others = [later.get('/pets?other=1'), later.get('/pets?other=2')];
    await step1;
    const step2 = first.get('/pets?step=2');
    await Promise.all([step2, ...others]);
    // The slot step 1 frees goes to the first waiting (other=1: step 2 was not asked yet); the next
    // one to step 2, asked after other=2 but placed at its check's beginning.
    expect(order.map((u) => u.replace(/^.*\?/, ''))).toEqual(['step=1', 'other=1', 'step=2', 'other=2']);
  });

  test('redirects are not followed', async () => {
    server = await httpServer((req, res) => {
      req.resume();
      res.writeHead(302, { location: '/elsewhere' });
      res.end();
    });
    const res = await new Client(testConfig(server.url)).get('/pets');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/elsewhere');
  });

  test('an interim 1xx answer is passed over: the final answer is the one read', async () => {
    server = await httpServer((req, res) => {
      req.resume();
      res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('[1]');
    });
    const res = await new Client(testConfig(server.url)).get('/pets');
    expect(res.status).toBe(200);
    expect(res.text).toBe('[1]');
    expect(res.headers.link).toBeUndefined();
  });

  test("the test's signal abandons every request of its client in flight, each saying so", async () => {
    server = await silentServer();
    const stop = new AbortController();
    const api = new Client(testConfig(server.url, { timeoutMs: 10_000 }), { signal: stop.signal });
    const sent = Array.from({ length: 12 }, () => rejection(api.get('/pets')));
    setTimeout(() => stop.abort(new Error('test timed out')), 50);
    for (const err of await Promise.all(sent))
      expect(err.received).toMatch(
        /^the request was abandoned after \d+ ms before the status line and headers arrived: the test was stopped \(test timed out\)$/,
      );
    // Once stopped, a request fails at once without being sent.
    const late = await rejection(api.get('/pets'));
    expect(late.received).toMatch(/the test was stopped \(test timed out\)$/);
  });

  test('connections are kept alive and reused', async () => {
    server = await httpServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('[]');
    });
    const api = new Client(testConfig(server.url));
    for (let i = 0; i < 10; i++) await api.get('/pets');
    // The next request may leave before the previous socket is back in the pool: one spare at most.
    expect(server.connections()).toBeLessThanOrEqual(2);
  });

  test('the key travels in the configured header or query parameter, and can be left out or replaced', async () => {
    const seen: { key?: string | string[]; url?: string }[] = [];
    server = await httpServer((req, res) => {
      req.resume();
      seen.push({ key: req.headers['x-api-key'], url: req.url ?? '' });
      res.end();
    });
    const header = new Client(testConfig(server.url, { apiKey: 'k-123' }));
    await header.get('/pets');
    await header.get('/pets', { auth: 'none' });
    await header.get('/pets', { auth: 'wrong' });
    await new Client(testConfig(server.url, { apiKey: 'k-123', apiKeyQuery: 'api_key' })).get('/pets', {
      query: { limit: 5 },
    });
    expect(seen[0]?.key).toBe('k-123');
    expect(seen[1]?.key).toBeUndefined();
    expect(seen[2]?.key).toMatch(/^wrong-[0-9a-f]{16}$/);
    expect(seen[3]).toEqual({ key: undefined, url: '/v1/pets?limit=5&api_key=k-123' });
  });

  test('every exchange is recorded: method, URL, status, headers, body excerpt, duration', async () => {
    server = await httpServer((req, res) => {
      req.resume();
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end('{"id":1,"name":"a"}');
    });
    const api = new Client(testConfig(server.url));
    await api.post('/pets', { json: { id: 9007199254740993n, name: 'a' } });
    expect(api.exchanges).toHaveLength(1);
    const [x] = api.exchanges;
    expect(x).toMatchObject({
      method: 'POST',
      url: `${server.url}/pets`,
      requestHeaders: { 'content-type': 'application/json' },
      requestBody: { size: 34, text: '{"id":9007199254740993,"name":"a"}' },
      status: 201,
      responseBody: { size: 19, text: '{"id":1,"name":"a"}' },
    });
    expect(x?.responseHeaders?.['content-type']).toBe('application/json');
    expect(typeof x?.durationMs).toBe('number');
  });
});

describe('the client through a proxy (undici EnvHttpProxyAgent, settings from Config.network)', () => {
  let proxy: ForwardProxy | undefined;
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });

  async function target() {
    const log = requestLog();
    server = await httpServer(
      log.record((req, res) => {
        req.resume();
        res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
      }),
    );
    return log;
  }

  const through = (url: string, noProxy = '') => ({
    proxy: { http: url, https: url, noProxy, from: 'HTTP_PROXY' },
  });

  test('every request goes through the proxy', async () => {
    const log = await target();
    proxy = await forwardProxy();
    const api = new Client(testConfig(server!.url, { network: through(proxy.url) }));
    for (let i = 0; i < 5; i++) expect((await api.get('/pets')).status).toBe(200);
    expect(log.remotePorts).toHaveLength(5);
    expect(log.remotePorts.every((port) => proxy!.opened(port))).toBe(true);
    expect(proxy.connects.length).toBeGreaterThan(0);
  });

  test('NO_PROXY bypasses it for the hosts it names', async () => {
    const log = await target();
    proxy = await forwardProxy();
    const api = new Client(testConfig(server!.url, { network: through(proxy.url, 'localhost,127.0.0.1') }));
    expect((await api.get('/pets')).status).toBe(200);
    expect(log.remotePorts).toHaveLength(1);
    expect(proxy.opened(log.remotePorts[0])).toBe(false);
    expect(proxy.connects).toEqual([]);
  });

  test("a proxy's credentials are sent as Proxy-Authorization, and its password is never shown", async () => {
    await target();
    proxy = await forwardProxy();
    const withCredentials = proxy.url.replace('http://', 'http://qa:pr%40xy-pass@');
    const api = new Client(testConfig(server!.url, { network: through(withCredentials) }));
    expect((await api.get('/pets')).status).toBe(200);
    expect(proxy.authorizations).toContain(`Basic ${Buffer.from('qa:pr@xy-pass').toString('base64')}`);
    expect(redact('password pr@xy-pass, as written pr%40xy-pass')).toBe('password ***, as written ***');
  });

  test('a proxy that cannot reach the target fails the request, naming the proxy answer', async () => {
    await target();
    proxy = await forwardProxy({ refuseWith: 502 });
    const api = new Client(testConfig(server!.url, { network: through(proxy.url) }));
    const err = await rejection(api.get('/pets'));
    expect(err.received).toMatch(/Proxy response \(502\)/);
  });
});

describe('the client over TLS (settings from Config.network)', () => {
  let certs: Certificates;
  let dir: string;
  let https: HttpsServer | undefined;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'petstore-conformance-client-tls-'));
    certs = makeCertificates(dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  afterEach(async () => {
    https?.closeAllConnections();
    await new Promise((resolve) => https?.close(resolve) ?? resolve(undefined));
    https = undefined;
  });

  async function httpsServer(options: object): Promise<string> {
    https = createHttpsServer(options, (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
    });
    await new Promise<void>((resolve) => https!.listen(0, '127.0.0.1', resolve));
    return `https://127.0.0.1:${(https.address() as { port: number }).port}/v1`;
  }

  test('--ca-cert adds a CA to the ones Node trusts, it does not replace them', () => {
    const { ca } = tlsConnectOptions({ ca: 'PEM' }) as { ca: string[] };
    expect(ca.at(-1)).toBe('PEM');
    expect(ca.length).toBeGreaterThanOrEqual(rootCertificates.length + 1);
    expect(tlsConnectOptions(undefined)).toEqual({});
    expect(tlsConnectOptions({ insecure: true })).toEqual({ rejectUnauthorized: false });
  });

  test('a server certificate signed by the CA given is trusted; without it the request fails, saying why', async () => {
    const url = await httpsServer({ cert: certs.pem('serverCert'), key: certs.pem('serverKey') });
    const trusted = new Client(testConfig(url, { network: { tls: { ca: certs.pem('caCert') } } }));
    expect((await trusted.get('/pets')).status).toBe(200);
    const err = await rejection(new Client(testConfig(url)).get('/pets'));
    expect(err.received).toMatch(
      /issued by a CA this machine does not trust \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)/,
    );
  });

  test('a client certificate is presented to a server that asks for one', async () => {
    const url = await httpsServer({
      cert: certs.pem('serverCert'),
      key: certs.pem('serverKey'),
      requestCert: true,
      rejectUnauthorized: true,
      ca: certs.pem('caCert'),
    });
    const network = {
      tls: { ca: certs.pem('caCert'), cert: certs.pem('clientCert'), key: certs.pem('clientKey') },
    };
    expect((await new Client(testConfig(url, { network })).get('/pets')).status).toBe(200);
  });
});

import type { IncomingHttpHeaders } from 'node:http';
import { afterEach, describe, expect, test } from 'vitest';
import { Client } from '../../suites/harness/http/client.ts';
import { newTraceId, parseTraceparent, traceHeaders, traceparent } from '../../suites/harness/http/trace.ts';
import { testConfig } from '../helpers/config.ts';
import { type HandMadeServer, httpServer } from '../helpers/servers.ts';

let server: HandMadeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A server answering 200 [] that keeps the headers of every request it gets. */
async function recording(): Promise<{ url: string; seen: IncomingHttpHeaders[] }> {
  const seen: IncomingHttpHeaders[] = [];
  server = await httpServer((req, res) => {
    req.resume();
    seen.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('[]');
  });
  return { url: server.url, seen };
}

describe('every request says who sent it', () => {
  test('a User-Agent of the suite, and a traceparent of the run’s trace with a span of its own', async () => {
    const { url, seen } = await recording();
    const traceId = newTraceId();
    const api = new Client(testConfig(url, { userAgent: 'petstore-conformance/1.2.3', traceId }));
    await Promise.all([api.get('/pets'), api.get('/pets'), api.post('/pets', { json: {} })]);
    expect(seen.map((h) => h['user-agent'])).toEqual(Array(3).fill('petstore-conformance/1.2.3'));
    const parsed = seen.map((h) => parseTraceparent(String(h.traceparent)));
    expect(parsed.every((p) => p?.traceId === traceId)).toBe(true);
    expect(new Set(parsed.map((p) => p?.spanId)).size).toBe(3);
  });

  test('--request-id-header: the exchange’s id (its span id) in the header the deployment logs', async () => {
    const { url, seen } = await recording();
    const api = new Client(testConfig(url, { traceId: newTraceId(), requestIdHeader: 'X-Request-Id' }));
    const res = await api.get('/pets');
    const span = parseTraceparent(String(seen[0]!.traceparent))?.spanId;
    expect(seen[0]!['x-request-id']).toBe(span);
    // and the reproduce line names both, so that the failure can be found in the logs
    expect(res.reproduce).toContain(`-H 'traceparent: ${seen[0]!.traceparent}'`);
    expect(res.reproduce).toContain(`-H 'x-request-id: ${span}'`);
    expect(res.reproduce).not.toContain('user-agent');
  });

  test('each attempt sent again is a span of its own', async () => {
    let calls = 0;
    const seen: IncomingHttpHeaders[] = [];
    server = await httpServer((req, res) => {
      req.resume();
      seen.push(req.headers);
      if (++calls === 1) {
        res.writeHead(429, { 'retry-after': '0' });
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('[]');
    });
    const api = new Client(testConfig(server.url, { traceId: newTraceId() }));
    await api.get('/pets');
    expect(seen).toHaveLength(2);
    expect(seen[0]!.traceparent).not.toBe(seen[1]!.traceparent);
    expect(api.exchanges.map((x) => x.requestHeaders.traceparent)).toEqual(seen.map((h) => h.traceparent));
  });

  test('--no-trace-headers (no trace id): no traceparent and no request id, the User-Agent stays', async () => {
    const { url, seen } = await recording();
    await new Client(
      testConfig(url, { userAgent: 'petstore-conformance/1.2.3', requestIdHeader: 'X-Request-Id' }),
    ).get('/pets');
    expect(seen[0]!.traceparent).toBeUndefined();
    expect(seen[0]!['x-request-id']).toBeUndefined();
    expect(seen[0]!['user-agent']).toBe('petstore-conformance/1.2.3');
  });
});

test('trace and span ids are random hex of the W3C lengths, never all zeros', () => {
  const ids = Array.from({ length: 50 }, newTraceId);
  expect(new Set(ids).size).toBe(50);
  for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
  const headers = traceHeaders({ traceId: ids[0]! });
  expect(parseTraceparent(headers.traceparent!)?.traceId).toBe(ids[0]);
  expect(parseTraceparent(traceparent('0'.repeat(32), '1'.repeat(16)))).toBeUndefined();
  expect(parseTraceparent('01-abc')).toBeUndefined();
});

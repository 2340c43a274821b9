// What the connection does to an answer (suites/harness/http/): an answer the server sent before it
// read a large body is that body's answer, every time, however the connection broke under the rest;
// an answer spoiled by the body the request before it left unread on a kept-alive connection is
// ANY-HTTP-MESSAGE's, naming both, and the request gets the answer it gets alone. Against the Python
// server of test/servers/python/, as an implementer writes it.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Client } from '../../suites/harness/http/client.ts';
import { testConfig } from '../helpers/config.ts';
import { replay } from '../helpers/lived.ts';
import { type PythonServer, pythonFound, startPythonPetstore } from '../servers/python/petstore.ts';

const found = pythonFound();
let plain: PythonServer | undefined;
let leaving: PythonServer | undefined;

beforeAll(async () => {
  if (!found) return;
  plain = await startPythonPetstore();
  leaving = await startPythonPetstore({ http11: true, backlog: 64, leaveBodyUnread: true });
}, 30_000);

afterAll(async () => {
  await plain?.close();
  await leaving?.close();
});

/** A valid pet padded with megabytes of white space: far over any server's body limit. */
const large = () => `{"id":1,"name":"large"${' '.repeat(4 * 1024 * 1024)}}`;

describe.runIf(found)('an answer sent before the body was read', () => {
  test('a 413 the server sends after the headers, then closing under the body, is the answer every time', async () => {
    const api = new Client(testConfig(plain!.url, { timeoutMs: 10_000 }));
    for (let i = 0; i < 5; i++) {
      const res = await api.post('/pets', { body: large(), headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(413);
    }
    // When the connection broke under the body, it was sent again, its first kilobyte then a pause.
    const resent = api.exchanges.filter((x) => x.status === undefined);
    expect(resent.every((x) => /EPIPE|ECONNRESET|closed/.test(x.error ?? ''))).toBe(true);
  }, 60_000);
});

describe.runIf(found)('a body left unread on a kept-alive connection', () => {
  test("spoils the next request's answer: ANY-HTTP-MESSAGE names both, and the request gets its answer alone", async () => {
    const api = new Client(testConfig(leaving!.url, { concurrency: 1 }));
    const refused = await api.request('PUT', '/pets/1', { json: { id: 1, name: 'changed' } });
    expect(refused.status).toBe(405);
    // The next request goes on the same connection (one at a time), after the body the server left:
    // the server reads `{"id":1,"name":"changed"}GET` as its method, and answers 501.
    await new Promise((r) => setTimeout(r, 20));
    const res = await api.get('/pets/2');
    expect(res.status).toBe(404);
    expect(api.findings).toHaveLength(1);
    const finding = api.findings[0]!;
    expect(finding.requirementId).toBe('ANY-HTTP-MESSAGE');
    expect(finding.received).toBe(
      'GET /v1/pets/2 was answered 501 on the connection where PUT /v1/pets/1 (answered 405) had left its body; sent alone on a new connection, it was answered 404',
    );
    expect(finding.reproduce).toMatch(
      /^curl -i -sS -X PUT .* --data-binary '\{"id":1,"name":"changed"\}' '[^']+\/v1\/pets\/1' -w '\\n' --next -i -sS .*'[^']+\/v1\/pets\/2'/,
    );
    // Pasted into sh, the line shows the spoiled answer as its last status line.
    expect(await replay(finding.reproduce)).toMatch(/^HTTP\/1\.[01] 501\b/);
  });

  test('requests given one connection of their own follow each other on it, whatever the pool', async () => {
    const api = new Client(testConfig(leaving!.url, { concurrency: 128 }));
    const connection = api.ownConnection();
    try {
      // Others in flight on the run's pool do not come between them.
      const others = Array.from({ length: 8 }, () => api.get('/pets'));
      await api.request('PUT', '/pets/3', { json: { id: 3, name: 'changed' }, connection });
      await api.get('/pets', { connection });
      await Promise.all(others);
    } finally {
      await connection.close();
    }
    expect(api.findings.map((f) => f.received)).toEqual([
      'GET /v1/pets was answered 501 on the connection where PUT /v1/pets/3 (answered 405) had left its body; sent alone on a new connection, it was answered 200',
    ]);
  });

  test('an answer that is the server’s own is not sent again', async () => {
    const api = new Client(testConfig(leaving!.url, { concurrency: 1 }));
    const limit = await api.get('/pets', { query: { limit: 'abc' } });
    expect(limit.status).toBe(400);
    expect(api.exchanges).toHaveLength(1);
    expect(api.findings).toEqual([]);
  });
});

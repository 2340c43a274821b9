import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import {
  formatBytes,
  formatExchange,
  recordExchange,
  toCurl,
} from '../../suites/harness/evidence/exchange.ts';

import { registerSecret } from '../../suites/harness/evidence/redact.ts';
import { reproducer } from '../../suites/harness/evidence/reproduce.ts';
import { httpServer } from '../helpers/servers.ts';

const base = 'http://127.0.0.1:8080/v1';
const execFileAsync = promisify(execFile);
const hasCurl = spawnSync('curl', ['--version']).status === 0;

describe('the curl line that reproduces a request', () => {
  test('a GET is the URL alone, quoted for the shell, with -i to show the status and headers', () => {
    expect(toCurl({ method: 'GET', url: `${base}/pets?limit=101`, headers: {} })).toBe(
      "curl -i -sS 'http://127.0.0.1:8080/v1/pets?limit=101'",
    );
  });

  test('a POST carries its method, headers and body, single quotes escaped', () => {
    const body = Buffer.from(`{"id":1,"name":"O'Malley"}`);
    expect(
      toCurl({ method: 'POST', url: `${base}/pets`, headers: { 'content-type': 'application/json' }, body }),
    ).toBe(
      `curl -i -sS -X POST -H 'content-type: application/json' --data-binary '{"id":1,"name":"O'\\''Malley"}' '${base}/pets'`,
    );
  });

  test('other methods and HEAD', () => {
    expect(toCurl({ method: 'DELETE', url: `${base}/pets/1`, headers: {} })).toBe(
      `curl -i -sS -X DELETE '${base}/pets/1'`,
    );
    expect(toCurl({ method: 'HEAD', url: `${base}/pets`, headers: {} })).toBe(`curl -sS -I '${base}/pets'`);
  });

  test('a body too long to paste is piped from the given POSIX command, or named', () => {
    const body = Buffer.alloc(20_000, 'x');
    expect(
      toCurl({ method: 'POST', url: `${base}/pets`, headers: {}, body, bodyCommand: "printf '%s' x" }),
    ).toBe(`printf '%s' x | curl -i -sS -X POST -H 'Expect:' --data-binary @- '${base}/pets'`);
    expect(toCurl({ method: 'POST', url: `${base}/pets`, headers: {}, body })).toMatch(
      /--data-binary @body\.json '[^']+' {2}# body\.json: the 20000-byte body sent, starting 'x{200}'$/,
    );
  });

  test.runIf(hasCurl)(
    'pasted into sh, each line sends the same request again and shows the answer',
    async () => {
      const seen: { method: string; url: string; type?: string; body: Buffer }[] = [];
      const server = await httpServer(async (req, res) => {
        const chunks: Buffer[] = [];
        for await (const c of req) chunks.push(c as Buffer);
        seen.push({
          method: req.method ?? '',
          url: req.url ?? '',
          type: req.headers['content-type'],
          body: Buffer.concat(chunks),
        });
        res.writeHead(418, { 'x-seen': 'yes' }).end('short and stout');
      });
      try {
        const json = `{"id":1,"name":"O'Malley \\"q\\" $HOME \`x\` é"}`;
        const padded = `{"id":7,"name":"a"${' '.repeat(64 * 1024)}}`;
        const lines = [
          toCurl({ method: 'GET', url: `${server.url}/pets?limit=1&x=%20`, headers: {} }),
          toCurl({
            method: 'POST',
            url: `${server.url}/pets`,
            headers: { 'content-type': 'application/json' },
            body: Buffer.from(json),
          }),
          toCurl({
            method: 'POST',
            url: `${server.url}/pets`,
            headers: { 'content-type': 'application/json' },
            body: Buffer.from(padded),
            bodyCommand: `{ printf '%s' '{"id":7,"name":"a"'; dd if=/dev/zero bs=1024 count=64 2>/dev/null | tr '\\000' ' '; printf '}'; }`,
          }),
        ];
        for (const line of lines) {
          // Asynchronously: the server answering it runs in this process.
          const run = await execFileAsync('sh', ['-c', line], { encoding: 'utf8', timeout: 10_000 });
          expect(run.stdout, `${line}\n${run.stderr}`).toMatch(/^HTTP\/1\.1 418 /);
          expect(run.stdout).toMatch(/x-seen: yes/i);
        }
        expect(seen.map((s) => [s.method, s.url, s.type, s.body.toString('utf8')])).toEqual([
          ['GET', '/v1/pets?limit=1&x=%20', undefined, ''],
          ['POST', '/v1/pets', 'application/json', json],
          ['POST', '/v1/pets', 'application/json', padded],
        ]);
      } finally {
        await server.close();
      }
    },
  );
});

describe('exchange records', () => {
  test('keep an excerpt of each body and format as request, then response', () => {
    expect(formatBytes(4096)).toBe('4 KiB');
    expect(formatBytes(1024 * 1024)).toBe('1 MiB');
    expect(formatBytes(100)).toBe('100 bytes');
    const x = recordExchange(
      { method: 'GET', url: `${base}/pets`, headers: {} },
      {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: Buffer.from('[]'),
        durationMs: 3.4,
      },
    );
    expect(x.responseBody).toEqual({ size: 2, text: '[]' });
    expect(formatExchange(x)).toBe(
      `GET ${base}/pets\n\n(no body)\n\nHTTP 200 OK  (3 ms)\ncontent-type: application/json\n\n[]\n\nbody: 2 bytes`,
    );
  });
  test('are masked when read, with every secret known by then, and serialise as plain masked data', () => {
    const secret = `late-secret-${Date.now()}`;
    const x = recordExchange(
      {
        method: 'POST',
        url: `${base}/pets`,
        headers: { 'content-type': 'application/json' },
        body: Buffer.from('{"name":"a pet"}'),
      },
      { status: 201, headers: {}, body: Buffer.from(`{"id":1,"name":"${secret}"}`), durationMs: 1 },
    );
    // Registered after the request (a key a later check sets): the record still masks it.
    registerSecret(secret);
    expect(x.responseBody?.text).toBe('{"id":1,"name":"***"}');
    const plain = JSON.parse(JSON.stringify(x));
    expect(plain).toEqual({
      method: 'POST',
      url: `${base}/pets`,
      requestHeaders: { 'content-type': 'application/json' },
      requestBody: { size: 16, text: '{"name":"a pet"}' },
      status: 201,
      responseHeaders: {},
      responseBody: { size: 18 + secret.length, text: '{"id":1,"name":"***"}' },
      durationMs: 1,
    });
    expect(structuredClone(x)).toEqual(plain);
    expect({ ...x }).toEqual(plain);
  });

  test("the suite's own words are shown as sent: a request's path, query, headers and body hold no secret", () => {
    // A key that is also a word of the suite's: in the answer it is masked; in the request only where it went.
    registerSecret('zebras');
    const x = recordExchange(
      {
        method: 'POST',
        url: `${base}/zebras?limit=2`,
        headers: { 'content-type': 'application/json', 'x-note': 'zebras' },
        body: Buffer.from('{"tag":"zebras-conformance 1"}'),
      },
      { status: 500, headers: { 'x-echo': 'zebras' }, body: Buffer.from('no zebras here'), durationMs: 1 },
    );
    expect(x.url).toBe(`${base}/zebras?limit=2`);
    expect(x.requestHeaders).toEqual({ 'content-type': 'application/json', 'x-note': 'zebras' });
    expect(x.requestBody?.text).toBe('{"tag":"zebras-conformance 1"}');
    expect(x.responseHeaders).toEqual({ 'x-echo': '***' });
    expect(x.responseBody?.text).toBe('no *** here');
  });

  test("a create's reproduce line notes the pet when it is answered, though written when asked for", () => {
    const create = (id: number) => ({
      method: 'POST',
      url: `${base}/pets`,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(`{"id":${id},"name":"a"}`),
    });
    const id = 900_000_000 + Math.floor(Math.random() * 1000);
    const first = reproducer(create(id), 201);
    // A duplicate sent after it, answered 409: re-sending it as printed is what it did.
    const again = reproducer(create(id), 409);
    expect(again()).toContain(`"id":${id}`);
    expect(first()).toMatch(/ # a fresh id: pet \d+ exists now$/);
    expect(first()).not.toContain(`"id":${id},`);
    expect(first()).toBe(first());
  });
});

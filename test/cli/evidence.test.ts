// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the config file's own syntax here, not a template
// The evidence a run hands out, from a run configured by a config file only: the target from its
// `targets`, the key from `${…}`, sent as `Authorization: Bearer <key>`, against a server that echoes
// the key back in every spelling (as test/cli/secrets.test.ts's does). exchanges.har holds one entry
// per exchange, tagged, valid HAR 1.2 and masked; the event stream ends with the run's end; the CTRF
// report is valid; nothing anywhere holds the key.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadCatalog } from '../../catalog/catalog.ts';
import { startReferenceServer } from '../../reference-impl/index.ts';
import {
  build,
  type CliResult,
  filesUnder,
  type Json,
  ROOT,
  readJson,
  runInProcess,
} from '../helpers/cli.ts';
import { harErrors, shippedSchema } from '../helpers/schemas.ts';
import { SPECIAL_KEY, spellingsOf } from '../helpers/spellings.ts';

const spellings = spellingsOf(SPECIAL_KEY);
const work = mkdtempSync(path.join(tmpdir(), 'petstore-conformance-evidence-'));
const reportDir = path.join(work, 'reports');
const catalogIds = new Set(loadCatalog().requirements.map((r) => r.id));
/** Every request the server received: "GET /v1/pets?limit=101". */
const received: string[] = [];
let server: { url: string; close(): Promise<void> };
let run: CliResult;
let har: Json;
let events: Json[];

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The reference, requiring `Authorization: Bearer <key>` and echoing the key it was sent in every
 * spelling: a header per spelling on every answer, and for GET /v1/pets/{id} a 500 whose JSON body
 * holds them all. A request without the right Authorization is refused with 401.
 */
const bearerEcho =
  (handler: Handler): Handler =>
  (req, res) => {
    // A CONNECT's target is a host and port (authority form), which the HAR's URL cannot hold; a
    // target in absolute form (`http://host/v1/pets`) is its path and query there, as written.
    const target = String(req.url).replace(/^https?:\/\/[^/]+/i, '');
    received.push(req.method === 'CONNECT' ? 'CONNECT (authority form)' : `${req.method} ${target}`);
    const authorization = String(req.headers.authorization ?? '');
    const key = authorization.startsWith('Bearer ') ? authorization.slice('Bearer '.length) : '';
    for (const [i, value] of Object.values(key === '' ? {} : spellingsOf(key)).entries())
      res.setHeader(`x-echo-${i}`, value);
    if (key !== SPECIAL_KEY && req.url !== '/v1') {
      req.resume();
      res.writeHead(401, { 'content-type': 'application/problem+json' });
      res.end(JSON.stringify({ title: 'Unauthorized', sent: authorization }));
      return;
    }
    if (req.method === 'GET' && /^\/v1\/pets\/[^/]+$/.test(req.url ?? '')) {
      req.resume();
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'echo', authorization, spellings: spellingsOf(key) }));
      return;
    }
    handler(req, res);
  };

beforeAll(async () => {
  await build();
  // Room for the 64 KiB target and the 16 KiB header ANY-NO-5XX sends, which node:http would answer
  // 431 itself, before the wrap that records them.
  server = await startReferenceServer({
    port: 0,
    host: '127.0.0.1',
    wrap: bearerEcho,
    maxHeaderSize: 256 * 1024,
  });
  writeFileSync(
    path.join(work, 'petstore-conformance.config.yaml'),
    [
      `# yaml-language-server: $schema=${path.join(ROOT, 'schemas', 'config.schema.json')}`,
      'target: local',
      'seed: 20261122',
      'strict: true',
      'authRequired: true',
      'reportDir: reports',
      'events: events.ndjson',
      'targets:',
      '  local:',
      `    baseUrl: ${server.url}`,
      '    apiKey: ${EVIDENCE_KEY}',
      '    apiKeyScheme: Bearer',
      '  elsewhere:',
      '    baseUrl: https://pets.example.com/v1',
      '    apiKey: ${UNSET_ELSEWHERE_KEY}',
      '',
    ].join('\n'),
  );
  run = await runInProcess([], { cwd: work, env: { EVIDENCE_KEY: SPECIAL_KEY }, timeoutMs: 180_000 });
  har = readJson(path.join(reportDir, 'exchanges.har'));
  events = readFileSync(path.join(work, 'events.ndjson'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line));
}, 240_000);

afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

/** The spellings of the key found in a text, by name. */
function leaks(text: string): string[] {
  return Object.entries(spellings)
    .filter(([, spelling]) => text.includes(spelling))
    .map(([name]) => name);
}

describe('a run configured by a config file only', () => {
  test('reads the file (said at the start), checks the target of its targets, and fails on the echoes (exit 1)', () => {
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(1);
    expect(run.stdout).toContain('config:  petstore-conformance.config.yaml');
    expect(run.stdout).toContain(`target:  ${server.url}`);
    expect(run.stdout).toContain('API key: set, sent in header Authorization (scheme Bearer)');
    const summary = readJson(path.join(reportDir, 'summary.json'));
    expect(summary.configFile).toBe('petstore-conformance.config.yaml');
    expect(summary.seed).toBe(20261122);
    expect(summary.options).toMatchObject({ strict: true, authRequired: true });
  });

  test('the key went as Authorization: Bearer <key>, a wrong one in the same scheme, a missing one as no Authorization', () => {
    const summary = readJson(path.join(reportDir, 'summary.json'));
    const status = (id: string) => summary.results.find((r: Json) => r.id === id).status;
    expect(status('AUTH-KEY-ACCEPTED')).toBe('passed');
    expect(status('AUTH-MISSING-KEY-REFUSED')).toBe('passed');
    expect(status('AUTH-WRONG-KEY-REFUSED')).toBe('passed');
    const authorization = (e: Json) => e.request.headers.find((h: Json) => h.name === 'authorization')?.value;
    const auth = (id: string) =>
      har.log.entries.filter((e: Json) => e._requirement === id).map(authorization);
    expect(new Set(auth('AUTH-KEY-ACCEPTED'))).toEqual(new Set(['***']));
    expect(new Set(auth('AUTH-WRONG-KEY-REFUSED'))).toEqual(new Set(['***']));
    // Besides the pet its spellings ask for, created with the key, and the show and the list that
    // look, with the key, for the pet of the create refused, every request goes without one.
    const missing = har.log.entries.filter((e: Json) => e._requirement === 'AUTH-MISSING-KEY-REFUSED');
    const keyed = missing.filter((e: Json) => authorization(e) !== undefined);
    expect(keyed.map((e: Json) => `${e.request.method} ${e.response.status}`).sort()).toEqual([
      'GET 200',
      'GET 500',
      'POST 201',
    ]);
    expect(missing.length).toBeGreaterThan(keyed.length + 10);
  });
});

describe('exchanges.har', () => {
  test('is valid HAR 1.2', () => {
    expect(harErrors(har)).toEqual([]);
    expect(har.log.version).toBe('1.2');
    expect(har.log.creator.name).toBe('petstore-conformance');
  });

  test('holds one entry per exchange the checks sent (the reachability probe aside), oldest first', () => {
    // The path as written, not as a URL parser resolves it: some checks send dot segments as they are.
    const sent = har.log.entries.map((e: Json) =>
      e.request.method === 'CONNECT'
        ? 'CONNECT (authority form)'
        : `${e.request.method} ${e.request.url.slice(new URL(e.request.url).origin.length)}`,
    );
    const probe = received.indexOf('GET /v1');
    expect(probe).toBe(0);
    expect([...sent].sort()).toEqual(received.slice(1).sort());
    const times = har.log.entries.map((e: Json) => e.startedDateTime);
    expect(times).toEqual([...times].sort());
  });

  test('tags every entry with the requirement and the check that sent it, and its operation', () => {
    for (const e of har.log.entries) {
      expect(catalogIds.has(e._requirement), e._requirement).toBe(true);
      expect(e._check.startsWith(`${e._requirement} `) || e._check.startsWith('first look:'), e._check).toBe(
        true,
      );
      expect(typeof e._operation).toBe('string');
    }
    const operations = new Set(har.log.entries.map((e: Json) => e._operation));
    expect(operations).toContain('GET /pets');
    expect(operations).toContain('POST /pets');
    expect(operations).toContain('GET /pets/{petId}');
    const failed = readJson(path.join(reportDir, 'summary.json'))
      .results.filter((r: Json) => r.status === 'failed')
      .map((r: Json) => r.id);
    for (const id of failed)
      expect(
        har.log.entries.some((e: Json) => e._requirement === id),
        id,
      ).toBe(true);
  });

  test('has each response as received: status, headers, body, timings that add up', () => {
    const echoed = har.log.entries.find((e: Json) => e.response.status === 500);
    expect(echoed.response.content.mimeType).toBe('application/json');
    expect(JSON.parse(echoed.response.content.text)).toMatchObject({ error: 'echo', authorization: '***' });
    expect(echoed.response.headers).toContainEqual({ value: '***', name: 'x-echo-0' });
    for (const e of har.log.entries) {
      const { blocked, wait, receive } = e.timings;
      expect(e.time).toBeCloseTo(blocked + wait + receive, 1);
    }
  });

  test('cuts long bodies at the bound, marked truncated, with their full size', () => {
    const long = har.log.entries.filter((e: Json) => e.request.bodySize > 64 * 1024);
    expect(long.length).toBeGreaterThan(0);
    for (const e of long) {
      expect(e.request._truncated).toBe(true);
      expect(e.request.comment).toMatch(/^truncated: the first .* of .* kept$/);
      expect(Buffer.byteLength(e.request.postData.text)).toBeLessThanOrEqual(64 * 1024);
    }
  });

  test('holds the key in no spelling, though the server echoed it in headers and bodies', () => {
    const text = readFileSync(path.join(reportDir, 'exchanges.har'));
    expect(leaks(text.toString('utf8'))).toEqual([]);
    expect(leaks(text.toString('latin1'))).toEqual([]);
    for (const e of har.log.entries) {
      for (const content of [e.response.content, e.request.postData]) {
        if (content?.encoding === 'base64' || content?._encoding === 'base64')
          expect(leaks(Buffer.from(content.text, 'base64').toString('latin1'))).toEqual([]);
      }
    }
  });
});

describe('the event stream', () => {
  test('is one valid event a line, every one with a type: run-start first, run-end last', () => {
    const invalid = events.flatMap((e, i) => shippedSchema('events.schema.json')(e).map((m) => `${i}: ${m}`));
    expect(invalid).toEqual([]);
    expect(events[0]).toMatchObject({
      type: 'run-start',
      target: server.url,
      seed: 20261122,
      configFile: 'petstore-conformance.config.yaml',
      options: { apiKey: true, apiKeyIn: 'header Authorization (scheme Bearer)', strict: true },
    });
    expect(events.at(-1)).toMatchObject({ type: 'run-end', verdict: 'non-conformant', exitStatus: run.code });
  });

  test('each check starts and ends; one verdict per requirement of the catalog, after the last check', () => {
    const starts = events.filter((e) => e.type === 'check-start').map((e) => e.check);
    const ends = events.filter((e) => e.type === 'check-end').map((e) => e.check);
    expect(starts.length).toBeGreaterThan(40);
    expect([...ends].sort()).toEqual([...starts].sort());
    for (const check of starts)
      expect(events.findIndex((e) => e.type === 'check-start' && e.check === check)).toBeLessThan(
        events.findIndex((e) => e.type === 'check-end' && e.check === check),
      );
    const verdicts = events.filter((e) => e.type === 'requirement');
    expect(verdicts.map((e) => e.requirement)).toEqual([...catalogIds]);
    const lastEnd = events.findLastIndex((e) => e.type === 'check-end');
    expect(events.findIndex((e) => e.type === 'requirement')).toBeGreaterThan(lastEnd);
    expect(events.find((e) => e.requirement === 'ANY-NO-5XX' && e.type === 'requirement')).toMatchObject({
      status: 'failed',
      gating: true,
    });
  });

  test('holds no spelling of the key', () => {
    const text = readFileSync(path.join(work, 'events.ndjson'), 'utf8');
    expect(leaks(text)).toEqual([]);
  });
});

describe('the other reports', () => {
  test('ctrf-report.json is a valid CTRF report, one test per requirement', async () => {
    const { validate } = await import('ctrf');
    const report = readJson(path.join(reportDir, 'ctrf-report.json'));
    expect(validate(report)).toEqual({ valid: true, errors: [] });
    expect(report.results.tests.map((t: Json) => t.testId)).toEqual([...catalogIds]);
    expect(report.results.summary.failed).toBe(readJson(path.join(reportDir, 'summary.json')).totals.failed);
  });

  test('no file the run wrote holds the key in any spelling, nor do stdout and stderr', () => {
    const found: string[] = [];
    for (const file of filesUnder(reportDir)) {
      const bytes = readFileSync(path.join(reportDir, file));
      for (const text of [bytes.toString('utf8'), bytes.toString('latin1')])
        for (const name of leaks(text)) found.push(`${file}: ${name}`);
    }
    expect([...new Set(found)]).toEqual([]);
    expect(leaks(run.stdout)).toEqual([]);
    expect(leaks(run.stderr)).toEqual([]);
  });
});

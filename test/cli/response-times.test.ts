// Response times: each answer is timed, the reports give per operation the count, median, 95th
// percentile and maximum, and --max-response-time holds every answer to a budget (ANY-RESPONSE-TIME,
// SHOULD, judged only with the option). The faulty server it fails is test/variants' slow-show.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import type { Requirement } from '../../catalog/catalog.ts';
import { specFiles } from '../../catalog/paths.ts';
import { routeNames, routesOf } from '../../catalog/routes.ts';
import { type ExchangeLogInbox, openExchangeLog } from '../../cli/record/exchanges.ts';
import { rollUp, type TestOutcome } from '../../cli/record/rollup.ts';
import { slowAnswerFailure } from '../../cli/record/slow.ts';
import { OTHER, responseTimeStats, timingsOfExchanges } from '../../cli/record/timings.ts';
import { harText } from '../../cli/reports/har.ts';
import { responseTimesJson } from '../../cli/reports/summary-json.ts';
import { exchangeSink } from '../../suites/harness/evidence/exchange-log.ts';
import { Client } from '../../suites/harness/http/client.ts';
import { build, type CliResult, type Json, readJson, runInProcess } from '../helpers/cli.ts';
import { testConfig } from '../helpers/config.ts';
import { type HandMadeServer, httpServer } from '../helpers/servers.ts';

describe('the statistics, a pure function of {operation, durationMs}', () => {
  test('count, median, nearest-rank 95th percentile and maximum per operation, to a tenth of a ms', () => {
    const times = [...Array.from({ length: 20 }, (_, i) => i + 1), 100].map((durationMs) => ({
      operation: 'listPets',
      durationMs,
    }));
    const stats = responseTimeStats([...times, { operation: 'showPetById', durationMs: 2.345 }]);
    expect(stats.get('listPets')).toEqual({ count: 21, medianMs: 11, p95Ms: 20, maxMs: 100 });
    expect(stats.get('showPetById')).toEqual({ count: 1, medianMs: 2.3, p95Ms: 2.3, maxMs: 2.3 });
  });

  test('an even count takes the mean of the two middle times', () => {
    const stats = responseTimeStats([1, 2, 3, 10].map((durationMs) => ({ operation: 'x', durationMs })));
    expect(stats.get('x')).toMatchObject({ medianMs: 2.5, p95Ms: 10, maxMs: 10 });
  });

  test('operations come in the order given, then the others as first seen; nothing gives nothing', () => {
    const stats = responseTimeStats(
      [
        { operation: OTHER, durationMs: 1 },
        { operation: 'showPetById', durationMs: 1 },
        { operation: 'listPets', durationMs: 1 },
      ],
      ['listPets', 'createPets', 'showPetById'],
    );
    expect([...stats.keys()]).toEqual(['listPets', 'showPetById', OTHER]);
    expect(responseTimeStats([]).size).toBe(0);
  });

  test("the exchange log's answers are timed from the last attempt sent to the last byte, under the operation the log named", () => {
    const x = (
      operationId: string | undefined,
      timings: { blocked: number; wait: number; receive: number },
      status?: number,
      error?: string,
    ) => ({
      ...(operationId === undefined ? {} : { operation: { method: 'GET', path: '/p', operationId } }),
      timings,
      ...(status === undefined ? {} : { response: { status, headers: {} } }),
      ...(error === undefined ? {} : { error }),
    });
    expect(
      timingsOfExchanges([
        x('showPetById', { blocked: 100, wait: 2.5, receive: 0.5 }, 200),
        x(undefined, { blocked: 0, wait: 4, receive: 0 }, 404),
        // A path of the document without an operation for the method (DELETE /pets): other.
        {
          operation: { method: 'DELETE', path: '/pets' },
          timings: { blocked: 0, wait: 1, receive: 0 },
          response: { status: 405, headers: {} },
        },
        // No answer, an answer cut by an error, and a 429 the client gave up on: not answers a check received.
        x('listPets', { blocked: 0, wait: 9, receive: 0 }, undefined, 'connection reset'),
        x('listPets', { blocked: 0, wait: 9, receive: 1 }, 200, 'body stalled'),
        x('createPets', { blocked: 0, wait: 9, receive: 0 }, 429),
      ]),
    ).toEqual([
      { operation: 'showPetById', durationMs: 3 },
      { operation: OTHER, durationMs: 4 },
      { operation: OTHER, durationMs: 1 },
    ]);
  });
});

/**
 * What each report makes of a run's exchanges, by operation: exchanges.har's `_operation` of each
 * answer, and the count per operation of summary.json's `responseTimes` (the count of `other` holds
 * every answer the HAR names no operation of, or a path without one for its method).
 */
function classifications(har: Json, responseTimes: Json) {
  const routes = new Map<string, string>(
    Object.entries(responseTimes as Record<string, Json>).flatMap(([operation, t]) =>
      t.route === undefined ? [] : [[t.route as string, operation]],
    ),
  );
  const fromHar = new Map<string, number>();
  for (const entry of har.log.entries as Json[]) {
    const status = entry.response.status as number;
    if (status === 0 || status === 429 || entry.response._error !== undefined) continue;
    const operation = routes.get(entry._operation) ?? OTHER;
    fromHar.set(operation, (fromHar.get(operation) ?? 0) + 1);
  }
  const fromSummary = new Map(
    Object.entries(responseTimes as Record<string, Json>).map(([operation, t]) => [
      operation,
      t.count as number,
    ]),
  );
  return { fromHar, fromSummary };
}

describe('one classification: the HAR, the response times and summary.json name the same operation', () => {
  const ROUTES = routesOf(parse(readFileSync(specFiles.openapi, 'utf8')));
  /** What a request is, by catalog/routes.ts: the HAR's `_operation`, and the operation its time goes under. */
  const ODD: readonly [method: string, path: string, har: string, times: string][] = [
    ['GET', '/pets', 'GET /pets', 'listPets'],
    ['GET', '/pets?limit=1', 'GET /pets', 'listPets'],
    ['POST', '/pets', 'POST /pets', 'createPets'],
    ['GET', '/pets/12', 'GET /pets/{petId}', 'showPetById'],
    ['GET', '/pets/a%2Fb', 'GET /pets/{petId}', 'showPetById'],
    ['GET', '/pets/12%20x?y=1', 'GET /pets/{petId}', 'showPetById'],
    ['GET', '/store/orders', 'GET /store/orders', 'listStoreOrders'],
    ['GET', '/pets/', '(outside the API)', OTHER],
    ['GET', '/pets/12/', '(outside the API)', OTHER],
    ['GET', '//pets', '(outside the API)', OTHER],
    ['GET', '/pets//12', '(outside the API)', OTHER],
    ['GET', '/p%65ts', '(outside the API)', OTHER],
    ['GET', '/PETS', '(outside the API)', OTHER],
    ['GET', 'http://127.0.0.1:1/v1/pets', '(outside the API)', OTHER],
    ['DELETE', '/pets/12', 'DELETE /pets/{petId}', OTHER],
  ];
  let server: HandMadeServer | undefined;
  let log: ExchangeLogInbox | undefined;
  let dir: string | undefined;
  afterAll(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('over requests to odd paths, sent by the suites’ client through the exchange log', async () => {
    server = await httpServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
    });
    dir = await mkdtemp(path.join(tmpdir(), 'petstore-conformance-odd-paths-'));
    log = openExchangeLog(path.join(dir, 'exchanges.jsonl'));
    const settings = { file: log.file, bodyBytes: 0, operations: ROUTES };
    const config = testConfig(server.url);
    const label = { requirement: 'ANY-NO-5XX', check: 'odd paths' };
    const api = new Client(config, { log: exchangeSink(settings, server.url, label)! });
    for (const [method, path] of ODD) {
      // The one request to another origin finds no server: it is logged without an answer.
      await api.request(method, path).catch(() => undefined);
    }
    const exchanges = log.entries();
    expect(exchanges).toHaveLength(ODD.length);

    const har = JSON.parse(harText({ version: '1.0.0', target: server.url, config }, exchanges));
    expect(har.log.entries.map((e: Json) => `${e.request.method} ${e._operation}`)).toEqual(
      ODD.map(([method, , named]) => `${method} ${named}`),
    );
    const times = timingsOfExchanges(exchanges);
    const answered = ODD.filter(([, path]) => !path.startsWith('http'));
    expect(times.map((t) => t.operation)).toEqual(answered.map(([, , , operation]) => operation));

    const responseTimes = responseTimesJson(
      responseTimeStats(
        times,
        ROUTES.map((r) => r.operationId),
      ),
      routeNames(ROUTES),
    );
    const { fromHar, fromSummary } = classifications(har, responseTimes);
    expect(fromSummary).toEqual(fromHar);
    expect(Object.fromEntries(fromSummary)).toEqual({
      listPets: 2,
      createPets: 1,
      showPetById: 3,
      listStoreOrders: 1,
      [OTHER]: 7,
    });
  });
});

describe('ANY-RESPONSE-TIME in the roll-up: any check slower than the budget fails it', () => {
  const req = (id: string, level: Requirement['level']) =>
    ({ id, level, title: `${id} title`, operation: 'any', needs: [] }) as unknown as Requirement;
  const requirements = [req('SHOW-OK', 'MUST'), req('ANY-RESPONSE-TIME', 'SHOULD')];
  const catalog = { requirements, get: (id: string) => requirements.find((r) => r.id === id) };
  const outcome = (id: string, extra: Partial<TestOutcome> = {}): TestOutcome => ({
    requirementId: id,
    name: id,
    file: 'x',
    state: 'passed',
    failures: [],
    durationMs: 1,
    ...extra,
  });
  const slow = {
    count: 3,
    first: [
      {
        method: 'GET',
        url: 'http://h/v1/pets/1',
        status: 200,
        ms: 420,
        budgetMs: 250,
        reproduce: "curl 'u'",
      },
    ],
  };

  test('fails on a slow answer another check saw, naming it, its time and the check', () => {
    const results = rollUp(
      catalog,
      [outcome('SHOW-OK', { slowAnswers: slow }), outcome('ANY-RESPONSE-TIME')],
      { only: [], strict: true },
    ).results;
    expect(results.find((r) => r.id === 'ANY-RESPONSE-TIME')).toMatchObject({
      status: 'failed',
      gating: true,
      expected: 'every answer within 250 ms (--max-response-time)',
      received:
        'GET /v1/pets/1: 420 ms to answer 200 (seen while checking SHOW-OK); 2 more answers over the budget',
      reproduce: "curl 'u'",
    });
    expect(results.find((r) => r.id === 'SHOW-OK')?.status).toBe('passed');
  });

  test('passes when no check saw one', () => {
    expect(slowAnswerFailure([outcome('SHOW-OK')])).toBeUndefined();
    const results = rollUp(catalog, [outcome('SHOW-OK'), outcome('ANY-RESPONSE-TIME')], {
      only: [],
      strict: true,
    }).results;
    expect(results.find((r) => r.id === 'ANY-RESPONSE-TIME')?.status).toBe('passed');
  });
});

describe('with the real command against the reference', () => {
  let work = '';
  const runs: Record<string, CliResult> = {};

  beforeAll(async () => {
    await build();
    work = await mkdtemp(path.join(tmpdir(), 'petstore-conformance-times-'));
    const at = { cwd: work, timeoutMs: 120_000 };
    // A budget the reference meets on any machine: it passes the requirement.
    runs.budget = await runInProcess(
      ['--strict', '--max-response-time', '10000', '--report-dir', 'budget'],
      at,
    );
    runs.plain = await runInProcess(['--only', 'ANY', '--report-dir', 'plain'], at);
  }, 300_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  const out = (c: CliResult) => `exit ${c.code}\n${c.stdout}\n${c.stderr}`;

  test('the reference passes ANY-RESPONSE-TIME, and summary.json gives the times per operation', () => {
    const c = runs.budget!;
    expect(c.code, out(c)).toBe(0);
    const summary = readJson(path.join(work, 'budget', 'summary.json'));
    expect(summary.options.maxResponseTimeMs).toBe(10000);
    expect(summary.results.find((r: Json) => r.id === 'ANY-RESPONSE-TIME').status).toBe('passed');
    for (const operation of ['listPets', 'createPets', 'showPetById']) {
      const t = summary.responseTimes[operation];
      expect(t.count, operation).toBeGreaterThan(0);
      expect(t.medianMs).toBeLessThanOrEqual(t.p95Ms);
      expect(t.p95Ms).toBeLessThanOrEqual(t.maxMs);
    }
    expect(summary.responseTimes.listPets.route).toBe('GET /pets');
    const markdown = readFileSync(path.join(work, 'budget', 'summary.md'), 'utf8');
    expect(markdown).toContain('### Response times (budget 10000 ms, --max-response-time)');
    expect(markdown).toMatch(/\| `GET \/pets` \(listPets\) \| \d+ \| [\d.]+ ms \| [\d.]+ ms \| [\d.]+ ms \|/);
  });

  test('exchanges.har and summary.json put every answer of the run under the same operation', () => {
    const c = runs.plain!;
    expect(c.code, out(c)).toBe(0);
    const summary = readJson(path.join(work, 'plain', 'summary.json'));
    const har = readJson(path.join(work, 'plain', 'exchanges.har'));
    const { fromHar, fromSummary } = classifications(har, summary.responseTimes);
    expect(fromSummary).toEqual(fromHar);
    // ANY-NO-5XX sends GET /pets/ among its probes: a path of no route, so `other` in both.
    const slash = (har.log.entries as Json[]).filter((e) => new URL(e.request.url).pathname === '/v1/pets/');
    expect(slash.length).toBeGreaterThan(0);
    for (const e of slash) expect(e._operation).toBe('(outside the API)');
    expect(fromSummary.get(OTHER)).toBeGreaterThanOrEqual(slash.length);
  });

  test('without the option the requirement is skipped with its reason, and the times are still reported', () => {
    const c = runs.plain!;
    expect(c.code, out(c)).toBe(0);
    const summary = readJson(path.join(work, 'plain', 'summary.json'));
    expect(summary.results.find((r: Json) => r.id === 'ANY-RESPONSE-TIME')).toMatchObject({
      status: 'skipped',
      message: 'needs --max-response-time',
    });
    expect(summary.options.maxResponseTimeMs).toBeUndefined();
    expect(summary.responseTimes.listPets.count).toBeGreaterThan(0);
  });
});

// Response times: each answer is timed, the reports give per operation the count, median, 95th
// percentile and maximum, and --max-response-time holds every answer to a budget (ANY-RESPONSE-TIME,
// SHOULD, judged only with the option). The faulty server it fails is test/variants' slow-show.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Requirement } from '../../catalog/catalog.ts';
import { rollUp, type TestOutcome } from '../../cli/record/rollup.ts';
import { slowAnswerFailure } from '../../cli/record/slow.ts';
import { OTHER, operationOf, responseTimeStats, timingsOfExchanges } from '../../cli/record/timings.ts';
import { build, type CliResult, type Json, readJson, runCli } from '../helpers/cli.ts';

const routes = new Map([
  ['listPets', 'GET /pets'],
  ['createPets', 'POST /pets'],
  ['showPetById', 'GET /pets/{petId}'],
]);

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

  test('a request is put under the operation whose route it matches, OTHER when none', () => {
    expect(operationOf('GET', '/pets', routes)).toBe('listPets');
    expect(operationOf('GET', '/pets/?limit=1', routes)).toBe('listPets');
    expect(operationOf('post', '/pets', routes)).toBe('createPets');
    expect(operationOf('GET', '/pets/12%20x', routes)).toBe('showPetById');
    expect(operationOf('PUT', '/pets/12', routes)).toBe(OTHER);
    expect(operationOf('GET', '/pets/12/toys', routes)).toBe(OTHER);
  });

  test("the exchange log's answers are timed from the last attempt sent to the last byte, under the base URL's path", () => {
    const base = 'http://127.0.0.1:1/v1';
    const x = (
      method: string,
      url: string,
      timings: { blocked: number; wait: number; receive: number },
      status?: number,
      error?: string,
    ) => ({
      request: { method, url, headers: {} },
      timings,
      ...(status === undefined ? {} : { response: { status, headers: {} } }),
      ...(error === undefined ? {} : { error }),
    });
    expect(
      timingsOfExchanges(
        [
          x('GET', `${base}/pets/1`, { blocked: 100, wait: 2.5, receive: 0.5 }, 200),
          x('GET', `${base}/nope?x=1`, { blocked: 0, wait: 4, receive: 0 }, 404),
          // No answer, an answer cut by an error, and a 429 the client gave up on: not answers a check received.
          x('GET', `${base}/pets`, { blocked: 0, wait: 9, receive: 0 }, undefined, 'connection reset'),
          x('GET', `${base}/pets`, { blocked: 0, wait: 9, receive: 1 }, 200, 'body stalled'),
          x('POST', `${base}/pets`, { blocked: 0, wait: 9, receive: 0 }, 429),
        ],
        base,
        routes,
      ),
    ).toEqual([
      { operation: 'showPetById', durationMs: 3 },
      { operation: OTHER, durationMs: 4 },
    ]);
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
    runs.budget = await runCli(['--strict', '--max-response-time', '10000', '--report-dir', 'budget'], at);
    runs.plain = await runCli(['--only', 'ANY', '--report-dir', 'plain'], at);
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

import { describe, expect, test } from 'vitest';
import type { TestCase } from 'vitest/node';
import type { Requirement } from '../../catalog/catalog.ts';
import type { RunRecord } from '../../cli/record/record.ts';
import { NOT_SELECTED, rollUp, type TestOutcome } from '../../cli/record/rollup.ts';
import { byCause, UNJUDGED_CAUSE } from '../../cli/record/views.ts';
import { junitXml } from '../../cli/reports/junit.ts';
import { createRedactor, MASK } from '../../cli/reports/redact.ts';
import { summaryJson } from '../../cli/reports/summary-json.ts';
import { toFailure } from '../../cli/run/collector.ts';
import { worstCaseMs } from '../../cli/run/vitest-run.ts';
import { testConfig } from '../helpers/config.ts';

const req = (id: string, level: Requirement['level'], operation: Requirement['operation'] = 'listPets') =>
  ({ id, level, title: `${id} title`, operation, needs: [] }) as unknown as Requirement;
const requirements = [
  req('LIST-A', 'MUST'),
  req('LIST-B', 'SHOULD'),
  req('LIST-C', 'MAY'),
  req('SHOW-A', 'MUST', 'showPetById'),
];
const catalog = { requirements, get: (id: string) => requirements.find((r) => r.id === id) };
const outcome = (
  id: string | undefined,
  state: TestOutcome['state'],
  extra: Partial<TestOutcome> = {},
): TestOutcome => ({
  requirementId: id,
  name: `${id} test`,
  file: 'suites/x.test.ts',
  state,
  failures: [],
  durationMs: 1,
  ...extra,
});

describe('roll-up: a check whose precondition failed is blocked, not failed', () => {
  const blockedOutcome = (id: string, by: string[]) =>
    outcome(id, 'skipped', {
      note: `blocked by ${by.join(', ')}: POST /pets answered 500, empty body (a 2xx to POST /pets)`,
      blockedBy: by,
      failures: [
        {
          message: 'blocked',
          expected: 'a 2xx to POST /pets',
          received: 'POST /pets answered 500, empty body',
          reproduce: "curl -i -sS -X POST 'u'",
        },
      ],
    });

  test('blocked: skipped with blockedBy and the evidence, gating, and the run is not conformant', () => {
    const { results, verdict, totals } = rollUp(
      catalog,
      [
        outcome('LIST-A', 'failed', {
          failures: [{ message: 'x', expected: 'status 201', received: '500' }],
        }),
        outcome('LIST-B', 'passed'),
        outcome('LIST-C', 'passed'),
        blockedOutcome('SHOW-A', ['LIST-A']),
      ],
      { only: [], strict: false },
    );
    const show = results.find((r) => r.id === 'SHOW-A');
    expect(show).toMatchObject({
      status: 'skipped',
      blockedBy: ['LIST-A'],
      gating: true,
      received: 'POST /pets answered 500, empty body',
      reproduce: "curl -i -sS -X POST 'u'",
    });
    expect(show?.message).toMatch(/^blocked by LIST-A: POST \/pets answered 500/);
    expect(verdict).toBe('non-conformant');
    expect(totals).toEqual({ passed: 2, failed: 1, skipped: 1, blocked: 1 });
  });

  test('a blocked MUST alone keeps the run from being conformant; a blocked MAY does not', () => {
    const must = rollUp(
      catalog,
      [
        outcome('LIST-A', 'passed'),
        outcome('LIST-B', 'passed'),
        outcome('LIST-C', 'passed'),
        blockedOutcome('SHOW-A', ['X']),
      ],
      { only: [], strict: false },
    );
    expect(must.verdict).toBe('non-conformant');
    const may = rollUp(
      catalog,
      [
        outcome('LIST-A', 'passed'),
        outcome('LIST-B', 'passed'),
        blockedOutcome('LIST-C', ['X']),
        outcome('SHOW-A', 'passed'),
      ],
      { only: [], strict: false },
    );
    expect(may.verdict).toBe('conformant');
  });

  test("blocked by requirements that all passed: the precondition failure is this requirement's", () => {
    const { results, verdict } = rollUp(
      catalog,
      [
        outcome('LIST-A', 'passed'),
        outcome('LIST-B', 'passed'),
        outcome('LIST-C', 'passed'),
        blockedOutcome('SHOW-A', ['LIST-A']),
      ],
      { only: [], strict: false },
    );
    const show = results.find((r) => r.id === 'SHOW-A');
    expect(show).toMatchObject({
      status: 'failed',
      gating: true,
      received: 'POST /pets answered 500, empty body',
    });
    expect(show?.blockedBy).toBeUndefined();
    expect(show?.message).toContain('although LIST-A passed its own checks');
    expect(verdict).toBe('non-conformant');
  });

  test('blocked on an answer about a pet the run created, where more than one store answers: by CREATE-PERSISTED, which names the stores', () => {
    const ids = ['CREATE-PERSISTED', 'SHOW-OK', 'ANY-ACCEPT-JSON'];
    const storeCatalog = {
      requirements: ids.map((id) => req(id, 'MUST')),
      get: (id: string) => (ids.includes(id) ? req(id, 'MUST') : undefined),
    };
    const stores = {
      expected: 'pet 7, which this run created, shown by every show after its create',
      received: 'GET /v1/pets/7 answered 200 with the pet, though GET /v1/pets/7 answered 404',
      reproduce: '#!/bin/sh',
    };
    const run = (aboutStoredPets: boolean) =>
      rollUp(
        storeCatalog,
        [
          outcome('CREATE-PERSISTED', 'passed', { moreThanOneStore: stores }),
          outcome('SHOW-OK', 'passed'),
          {
            ...blockedOutcome('ANY-ACCEPT-JSON', ['SHOW-OK']),
            ...(aboutStoredPets ? { aboutStoredPets: true as const } : {}),
          },
        ],
        { only: [], strict: false },
      ).results;
    expect(run(true).find((r) => r.id === 'CREATE-PERSISTED')).toMatchObject({ status: 'failed' });
    expect(run(true).find((r) => r.id === 'ANY-ACCEPT-JSON')).toMatchObject({
      status: 'skipped',
      blockedBy: ['CREATE-PERSISTED'],
    });
    // Not about a pet the run created: its blocker passed, so it fails itself, as any other.
    expect(run(false).find((r) => r.id === 'ANY-ACCEPT-JSON')).toMatchObject({ status: 'failed' });
  });

  test('one check failed and one blocked: the requirement failed', () => {
    const { results } = rollUp(
      catalog,
      [outcome('LIST-A', 'failed', { failures: [{ message: 'x' }] }), blockedOutcome('LIST-A', ['SHOW-A'])],
      { only: [], strict: false },
    );
    expect(results.find((r) => r.id === 'LIST-A')?.status).toBe('failed');
  });

  test('causes: blocked requirements filed under the failed requirement at the end of their chain', () => {
    const { results } = rollUp(
      catalog,
      [
        outcome('LIST-A', 'failed', { failures: [{ message: 'x' }] }),
        blockedOutcome('LIST-B', ['LIST-A']),
        blockedOutcome('SHOW-A', ['LIST-B']),
      ],
      { only: [], strict: false },
    );
    const causes = byCause(results);
    expect(causes.get('LIST-A')?.map((r) => r.id)).toEqual(['LIST-B', 'SHOW-A']);
    // A summary written before blocking was settled (or by hand) may still hold a blocker nobody ran.
    const unsettled = results.map((r) =>
      r.id === 'LIST-C' ? { ...r, status: 'skipped' as const, blockedBy: ['NOT-RUN'] } : r,
    );
    expect(
      byCause(unsettled)
        .get(UNJUDGED_CAUSE)
        ?.map((r) => r.id),
    ).toEqual(['LIST-C']);
    const summary = JSON.parse(
      summaryJson({
        version: '1',
        target: 'http://x/v1',
        targetFrom: 'test',
        startedAt: new Date(0),
        durationMs: 1,
        config: {
          seed: 1,
          readOnly: false,
          strict: false,
          authRequired: false,
          only: [],
          exclude: [],
        } as never,
        rollUp: rollUp(
          catalog,
          [
            outcome('LIST-A', 'failed', { failures: [{ message: 'x' }] }),
            blockedOutcome('SHOW-A', ['LIST-A']),
          ],
          { only: [], strict: false },
        ),
        operations: new Map(),
      }),
    );
    expect(summary.results.find((r: { id: string }) => r.id === 'SHOW-A')).toMatchObject({
      status: 'skipped',
      blockedBy: ['LIST-A'],
    });
    expect(summary.totals.blocked).toBe(1);
  });
});

describe('roll-up: a 5xx seen by any check fails ANY-NO-5XX', () => {
  const withNo5xx = [...requirements, req('ANY-NO-5XX', 'MUST', 'any' as Requirement['operation'])];
  const catalog5 = { requirements: withNo5xx, get: (id: string) => withNo5xx.find((r) => r.id === id) };
  const seen = {
    method: 'GET',
    url: 'http://127.0.0.1:8080/v1/pets/12abc',
    status: 500,
    reproduce: "curl -sS 'http://127.0.0.1:8080/v1/pets/12abc'",
  };
  const outcomes = [
    outcome('LIST-A', 'passed'),
    outcome('LIST-B', 'passed'),
    outcome('LIST-C', 'passed'),
    outcome('SHOW-A', 'failed', { failures: [{ message: 'x' }], serverErrors: [seen] }),
    outcome('ANY-NO-5XX', 'passed'),
  ];

  test('fails, gating, naming the request, the status and the check that saw it, with its curl line', () => {
    const { results, verdict } = rollUp(catalog5, outcomes, { only: [], strict: false });
    const no5xx = results.find((r) => r.id === 'ANY-NO-5XX');
    expect(no5xx).toMatchObject({
      status: 'failed',
      gating: true,
      received: 'GET /v1/pets/12abc answered 500 (seen while checking SHOW-A)',
      reproduce: seen.reproduce,
    });
    expect(no5xx?.message).toContain('GET /v1/pets/12abc answered 500 (seen while checking SHOW-A)');
    expect(verdict).toBe('non-conformant');
  });

  test('counts the others, and passes when no test saw a 5xx', () => {
    const more = [
      ...outcomes,
      outcome('LIST-A', 'passed', { serverErrors: [seen, { ...seen, status: 503 }] }),
    ];
    const no5xx = rollUp(catalog5, more, { only: [], strict: false }).results.find(
      (r) => r.id === 'ANY-NO-5XX',
    );
    expect(no5xx?.received).toMatch(/; 2 more 5xx seen by other checks$/);
    const clean = outcomes.map((o) => (o.requirementId === 'SHOW-A' ? outcome('SHOW-A', 'passed') : o));
    expect(rollUp(catalog5, clean, { only: [], strict: false }).results.at(-1)?.status).toBe('passed');
  });

  test('its own failing probe keeps its own evidence; --only without it leaves it not selected', () => {
    const own = outcomes.map((o) =>
      o.requirementId === 'ANY-NO-5XX'
        ? outcome('ANY-NO-5XX', 'failed', { failures: [{ message: 'm', expected: 'e', received: 'own' }] })
        : o,
    );
    expect(rollUp(catalog5, own, { only: [], strict: false }).results.at(-1)?.received).toBe('own');
    const r = rollUp(catalog5, outcomes, { only: ['SHOW'], strict: false });
    expect(r.results.at(-1)).toMatchObject({ status: 'skipped', message: NOT_SELECTED });
  });
});

describe('roll-up: one result per catalog requirement, in catalog order', () => {
  test('failed if any test failed, else passed if any passed, else skipped with the reason', () => {
    const { results } = rollUp(
      catalog,
      [
        outcome('SHOW-A', 'passed'),
        outcome('LIST-A', 'passed'),
        outcome('LIST-A', 'failed', {
          failures: [
            { message: 'x', expected: 'status 400–499', received: 'status 200', reproduce: "curl -sS 'u'" },
          ],
        }),
        outcome('LIST-B', 'skipped', { note: '--read-only: needs writes' }),
        outcome('LIST-C', 'skipped', { note: 'needs --api-key' }),
        outcome('LIST-C', 'passed'),
      ],
      { only: [], strict: false },
    );
    expect(results.map((r) => [r.id, r.status])).toEqual([
      ['LIST-A', 'failed'],
      ['LIST-B', 'skipped'],
      ['LIST-C', 'passed'],
      ['SHOW-A', 'passed'],
    ]);
    expect(results[0]).toMatchObject({
      message: 'expected status 400–499; received status 200 (1 of 2 checks failed)',
      reproduce: "curl -sS 'u'",
      gating: true,
    });
    expect(results[1]?.message).toBe('--read-only: needs writes');
  });

  test('MUST failures gate; SHOULD failures gate only with --strict; MAY never', () => {
    const outcomes = [
      outcome('LIST-A', 'passed'),
      outcome('LIST-B', 'failed', { failures: [{ message: 'b' }] }),
      outcome('LIST-C', 'failed', { failures: [{ message: 'c' }] }),
      outcome('SHOW-A', 'passed'),
    ];
    expect(rollUp(catalog, outcomes, { only: [], strict: false }).verdict).toBe('conformant');
    expect(rollUp(catalog, outcomes, { only: [], strict: true }).verdict).toBe('non-conformant');
    const mayOnly = outcomes.map((o) => (o.requirementId === 'LIST-B' ? outcome('LIST-B', 'passed') : o));
    expect(rollUp(catalog, mayOnly, { only: [], strict: true }).verdict).toBe('conformant');
  });

  test('--only: the others are skipped "not selected by --only", whatever ran', () => {
    const { results, totals, unjudged } = rollUp(
      catalog,
      [outcome('LIST-A', 'passed'), outcome('SHOW-A', 'failed')],
      {
        only: ['LIST-A'],
        strict: false,
      },
    );
    expect(results.map((r) => r.message ?? r.status)).toEqual([
      'passed',
      NOT_SELECTED,
      NOT_SELECTED,
      NOT_SELECTED,
    ]);
    expect(totals).toEqual({ passed: 1, failed: 0, skipped: 3, blocked: 0 });
    expect(unjudged).toEqual([]);
  });

  test('a selected requirement no test reported on is unjudged: the suite broke', () => {
    const r = rollUp(
      catalog,
      [outcome('LIST-A', 'passed'), outcome(undefined, 'passed'), outcome('NOPE', 'failed')],
      {
        only: [],
        strict: false,
      },
    );
    expect(r.unjudged).toEqual(['LIST-B', 'LIST-C', 'SHOW-A']);
    expect(r.suiteWarnings).toHaveLength(2);
  });
});

describe('failures as the reporters see them', () => {
  test('a ConformanceError keeps expected, received and reproduce; other errors keep their message', () => {
    expect(
      toFailure({
        name: 'ConformanceError',
        message: 'expected: a\nreceived: b',
        expected: 'a',
        received: 'b',
        reproduce: 'curl',
      }),
    ).toEqual({ message: 'expected: a\nreceived: b', expected: 'a', received: 'b', reproduce: 'curl' });
    expect(
      toFailure({ name: 'AssertionError', message: 'expected 1 to be 2', expected: '2', actual: '1' }),
    ).toEqual({
      message: 'expected 1 to be 2',
      expected: '2',
      received: '1',
    });
    expect(toFailure({ name: 'Error', message: 'Test timed out in 30000ms.' })).toEqual({
      message: 'Test timed out in 30000ms.',
    });
  });
});

describe('reports', () => {
  const record = (): RunRecord => ({
    version: '1.0.0',
    target: 'http://127.0.0.1:1/v1',
    targetFrom: '--base-url',
    startedAt: new Date('2026-01-01T00:00:00.000Z'),
    durationMs: 1234,
    config: testConfig('http://127.0.0.1:1/v1', { seed: 7, timeoutMs: 10_000, runId: 'abcd' }),
    rollUp: rollUp(
      catalog,
      [
        outcome('LIST-A', 'failed', {
          failures: [
            { message: 'm', expected: '<4xx> & "quoted"', received: "200 ']]>'", reproduce: "curl 'x'" },
          ],
        }),
        outcome('LIST-B', 'skipped', { note: 'needs --api-key' }),
        outcome('LIST-C', 'passed'),
        outcome('SHOW-A', 'passed'),
      ],
      { only: [], strict: false },
    ),
    operations: new Map([['listPets', 'GET /pets']]),
  });

  test('summary.json has the fields of CONTRACT.md, results in catalog order', () => {
    const summary = JSON.parse(summaryJson(record()));
    expect(Object.keys(summary)).toEqual([
      'tool',
      'catalog',
      'target',
      'startedAt',
      'durationMs',
      'seed',
      'options',
      'verdict',
      'totals',
      'results',
    ]);
    expect(summary.verdict).toBe('non-conformant');
    expect(summary.results[0]).toMatchObject({
      id: 'LIST-A',
      level: 'MUST',
      status: 'failed',
      reproduce: "curl 'x'",
    });
    expect(summary.results[1]).toEqual({
      id: 'LIST-B',
      level: 'SHOULD',
      title: 'LIST-B title',
      status: 'skipped',
      message: 'needs --api-key',
    });
  });

  test('JUnit escapes what the server sent, one testcase per requirement', () => {
    const xml = junitXml(record());
    expect(xml.match(/<testcase /g)).toHaveLength(4);
    expect(xml).toContain('&lt;4xx&gt; &amp; &quot;quoted&quot;');
    expect(xml).not.toContain('<4xx>');
    expect(xml).toContain('<skipped message="needs --api-key"/>');
    expect(xml).toContain('classname="showPetById" name="SHOW-A SHOW-A title"');
  });
});

describe('redaction', () => {
  const secret = 'k3y/with spaces&"quotes"';
  const r = createRedactor([secret]);

  test('masks a secret in every spelling a report can hold it in', () => {
    for (const spelling of [
      secret,
      JSON.stringify(secret),
      encodeURIComponent(secret),
      secret.replace(/&/g, '&amp;').replace(/"/g, '&quot;'),
    ]) {
      expect(r.text(`before ${spelling} after`)).not.toContain('k3y');
    }
    expect(r.bytes(Buffer.from(`x${encodeURIComponent(secret)}y`)).toString()).toBe(`x${MASK}y`);
  });

  test('masks Authorization values wherever they appear', () => {
    const none = createRedactor([]);
    expect(none.text("curl -H 'Authorization: Bearer abc.def' 'u'")).toBe("curl -H 'Authorization: ***' 'u'");
    expect(none.text('{"authorization":"Basic Zm9v","x":1}')).toBe('{"authorization":"***","x":1}');
    expect(none.text('Authorization: Bearer abc\r\nHost: h')).toBe('Authorization: ***\r\nHost: h');
    expect(none.text('"headers":["Authorization","Bearer abc"]')).toBe('"headers":["Authorization","***"]');
  });
});

describe('the run deadline', () => {
  const limits = { testTimeout: 1000, hookTimeout: 100, maxConcurrency: 2 };
  const test_ = (options: { concurrent?: boolean; timeout?: number; mode?: string }) =>
    ({ options: { mode: 'run', ...options } }) as unknown as TestCase;

  test('counts tests that run alone one after the other, concurrent ones in batches', () => {
    const each = 1000 + 2 * 100;
    expect(worstCaseMs([test_({}), test_({})], limits)).toBe(400 + 2 * each);
    expect(
      worstCaseMs(
        [test_({ concurrent: true }), test_({ concurrent: true }), test_({ concurrent: true })],
        limits,
      ),
    ).toBe(400 + 2 * each);
    expect(worstCaseMs([test_({ timeout: 5000 }), test_({ mode: 'skip' })], limits)).toBe(400 + 5000 + 200);
  });
});

describe("roll-up: a requirement's checks are taken in the order they are declared", () => {
  test('its failure is the first declared check that failed, whichever finished first', () => {
    const failing = (declared: number, received: string) =>
      outcome('LIST-A', 'failed', { declared, failures: [{ message: received, received }] });
    const { results } = rollUp(catalog, [failing(7, 'the second row'), failing(3, 'the first row')], {
      only: [],
      strict: false,
    });
    expect(results.find((r) => r.id === 'LIST-A')?.received).toBe('the first row');
  });
});

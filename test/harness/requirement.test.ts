import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestResult } from 'allure-js-commons';
import AllureVitestReporter from 'allure-vitest/reporter';
import { describe, expect, test } from 'vitest';
import type { TestCase } from 'vitest/node';
import { startVitest } from 'vitest/node';
import { loadCatalog } from '../../catalog/catalog.ts';
import { packageRoot } from '../../catalog/paths.ts';
import { OutcomeCollector } from '../../cli/run/collector.ts';
import { ConformanceError } from '../../suites/harness/evidence/errors.ts';
import { rfcLinks } from '../../suites/harness/requirement/report.ts';
import { requirementOf, skipReason, testName } from '../../suites/harness/requirement/requirement.ts';
import { suiteVitestOptions } from '../../suites/vitest.shared.ts';
import { testConfig } from '../helpers/config.ts';
import { httpServer } from '../helpers/servers.ts';

describe('requirement()', () => {
  test('refuses an id the catalog does not have', () => {
    expect(() => requirementOf('LIST-NOPE')).toThrow('requirement(): unknown id LIST-NOPE');
  });

  test('names a test by id and title, and a row by its case', () => {
    const r = requirementOf('LIST-LIMIT-OVER-MAX');
    expect(testName(r)).toBe('LIST-LIMIT-OVER-MAX a limit above 100 is rejected with a 4xx status');
    expect(testName(r, 'limit=101')).toBe(
      'LIST-LIMIT-OVER-MAX a limit above 100 is rejected with a 4xx status [limit=101]',
    );
  });

  test('skips with the stable reasons, --only first', () => {
    const config = testConfig('http://x/v1');
    const create = requirementOf('CREATE-OK');
    expect(skipReason(create, config)).toBeUndefined();
    expect(skipReason(create, { ...config, readOnly: true })).toBe('--read-only: needs writes');
    expect(skipReason(create, { ...config, readOnly: true, only: ['LIST'] })).toBe('not selected by --only');
    expect(skipReason(create, { ...config, only: ['list', 'CREATE-O'] })).toBeUndefined();
    expect(skipReason(requirementOf('AUTH-KEY-ACCEPTED'), config)).toBe('needs --api-key');
    expect(skipReason(requirementOf('AUTH-KEY-ACCEPTED'), { ...config, apiKey: 'k' })).toBeUndefined();
    expect(skipReason(requirementOf('AUTH-WRONG-KEY-REFUSED'), config)).toBe('needs --auth-required');
    expect(skipReason(requirementOf('LIST-OK'), { ...config, readOnly: true }, ['write'])).toBe(
      '--read-only: needs writes',
    );
  });

  test('links the RFCs a rationale cites', () => {
    expect(rfcLinks('RFC 9110 §15.5.6 (405), and RFC 8594')).toEqual([
      { name: 'RFC 9110 §15.5.6', url: 'https://www.rfc-editor.org/rfc/rfc9110.html#section-15.5.6' },
      { name: 'RFC 8594', url: 'https://www.rfc-editor.org/rfc/rfc8594.html' },
    ]);
    expect(loadCatalog().requirements.some((r) => rfcLinks(r.rationale ?? '').length > 0)).toBe(true);
  });

  test('a ConformanceError has exactly the evidence as own enumerable properties', () => {
    const err = new ConformanceError({ expected: 'e', received: 'r', reproduce: 'c' });
    expect(Object.keys(err)).toEqual(['expected', 'received', 'reproduce']);
    expect(err.name).toBe('ConformanceError');
    expect(err.message).toBe('expected: e\nreceived: r\nreproduce: c');
  });
});

describe('what a reporter of the CLI receives from a run of the suites', () => {
  test('meta.requirementId, skip notes, error props and what the reports show survive to the reporters', async () => {
    const server = await httpServer((req, res) => {
      req.resume();
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"error":"boom"}');
    });
    const seen: {
      name: string;
      meta: Record<string, unknown>;
      state: string;
      note?: string;
      errors: Record<string, unknown>[];
    }[] = [];
    const reporter = {
      onTestCaseResult(tc: TestCase) {
        const r = tc.result();
        seen.push({
          name: tc.name,
          meta: tc.meta() as Record<string, unknown>,
          state: r.state,
          ...(r.state === 'skipped' && r.note !== undefined ? { note: r.note } : {}),
          errors: (r.errors ?? []) as unknown as Record<string, unknown>[],
        });
      },
    };
    // As the CLI does: its own reporter, which keeps each check's outcome, and allure-vitest's.
    const collector = new OutcomeCollector(packageRoot());
    const resultsDir = mkdtempSync(path.join(tmpdir(), 'petstore-conformance-allure-'));
    const config = testConfig(server.url, {
      readOnly: true,
      only: ['LIST', 'CREATE', 'AUTH', 'SHOW'],
      apiKey: 'harness-secret-key',
    });
    const started = Date.now();
    try {
      const options = suiteVitestOptions(config);
      const vitest = await startVitest('test', [], {
        ...options,
        include: ['test/harness/fixtures/requirement.fixture.ts'],
        config: false,
        reporters: [reporter, collector, new AllureVitestReporter({ resultsDir })],
      });
      // allure-vitest's setup file, once: the options name it as its reporter does.
      const project = vitest.projects[0];
      expect(project?.config.setupFiles).toEqual([
        createRequire(import.meta.url).resolve('allure-vitest/setup'),
      ]);
      await vitest.close();
    } finally {
      await server.close();
    }
    const byName = (prefix: string) => seen.filter((t) => t.name.startsWith(prefix));
    expect(seen).toHaveLength(11);
    expect(byName('AUTH-KEY-ACCEPTED')[0]?.state).toBe('passed'); // a key is given; the fixture's check passes
    expect(seen.map((t) => t.meta.requirementId).sort()).toEqual([
      'AUTH-KEY-ACCEPTED',
      'AUTH-MISSING-KEY-REFUSED',
      'CREATE-OK',
      'LIST-LIMIT-OVER-MAX',
      'LIST-LIMIT-OVER-MAX',
      'LIST-OK',
      'SHOW-ID-MALFORMED',
      'SHOW-OK',
      'SHOW-UNKNOWN-404',
      'SHOW-UNKNOWN-NOT-2XX',
      'STORE-ORDERS-EXISTS',
    ]);

    // Blocked: skipped, naming what blocks it and what came back, with the evidence in meta.
    const [blockedTest] = byName('SHOW-UNKNOWN-404');
    expect(blockedTest?.state).toBe('skipped');
    expect(blockedTest?.note).toMatch(
      /^blocked by CREATE-OK: GET \/v1\/pets answered 500, JSON object \{"error":"boom"\} \(a pet to show, which this check needs\)$/,
    );
    expect(blockedTest?.meta.blockedBy).toEqual(['CREATE-OK']);
    expect(blockedTest?.meta.blockedEvidence).toMatchObject({
      reproduce: `curl -i -sS -H 'x-api-key: '"\${PETSTORE_API_KEY:-***}" '${server.url}/pets'`,
    });
    // Blocked by itself: a failure.
    const [selfBlocked] = byName('SHOW-UNKNOWN-NOT-2XX');
    expect(selfBlocked?.state).toBe('failed');
    expect(selfBlocked?.meta.blockedBy).toBeUndefined();
    expect(selfBlocked?.errors[0]).toMatchObject({ name: 'ConformanceError', expected: 'status 404' });
    // An exception of the check itself: marked as the suite's bug, with where it happened.
    const [buggy] = byName('SHOW-ID-MALFORMED');
    expect(buggy?.state).toBe('failed');
    expect(buggy?.meta.suiteError).toMatch(/^TypeError: .*\(.*requirement\.fixture\.ts:\d+:\d+\)$/);

    const [listOk] = byName('LIST-OK ');
    expect(listOk?.name).toBe('LIST-OK listing pets answers 200 with a JSON array');
    expect(listOk?.state).toBe('failed');
    expect(listOk?.meta.requirementLevel).toBe('MUST');
    expect(listOk?.meta.suiteError).toBeUndefined(); // a server's 500 is not the suite's bug
    expect(listOk?.meta.exchangeCount).toBe(1);
    // Every 5xx a check receives is kept in its meta, masked, for ANY-NO-5XX in the roll-up.
    expect(listOk?.meta.serverErrors).toEqual([
      {
        method: 'GET',
        url: `${server.url}/pets`,
        status: 500,
        reproduce: `curl -i -sS -H 'x-api-key: '"\${PETSTORE_API_KEY:-***}" '${server.url}/pets'`,
      },
    ]);
    expect(JSON.stringify(seen.map((t) => t.meta))).not.toContain('harness-secret-key');
    const error = listOk?.errors[0] ?? {};
    expect(error.name).toBe('ConformanceError');
    expect(error.expected).toBe('status 200');
    expect(error.received).toBe('500, JSON object {"error":"boom"}');
    expect(error.reproduce).toBe(
      `curl -i -sS -H 'x-api-key: '"\${PETSTORE_API_KEY:-***}" '${server.url}/pets'`,
    );
    expect(error.exchanges).toMatchObject([
      { method: 'GET', status: 500, responseBody: { text: '{"error":"boom"}' } },
    ]);
    expect(error.message).toBe(
      `expected: status 200\nreceived: 500, JSON object {"error":"boom"}\nreproduce: curl -i -sS -H 'x-api-key: '"\${PETSTORE_API_KEY:-***}" '${server.url}/pets'`,
    );
    // The CLI's reporter keeps when each check started (vitest's public API only), and nothing of the key.
    const outcomeOf = (id: string) => collector.outcomes.filter((o) => o.requirementId === id);
    const [listOkOutcome] = outcomeOf('LIST-OK');
    expect(listOkOutcome?.startedAt).toBeGreaterThanOrEqual(started);
    expect(listOkOutcome?.startedAt).toBeLessThanOrEqual(Date.now());
    expect(JSON.stringify(collector.outcomes)).not.toContain('harness-secret-key');

    // allure-vitest's results: one per check, with what the harness recorded inside its test.
    const files = readdirSync(resultsDir);
    const read = (file: string) => readFileSync(path.join(resultsDir, file), 'utf8');
    const results = files
      .filter((f) => f.endsWith('-result.json'))
      .map((f) => JSON.parse(read(f)) as TestResult);
    expect(results).toHaveLength(11);
    const allureOf = (id: string) =>
      results.filter((r) => r.labels.some((l) => l.name === 'requirement' && l.value === id));
    const [allureListOk] = allureOf('LIST-OK');
    expect(allureListOk?.status).toBe('failed');
    expect(allureListOk?.labels).toEqual(
      expect.arrayContaining([
        { name: 'severity', value: 'critical' },
        { name: 'operation', value: 'GET /pets (listPets)' },
        { name: 'story', value: 'LIST-OK (MUST) listing pets answers 200 with a JSON array' },
        { name: 'level', value: 'MUST' },
      ]),
    );
    expect(allureListOk?.description).toContain('`application/json`, a Pets array');
    // Its note, then what it saw for ANY-NO-5XX, then its request and response.
    expect(allureListOk?.steps.map((s) => s.name)).toEqual([
      'looked at GET /pets once',
      expect.stringMatching(/^seen for ANY-NO-5XX: GET .*\/pets answered 500/),
      'request: GET /v1/pets',
      expect.stringMatching(/^response: 500 Internal Server Error · 16 bytes · \d+ ms$/),
    ]);
    const overMax = allureOf('LIST-LIMIT-OVER-MAX');
    expect(overMax.map((r) => r.parameters.map((p) => `${p.name}=${p.value}`).join()).sort()).toEqual([
      'case=limit=101',
      'case=limit=2^31',
    ]);
    expect(overMax[0]?.links).toEqual(
      expect.arrayContaining([
        {
          name: 'RFC 9110 §15.5',
          url: 'https://www.rfc-editor.org/rfc/rfc9110.html#section-15.5',
          type: 'link',
        },
      ]),
    );
    // Blocked: skipped, tagged, with the answer that blocked it.
    const [blockedResult] = allureOf('SHOW-UNKNOWN-404');
    expect(blockedResult?.status).toBe('skipped');
    expect(blockedResult?.labels).toEqual(expect.arrayContaining([{ name: 'tag', value: 'blocked' }]));
    const attachments = files.filter((f) => f.includes('-attachment')).map(read);
    expect(attachments.some((a) => a.includes('HTTP 500'))).toBe(true);
    expect(attachments.some((a) => a.includes('x-api-key: ***'))).toBe(true);
    for (const file of files) expect(read(file), file).not.toContain('harness-secret-key');
    rmSync(resultsDir, { recursive: true, force: true });

    expect(byName('LIST-LIMIT-OVER-MAX').map((t) => [t.name.replace(/^.*\[/, '['), t.state])).toEqual([
      ['[limit=101]', 'passed'],
      ['[limit=2^31]', 'passed'],
    ]);
    const notes = Object.fromEntries(
      seen.filter((t) => t.state === 'skipped').map((t) => [t.meta.requirementId, t.note]),
    );
    expect(notes).toEqual({
      'CREATE-OK': '--read-only: needs writes',
      'AUTH-MISSING-KEY-REFUSED': 'needs --auth-required',
      'STORE-ORDERS-EXISTS': 'not selected by --only',
      'SHOW-OK': 'read-only and the list is empty: there is no pet to show',
      'SHOW-UNKNOWN-404': expect.stringMatching(/^blocked by CREATE-OK: /),
    });
  }, 60_000);
});

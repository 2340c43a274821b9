import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import type { TestCase } from 'vitest/node';
import { startVitest } from 'vitest/node';
import { loadCatalog } from '../../catalog/catalog.ts';
import { rfcLinks } from '../../suites/harness/allure.ts';
import { ConformanceError } from '../../suites/harness/errors.ts';
import { requirementOf, skipReason, testName } from '../../suites/harness/requirement.ts';
import { RequirementAllureReporter } from '../../suites/reporter.ts';
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
  test('meta.requirementId, skip notes, error props and Allure results survive to the reporters', async () => {
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
    const allureDir = await mkdtemp(path.join(tmpdir(), 'harness-allure-'));
    try {
      const config = testConfig(server.url, {
        readOnly: true,
        only: ['LIST', 'CREATE', 'AUTH', 'SHOW'],
        apiKey: 'harness-secret-key',
      });
      const options = suiteVitestOptions(config);
      const vitest = await startVitest('test', [], {
        ...options,
        include: ['test/harness/fixtures/requirement.fixture.ts'],
        config: false,
        // As the CLI does: its own reporter and the suites' Allure reporter (allure-vitest's, which
        // makes each check's Allure data from its meta).
        reporters: [reporter, new RequirementAllureReporter({ resultsDir: allureDir })],
      });
      // allure-vitest's runtime is not in the workers: neither its setup file nor its runner.
      const project = vitest.projects[0];
      expect(project?.config.setupFiles.join(' ')).not.toMatch(/allure-vitest/);
      expect(String(project?.config.runner ?? '')).not.toMatch(/allure-vitest/);
      await vitest.close();
    } finally {
      await server.close();
    }
    const files = await readdir(allureDir);
    const results = await Promise.all(
      files
        .filter((f) => f.endsWith('-result.json'))
        .map(async (f) => JSON.parse(await readFile(path.join(allureDir, f), 'utf8'))),
    );
    const attachments = await Promise.all(
      files.filter((f) => f.includes('-attachment')).map((f) => readFile(path.join(allureDir, f), 'utf8')),
    );
    await rm(allureDir, { recursive: true, force: true });
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
      reproduce: `curl -i -sS -H 'x-api-key: ***' '${server.url}/pets'`,
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
        reproduce: `curl -i -sS -H 'x-api-key: ***' '${server.url}/pets'`,
      },
    ]);
    expect(JSON.stringify(seen.map((t) => t.meta))).not.toContain('harness-secret-key');
    const error = listOk?.errors[0] ?? {};
    expect(error.name).toBe('ConformanceError');
    expect(error.expected).toBe('status 200');
    expect(error.received).toBe('500, JSON object {"error":"boom"}');
    expect(error.reproduce).toBe(`curl -i -sS -H 'x-api-key: ***' '${server.url}/pets'`);
    expect(error.exchanges).toMatchObject([{ method: 'GET', status: 500, responseBody: '{"error":"boom"}' }]);
    expect(error.message).toBe(
      `expected: status 200\nreceived: 500, JSON object {"error":"boom"}\nreproduce: curl -i -sS -H 'x-api-key: ***' '${server.url}/pets'`,
    );
    const allureOf = (id: string) =>
      results.filter((r) =>
        r.labels.some((l: { name: string; value: string }) => l.name === 'requirement' && l.value === id),
      );
    const [allureListOk] = allureOf('LIST-OK');
    expect(allureListOk.status).toBe('failed');
    expect(allureListOk.labels).toEqual(
      expect.arrayContaining([
        { name: 'severity', value: 'critical' },
        { name: 'epic', value: 'listPets' },
        { name: 'level', value: 'MUST' },
      ]),
    );
    expect(allureListOk.description).toContain('`application/json`, a Pets array');
    expect(allureOf('LIST-LIMIT-OVER-MAX')).toHaveLength(2);
    expect(allureOf('LIST-LIMIT-OVER-MAX')[0].links).toEqual([
      { name: 'RFC 9110 §15.5', url: 'https://www.rfc-editor.org/rfc/rfc9110.html#section-15.5' },
    ]);
    expect(attachments.some((a) => a.includes('HTTP 500'))).toBe(true);
    expect(attachments.some((a) => a.includes('x-api-key: ***'))).toBe(true);
    expect(attachments.join('\n')).not.toContain('harness-secret-key');

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

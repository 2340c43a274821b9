// The stages of a run that need no server: judge (the suite broke, or the run judged, with or
// without a baseline) and publish (one writer for a judged run and for one that could not judge).
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { Requirement } from '../../catalog/catalog.ts';
import { cannotJudgeRecord, catalogIdentity, type RunRecord } from '../../cli/record/record.ts';
import type { TestOutcome } from '../../cli/record/rollup.ts';
import { createRedactor } from '../../cli/reports/redact.ts';
import type { Checked } from '../../cli/run/checks.ts';
import { judge } from '../../cli/run/judge.ts';
import { withBaseUrl } from '../../cli/run/options.ts';
import { ReportFolder } from '../../cli/run/publish.ts';
import type { SuiteRun } from '../../cli/run/suites.ts';

const req = (id: string, level: Requirement['level']) =>
  ({ id, level, title: `${id} title`, operation: 'listPets', needs: [] }) as unknown as Requirement;
const requirements = [req('LIST-A', 'MUST'), req('LIST-B', 'MUST'), req('LIST-C', 'SHOULD')];
const catalog = { requirements, get: (id: string) => requirements.find((r) => r.id === id) };
const outcome = (id: string, state: TestOutcome['state'], extra: Partial<TestOutcome> = {}): TestOutcome => ({
  requirementId: id,
  name: `${id} test`,
  file: 'suites/list/x.test.ts',
  state,
  failures: state === 'failed' ? [{ message: 'expected x', expected: 'x', received: 'y' }] : [],
  durationMs: 1,
  ...extra,
});
const checked = (outcomes: TestOutcome[], run: Partial<SuiteRun> = {}): Checked => ({
  outcomes,
  suiteRun: { outcomes, brokenModules: [], unhandledErrors: [], deadlineHit: false, ...run },
});
const config = { only: [], exclude: [], strict: false };

describe('judge', () => {
  test('a suite file that did not load, or a requirement no test reported on: the suite broke', () => {
    const broken = judge(
      catalog,
      checked([outcome('LIST-A', 'passed')], {
        brokenModules: [{ file: 'suites/list/b.test.ts', message: 'SyntaxError' }],
      }),
      config,
    );
    expect(broken).toEqual({
      kind: 'broken',
      reason: 'the suite itself broke: suite file suites/list/b.test.ts failed to load: SyntaxError',
      problems: [
        'suite file suites/list/b.test.ts failed to load: SyntaxError',
        'no test reported on 2 requirement(s): LIST-B, LIST-C',
      ],
    });
  });

  test('an exception of a check itself: the suite failed in that check (exit 2), not the server', () => {
    const buggy = judge(
      catalog,
      checked([
        outcome('LIST-A', 'passed'),
        outcome('LIST-B', 'failed', { suiteError: 'TypeError: x is undefined (suites/list/b.test.ts:3:1)' }),
        outcome('LIST-C', 'passed'),
      ]),
      config,
    );
    expect(buggy).toMatchObject({
      kind: 'broken',
      reason: 'the suite failed in LIST-B test: TypeError: x is undefined (suites/list/b.test.ts:3:1)',
    });
  });

  test('cut at the deadline: judged all the same, with a warning', () => {
    const j = judge(
      catalog,
      checked([outcome('LIST-A', 'failed')], { deadlineHit: true, unhandledErrors: ['Error: boom\n at x'] }),
      config,
    );
    expect(j).toMatchObject({ kind: 'judged', exit: 1 });
    expect(j.kind === 'judged' && j.warnings).toEqual([
      "an error escaped the suite's tests: Error: boom",
      'the run reached its deadline and was cut short; unfinished checks count as failed',
    ]);
  });

  const outcomes = [outcome('LIST-A', 'failed'), outcome('LIST-B', 'passed'), outcome('LIST-C', 'failed')];
  const baselineOf = (failed: string[]) => ({
    given: 'reports/base',
    summary: {
      tool: { name: 'petstore-conformance', version: '1.0.0' },
      catalog: catalogIdentity(requirements),
      target: 'http://x/v1',
      startedAt: '2026-01-01T00:00:00.000Z',
      durationMs: 1,
      seed: 1,
      options: { readOnly: false, strict: false, authRequired: false },
      verdict: 'non-conformant' as const,
      totals: { passed: 0, failed: failed.length, skipped: 0 },
      results: requirements.map((r) => ({
        id: r.id,
        level: r.level,
        title: r.title,
        status: failed.includes(r.id) ? ('failed' as const) : ('passed' as const),
      })),
    },
  });

  test('the exit status follows the verdict; with a baseline, the new gating failures only', () => {
    expect(judge(catalog, checked(outcomes), config)).toMatchObject({ kind: 'judged', exit: 1 });
    const known = judge(catalog, checked(outcomes), config, baselineOf(['LIST-A']));
    expect(known).toMatchObject({
      kind: 'judged',
      exit: 0,
      rollUp: { verdict: 'non-conformant' },
      baseline: { gate: 'passed', newFailures: [], stillFailing: ['LIST-A'], fixed: [] },
    });
    const fresh = judge(catalog, checked(outcomes), config, baselineOf(['LIST-B']));
    expect(fresh).toMatchObject({
      exit: 1,
      baseline: { gate: 'failed', newFailures: ['LIST-A'], stillFailing: [], fixed: ['LIST-B'] },
    });
  });
});

describe('publish: one writer for every run', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'petstore-conformance-publish-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const SECRET = 'k3y-publish-7e1';
  const folder = (name: string) =>
    new ReportFolder(
      path.join(work, name),
      path.join(work, `${name}.previous`),
      createRedactor([SECRET]),
      work,
    );
  const cfg = withBaseUrl(
    {
      apiKeyHeader: 'X-API-Key',
      apiKey: SECRET,
      authRequired: false,
      readOnly: false,
      strict: false,
      only: [],
      exclude: [],
      seed: 1,
      timeoutMs: 1000,
      runId: 'r',
    },
    'http://127.0.0.1:1/v1',
  );

  test('a judged run: summary.json, junit.xml and summary.md, the previous run moved aside, no secret', async () => {
    const reports = folder('judged');
    mkdirSyncWith(path.join(work, 'judged'), 'summary.json', '{"stale":true}');
    const j = judge(
      catalog,
      checked([outcome('LIST-A', 'failed'), outcome('LIST-B', 'passed'), outcome('LIST-C', 'passed')]),
      config,
    );
    if (j.kind !== 'judged') throw new Error('expected a judged run');
    const record: RunRecord = {
      version: '1.0.0',
      target: cfg.baseUrl,
      targetFrom: '--base-url',
      startedAt: new Date('2026-01-01T00:00:00Z'),
      durationMs: 5,
      config: cfg,
      rollUp: {
        ...j.rollUp,
        results: j.rollUp.results.map((r) => ({ ...r, message: `${r.message ?? ''} ${SECRET}` })),
      },
      operations: new Map([['listPets', 'GET /pets']]),
    };
    expect(await reports.publish(record)).toEqual(['summary.json', 'junit.xml', 'summary.md']);
    expect(readJson(path.join(work, 'judged.previous', 'summary.json'))).toEqual({ stale: true });
    for (const file of readdirSync(path.join(work, 'judged'))) {
      expect(readFileSync(path.join(work, 'judged', file), 'utf8')).not.toContain(SECRET);
    }
    expect(readJson(path.join(work, 'judged', 'summary.json')).catalog).toEqual(
      catalogIdentity(requirements),
    );
  });

  test('a run that could not judge: summary.json and summary.md only, saying why', async () => {
    const reports = folder('cannot');
    const record = cannotJudgeRecord({
      version: '1.0.0',
      target: '(bundled reference implementation)',
      targetFrom: 'bundled reference implementation',
      startedAt: new Date(),
      config: cfg,
      reason: 'target unreachable',
      requirements,
    });
    expect(await reports.publish(record)).toEqual(['summary.json', 'summary.md']);
    expect(existsSync(path.join(work, 'cannot', 'junit.xml'))).toBe(false);
    const summary = readJson(path.join(work, 'cannot', 'summary.json'));
    expect(summary).toMatchObject({ verdict: 'non-conformant', error: 'target unreachable' });
    expect(summary.results.map((r: { message: string }) => r.message)).toEqual(
      requirements.map(() => 'could not judge: target unreachable'),
    );
  });
});

function mkdirSyncWith(dir: string, name: string, content: string): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, name), content);
}

function readJson(file: string) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

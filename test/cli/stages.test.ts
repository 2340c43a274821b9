// The stages of a run that need no server: judge (the suite broke, or the run judged, with or
// without a baseline) and publish (one path, every writer, for a judged run and for one that could not judge).
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
import { cannotJudgeRecord, catalogIdentity, exitOf, type RunRecord } from '../../cli/record/record.ts';
import type { TestOutcome } from '../../cli/record/rollup.ts';
import { ReportFolder } from '../../cli/reports/folder.ts';
import type { Outlet } from '../../cli/reports/writer.ts';
import type { Checked } from '../../cli/run/checks.ts';
import { judge } from '../../cli/run/judge.ts';
import { publish } from '../../cli/run/publish.ts';
import type { SuiteRun } from '../../cli/run/suites.ts';
import { testConfig } from '../helpers/config.ts';

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

  test('a rate limit that kept gating checks from an answer: could not judge, suggesting the lowest pace the run came down to', () => {
    const limited = (paceRate?: number) => ({
      rateLimited: {
        message: 'rate-limited: GET /v1/pets still refused after 60000 ms',
        ...(paceRate === undefined ? {} : { paceRate }),
      },
    });
    const made = {
      config: testConfig('http://staging.example/v1', { seed: 42, strict: true }),
      target: 'http://staging.example/v1',
      targetFrom: '--base-url',
    };
    const j = judge(
      catalog,
      checked([
        outcome('LIST-A', 'skipped', limited(7.5)),
        outcome('LIST-B', 'skipped', limited(12)),
        outcome('LIST-B', 'passed'),
        outcome('LIST-C', 'passed'),
      ]),
      config,
      undefined,
      { made },
    );
    // What it judged is kept: LIST-C passed; the verdict is could-not-judge, with the whole command
    // that runs again at the pace the run came down to (not the rerun subcommand, which refuses it).
    expect(j).toMatchObject({
      kind: 'judged',
      rollUp: { verdict: 'could-not-judge', notJudged: ['LIST-A', 'LIST-B'] },
      cannotJudge:
        "the deployment's rate limit kept 2 gating requirements (LIST-A, LIST-B) from being judged; run again at that pace (the pace the run had come down to), or lower: npx petstore-conformance --base-url http://staging.example/v1 --seed 42 --strict --timeout-ms 1000 --rate-limit 7 --api-key-header X-API-Key",
    });
    expect(j.kind === 'judged' && j.rollUp.results.find((r) => r.id === 'LIST-C')?.status).toBe('passed');
    const unknownPace = judge(
      catalog,
      checked([
        outcome('LIST-A', 'skipped', limited()),
        outcome('LIST-B', 'passed'),
        outcome('LIST-C', 'passed'),
      ]),
      config,
    );
    expect(unknownPace).toMatchObject({
      kind: 'judged',
      cannotJudge: expect.stringMatching(/; run again with --rate-limit at a pace the deployment allows$/),
    });
  });

  test('a gating failure beside requirements not judged: non-conformant (exit 1), the failure is certain', () => {
    const j = judge(
      catalog,
      checked([
        outcome('LIST-A', 'skipped', {
          notJudged: { cause: 'store-full', message: 'the deployment takes no more pets' },
        }),
        outcome('LIST-B', 'failed'),
        outcome('LIST-C', 'passed'),
      ]),
      config,
    );
    expect(j).toMatchObject({ kind: 'judged', rollUp: { verdict: 'non-conformant', notJudged: ['LIST-A'] } });
    expect(j.kind === 'judged' && j.cannotJudge).toBeUndefined();
  });

  test('cut at the deadline: judged all the same, with a warning', () => {
    const j = judge(
      catalog,
      checked([outcome('LIST-A', 'failed')], { deadlineHit: true, unhandledErrors: ['Error: boom\n at x'] }),
      config,
    );
    expect(j).toMatchObject({ kind: 'judged', rollUp: { verdict: 'non-conformant' } });
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

  /** The exit status of the record a judgement makes. */
  const exit = (j: ReturnType<typeof judge>) => {
    if (j.kind !== 'judged') throw new Error('expected a judged run');
    return exitOf({ rollUp: j.rollUp, ...(j.baseline ? { baseline: j.baseline } : {}) });
  };

  test('the exit status follows the verdict; with a baseline, the new gating failures only', () => {
    expect(exit(judge(catalog, checked(outcomes), config))).toBe(1);
    const known = judge(catalog, checked(outcomes), config, baselineOf(['LIST-A']));
    expect(known).toMatchObject({
      kind: 'judged',
      rollUp: { verdict: 'non-conformant' },
      baseline: { gate: 'passed', newFailures: [], stillFailing: ['LIST-A'], fixed: [] },
    });
    expect(exit(known)).toBe(0);
    const fresh = judge(catalog, checked(outcomes), config, baselineOf(['LIST-B']));
    expect(fresh).toMatchObject({
      baseline: { gate: 'failed', newFailures: ['LIST-A'], stillFailing: [], fixed: ['LIST-B'] },
    });
    expect(exit(fresh)).toBe(1);
  });
});

describe('publish: one path, every writer, for every run', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'petstore-conformance-publish-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const SECRET = 'k3y-publish-7e1';
  const folder = (name: string) =>
    new ReportFolder(path.join(work, name), path.join(work, `${name}.previous`), work);
  const cfg = testConfig('http://127.0.0.1:1/v1', { apiKey: SECRET, seed: 1, runId: 'r' });
  /** An outlet whose console keeps its lines, uncoloured. */
  const outletOf = (reports: ReportFolder | undefined, annotations = false) => {
    const printed = { out: [] as string[], err: [] as string[] };
    const plain = (s: string) => s;
    const outlet: Outlet = {
      ...(reports ? { folder: reports } : {}),
      console: {
        p: { green: plain, red: plain, yellow: plain, dim: plain, bold: plain },
        width: 100,
        out: (line = '') => printed.out.push(line),
        err: (line) => printed.err.push(line),
        warn: (line) => printed.err.push(`warning: ${line}`),
      },
      html: false,
      annotations,
    };
    return { outlet, printed };
  };
  const cannotJudge = (reason: string) =>
    cannotJudgeRecord({
      version: '1.0.0',
      target: '(bundled reference implementation)',
      targetFrom: 'bundled reference implementation',
      startedAt: new Date(),
      config: cfg,
      reason,
      requirements,
    });

  test('a judged run: summary.json, junit.xml and summary.md, the previous run moved aside, not the key', async () => {
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
      rollUp: j.rollUp,
      operations: new Map([['listPets', 'GET /pets']]),
    };
    const { outlet, printed } = outletOf(reports);
    expect(await publish(record, outlet)).toBe(1);
    expect(reports.written).toEqual(['summary.json', 'junit.xml', 'summary.md', 'ctrf-report.json']);
    expect(printed.out.at(-1)).toBe(
      `reports: ${reports.shown} (summary.json, junit.xml, summary.md, ctrf-report.json)`,
    );
    expect(readJson(path.join(work, 'judged.previous', 'summary.json'))).toEqual({ stale: true });
    for (const file of readdirSync(path.join(work, 'judged'))) {
      expect(readFileSync(path.join(work, 'judged', file), 'utf8')).not.toContain(SECRET);
    }
    expect(readJson(path.join(work, 'judged', 'summary.json')).catalog).toEqual(
      catalogIdentity(requirements),
    );
  });

  test('the writers rewrite nothing: with the key LIST, every LIST- id is whole in every file and line', async () => {
    const reports = folder('key-is-a-word');
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
      config: { ...cfg, apiKey: 'LIST' },
      rollUp: j.rollUp,
      operations: new Map([['listPets', 'GET /pets']]),
    };
    const { outlet, printed } = outletOf(reports);
    expect(await publish(record, outlet)).toBe(1);
    const files = readdirSync(path.join(work, 'key-is-a-word'));
    expect(files).toContain('junit.xml');
    for (const file of files) {
      const text = readFileSync(path.join(work, 'key-is-a-word', file), 'utf8');
      for (const id of ['LIST-A', 'LIST-B', 'LIST-C']) expect(text, `${file}: ${id}`).toContain(id);
      expect(text, file).not.toContain('***');
    }
    expect(printed.out.join('\n')).toMatch(/LIST-A[\s\S]*LIST-B[\s\S]*LIST-C/);
    expect(printed.out.join('\n')).not.toContain('***');
  });

  test('a run that could not judge: summary.json and summary.md only, saying why', async () => {
    const reports = folder('cannot');
    const { outlet, printed } = outletOf(reports, true);
    expect(await publish(cannotJudge('target unreachable'), outlet)).toBe(2);
    expect(reports.written).toEqual(['summary.json', 'summary.md']);
    expect(printed.err).toEqual(['petstore-conformance: could not judge: target unreachable']);
    expect(printed.out).toEqual(['::error title=petstore-conformance::could not judge: target unreachable']);
    expect(existsSync(path.join(work, 'cannot', 'junit.xml'))).toBe(false);
    const summary = readJson(path.join(work, 'cannot', 'summary.json'));
    expect(summary).toMatchObject({ verdict: 'could-not-judge', error: 'target unreachable' });
    expect(summary.results.map((r: { message: string }) => r.message)).toEqual(
      requirements.map(() => 'could not judge: target unreachable'),
    );
  });

  test('a report folder the run may not use: nothing written, the console says why', async () => {
    const { outlet, printed } = outletOf(undefined);
    expect(await publish(cannotJudge('--report-dir: /x holds files this tool did not write'), outlet)).toBe(
      2,
    );
    expect(printed.err).toEqual([
      'petstore-conformance: could not judge: --report-dir: /x holds files this tool did not write',
    ]);
  });

  test('a judged run whose reports cannot be written could not judge after all (exit 2)', async () => {
    writeFileSync(path.join(work, 'a-file'), '');
    const reports = new ReportFolder(
      path.join(work, 'a-file', 'reports'),
      path.join(work, 'a-file', 'reports.previous'),
      work,
    );
    const { outlet, printed } = outletOf(reports, true);
    const j = judge(catalog, checked(requirements.map((r) => outcome(r.id, 'passed'))), config);
    if (j.kind !== 'judged') throw new Error('expected a judged run');
    const record: RunRecord = {
      version: '1.0.0',
      target: cfg.baseUrl,
      targetFrom: '--base-url',
      startedAt: new Date(),
      durationMs: 5,
      config: cfg,
      rollUp: j.rollUp,
      operations: new Map(),
    };
    expect(await publish(record, outlet)).toBe(2);
    expect(printed.err[0]).toMatch(/^warning: could not write the could-not-judge report: Error: ENOTDIR/);
    expect(printed.err[1]).toMatch(/^petstore-conformance: could not judge: internal error: Error: ENOTDIR/);
    // A bug of this tool, not the deployment's: no annotation says the deployment could not be judged.
    expect(printed.out).toEqual([]);
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

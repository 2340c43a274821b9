// rerun: the failures of a run checked again. Which requirements (the failed, the blocked and what
// blocked them), with which options, and, with the real command against a faulty server: still
// failing against the same server (exit 1), fixed against a correct one (exit 0).
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadCatalog } from '../../catalog/catalog.ts';
import { planRerun } from '../../cli/across/rerun.ts';
import type { Summary } from '../../cli/across/summary-file.ts';
import { catalogIdentity } from '../../cli/record/record.ts';
import { checkedText, type EarlierResult, rerunOutcome, rerunSelection } from '../../cli/record/rerun.ts';
import type { RunningServer } from '../../reference-impl/index.ts';
import { build, type CliResult, type Json, readJson, runInProcess } from '../helpers/cli.ts';
import { createVariants } from '../variants/faulty/create.ts';
import { reference } from '../variants/servers/reference.ts';

const r = (id: string, status: EarlierResult['status'], blockedBy?: string[]): EarlierResult => ({
  id,
  level: 'MUST',
  status,
  ...(blockedBy ? { blockedBy } : {}),
});

describe('which requirements a rerun checks', () => {
  test('the failed and the blocked ones, and what blocked them, following chains, in catalog order', () => {
    const results = [
      r('A', 'skipped'), // not selected then, but it blocked C through B
      r('B', 'skipped', ['A']),
      r('C', 'skipped', ['B']),
      r('D', 'failed'),
      r('E', 'passed'),
      r('F', 'skipped'),
    ];
    expect(rerunSelection(results)).toEqual({ bad: ['B', 'C', 'D'], preconditions: ['A'] });
  });

  test('a run with nothing failed or blocked has nothing to rerun', () => {
    expect(rerunSelection([r('A', 'passed'), r('B', 'skipped')])).toEqual({ bad: [], preconditions: [] });
  });

  test('each earlier failure now: fixed, still failing, blocked or not checked; only gating ones fail it', () => {
    const source = {
      file: 'reports/latest',
      startedAt: '2026-01-01T00:00:00.000Z',
      target: 'http://x/v1',
      results: [r('A', 'failed'), r('B', 'skipped', ['A']), r('C', 'failed'), r('D', 'failed')],
    };
    const outcome = rerunOutcome(
      source,
      [
        r('A', 'passed'),
        { ...r('B', 'skipped', ['C']) },
        r('C', 'failed'),
        { ...r('D', 'skipped'), message: '--read-only: needs writes' },
      ],
      false,
    );
    expect(outcome.items.map((i) => [i.id, i.before, i.now, i.gating])).toEqual([
      ['A', 'failed', 'fixed', false],
      ['B', 'blocked', 'blocked', true],
      ['C', 'failed', 'still failing', true],
      ['D', 'failed', 'not checked', false],
    ]);
    expect(outcome.items[3]?.note).toBe('--read-only: needs writes');
    expect(checkedText(outcome)).toBe(
      '3 requirements checked: 1 fixed, 1 still failing, 1 blocked; 1 not checked: --read-only: needs writes',
    );
  });

  test('what a rerun says it checked: the earlier failures, not the requirements it left alone', () => {
    const source = (...results: EarlierResult[]) => ({
      file: 'reports/latest',
      startedAt: '2026-01-01T00:00:00.000Z',
      target: 'http://x/v1',
      results: [...results, r('Z', 'passed')],
    });
    const said = (before: EarlierResult[], now: (EarlierResult & { message?: string })[]) =>
      checkedText(rerunOutcome(source(...before), [...now, r('Z', 'skipped')], false));
    expect(said([r('A', 'failed')], [r('A', 'passed')])).toBe('1 requirement checked: fixed');
    expect(said([r('A', 'failed')], [r('A', 'failed')])).toBe('1 requirement checked: still failing');
    expect(said([r('A', 'failed'), r('B', 'failed')], [r('A', 'passed'), r('B', 'failed')])).toBe(
      '2 requirements checked: 1 fixed, 1 still failing',
    );
    expect(said([r('A', 'failed'), r('B', 'failed')], [r('A', 'passed'), r('B', 'passed')])).toBe(
      '2 requirements checked: 2 fixed',
    );
    expect(said([r('A', 'failed')], [{ ...r('A', 'skipped'), message: 'needs --api-key' }])).toBe(
      'no requirement checked; 1 not checked: needs --api-key',
    );
  });
});

describe('what a rerun runs', () => {
  const catalog = loadCatalog();
  const summary = (fields: Partial<Summary> = {}): Summary => ({
    tool: { name: 'petstore-conformance', version: '1.0.0' },
    catalog: catalogIdentity(catalog.requirements),
    target: 'https://staging.example.com/v1',
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 1,
    seed: 4242,
    options: {
      readOnly: true,
      strict: true,
      authRequired: false,
      retries: 2,
      timeoutMs: 3000,
      apiKeyQuery: 'key',
      caCert: true,
      targetFrom: '--target staging',
    },
    verdict: 'non-conformant',
    totals: { passed: 0, failed: 1, skipped: 0 },
    results: catalog.requirements.map((q) => ({
      id: q.id,
      level: q.level,
      title: q.title,
      status: q.id === 'SHOW-OK' ? 'failed' : q.id === 'ANY-PET-SCHEMA' ? 'skipped' : 'passed',
      ...(q.id === 'ANY-PET-SCHEMA' ? { blockedBy: ['LIST-OK'] } : {}),
    })),
    ...fields,
  });

  test('the seed, the options and the target of the earlier run, and exactly its failures', () => {
    const plan = planRerun('reports/latest', summary(), []);
    expect(plan.bad).toEqual(['ANY-PET-SCHEMA', 'SHOW-OK']);
    expect(plan.preconditions).toEqual(['LIST-OK']);
    expect(plan.argv).toEqual([
      '--seed',
      '4242',
      '--read-only',
      '--strict',
      '--timeout-ms',
      '3000',
      '--retries',
      '2',
      '--api-key-query',
      'key',
      '--only',
      'ANY-PET-SCHEMA,LIST-OK,SHOW-OK',
      '--base-url',
      'https://staging.example.com/v1',
      '--report-dir',
      'reports/rerun',
    ]);
    expect(plan.warnings).toEqual([
      'the earlier run used --ca-cert; summary.json records that, not the value: give it again',
    ]);
  });

  test('a target, a key carrier or a report folder given to rerun wins; the bundled reference starts again', () => {
    const given = planRerun('s.json', summary(), [
      '--base-url',
      'http://127.0.0.1:1/v1',
      '--api-key-header',
      'K',
      '--report-dir',
      'x',
    ]);
    expect(given.argv).not.toContain('--base-url');
    expect(given.argv).not.toContain('--api-key-query');
    expect(given.argv).not.toContain('--report-dir');
    const again = planRerun(
      's.json',
      summary({
        options: {
          readOnly: false,
          strict: false,
          authRequired: false,
          targetFrom: 'bundled reference implementation, started for this run',
        },
      }),
      [],
    );
    expect(again.argv).not.toContain('--base-url');
  });

  test('a run that could not judge, or one of another catalog, cannot be rerun', () => {
    expect(() => planRerun('s.json', summary({ error: 'the target is unreachable' }), [])).toThrow(
      /that run could not judge \(the target is unreachable\)/,
    );
    expect(() =>
      planRerun('s.json', summary({ catalog: { hash: 'sha256:0000000000000000', requirements: 1 } }), []),
    ).toThrow(/judged against another catalog/);
  });
});

describe('rerun, with the real command', () => {
  let work = '';
  const runs: Record<string, CliResult> = {};
  const variant = createVariants.find((v) => v.name === 'create-answers-200')!;

  beforeAll(async () => {
    await build();
    work = await mkdtemp(path.join(tmpdir(), 'petstore-conformance-rerun-'));
    const faulty: RunningServer = await reference(variant.server as { wrap: never });
    const correct: RunningServer = await reference();
    try {
      const at = { cwd: work, timeoutMs: 120_000 };
      runs.faulty = await runInProcess(['--base-url', faulty.url, '--report-dir', 'reports/latest'], at);
      runs.same = await runInProcess(['rerun', 'reports/latest'], at);
      runs.fixed = await runInProcess(
        ['rerun', 'reports/latest', '--base-url', correct.url, '--report-dir', 'reports/fixed'],
        at,
      );
    } finally {
      await faulty.close();
      await correct.close();
    }
    writeFileSync(
      path.join(work, 'could-not-judge.json'),
      JSON.stringify({ ...readJson(path.join(work, 'reports', 'latest', 'summary.json')), error: 'stopped' }),
    );
    runs.unjudged = await runInProcess(['rerun', 'could-not-judge.json'], { cwd: work });
    runs.nothing = await runInProcess(['rerun', 'reports/fixed'], { cwd: work });
    runs.only = await runInProcess(['rerun', 'reports/latest', '--only', 'LIST'], { cwd: work });
  }, 300_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  const out = (c: CliResult) => `exit ${c.code}\n${c.stdout}\n${c.stderr}`;

  test('against the same faulty server: still failing, exit 1', () => {
    expect(runs.faulty?.code, out(runs.faulty!)).toBe(1);
    const c = runs.same!;
    expect(c.code, out(c)).toBe(1);
    expect(c.stdout).toContain('rerun of reports/latest');
    expect(c.stdout).toContain('checking 2 of');
    expect(c.stdout).toMatch(/✗ CREATE-OK +MUST +was failed +now still failing/);
    expect(c.stdout).toMatch(
      /◌ CREATE-VALID-GENERATED +MUST +was blocked +now blocked \(blocked by CREATE-OK\)/,
    );
    // It ends with what it checked, and gives no verdict on the requirements it did not check.
    expect(c.stdout.trimEnd().split('\n').at(-1)).toBe('2 requirements checked: 1 still failing, 1 blocked');
    expect(c.stdout).not.toMatch(/CONFORMANT|skipped of \d+ requirements/);
    expect(c.stdout).toMatch(/\d+ more requirements not checked again: reports\/latest did not fail them/);
    const summary = readJson(path.join(work, 'reports', 'rerun', 'summary.json'));
    expect(summary.rerun).toMatchObject({
      of: 'reports/latest',
      fixed: [],
      stillFailing: ['CREATE-OK'],
      blocked: ['CREATE-VALID-GENERATED'],
    });
    const earlier = readJson(path.join(work, 'reports', 'latest', 'summary.json'));
    expect(summary.seed).toBe(earlier.seed);
    expect(summary.target).toBe(earlier.target);
  });

  test('against a correct server: fixed, exit 0', () => {
    const c = runs.fixed!;
    expect(c.code, out(c)).toBe(0);
    expect(c.stdout.trimEnd().split('\n').at(-1)).toBe('2 requirements checked: 2 fixed');
    expect(c.stdout).not.toMatch(/CONFORMANT|skipped of \d+ requirements/);
    const summary = readJson(path.join(work, 'reports', 'fixed', 'summary.json'));
    expect(summary.rerun.fixed).toEqual(['CREATE-OK', 'CREATE-VALID-GENERATED']);
    expect(summary.results.filter((x: Json) => x.status !== 'skipped').map((x: Json) => x.id)).toEqual([
      'CREATE-OK',
      'CREATE-VALID-GENERATED',
    ]);
  });

  test('a run that could not judge: exit 2, saying why; nothing failed: exit 0, nothing to rerun', () => {
    expect(runs.unjudged?.code, out(runs.unjudged!)).toBe(2);
    expect(runs.unjudged?.stderr).toContain('that run could not judge (stopped)');
    expect(runs.nothing?.code, out(runs.nothing!)).toBe(0);
    expect(runs.nothing?.stdout).toContain('nothing to rerun');
  });

  test('--only cannot be given: the rerun chooses', () => {
    expect(runs.only?.code).toBe(2);
    expect(runs.only?.stderr).toContain('--only cannot be given');
  });
});

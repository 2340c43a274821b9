// The HTML report's parts that need no browser: what the CLI adds to allure-vitest's results once
// the run is judged (the first screen, the overview, the verdicts no check's result shows), the
// Allure configuration, the page's Content-Security-Policy and the history carried over on
// rotation. test/cli/report-browser.test.ts checks the page itself; test/harness/report.test.ts
// what each check's result holds.
import {
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Globals, TestResult } from 'allure-js-commons';
import { stringifyEnvInfo } from 'allure-js-commons/sdk/reporter';
import { afterAll, describe, expect, test } from 'vitest';
import { loadCatalog } from '../../catalog/catalog.ts';
import type { CheckOutcome, RunRecord } from '../../cli/record/record.ts';
import { type RequirementResult, rollUp } from '../../cli/record/rollup.ts';
import {
  changes,
  changesLine,
  environmentInfo,
  previousStatuses,
  reportName,
  requirementMessage,
} from '../../cli/reports/allure-overview.ts';
import { allureResults, verdictsBeyondChecks } from '../../cli/reports/allure-results.ts';
import { HISTORY_FILE, ReportFolder, rotateReportDir } from '../../cli/reports/folder.ts';
import {
  allureConfig,
  finishReport,
  HEAD,
  HISTORY_LIMIT,
  PAGE_POLICY,
  withPagePolicy,
} from '../../cli/reports/html.ts';
import type { Outlet } from '../../cli/reports/writer.ts';
import { testConfig } from '../helpers/config.ts';

const catalog = loadCatalog();
const work = mkdtempSync(path.join(tmpdir(), 'petstore-conformance-html-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const config = testConfig('https://staging.pets.example.com/v1', {
  seed: 1616944622,
  timeoutMs: 10_000,
  runId: 'test',
});

/** A check's outcome as the CLI's reporter records it; it starts at 1000 ms (since the epoch). */
const outcome = (
  id: string,
  state: CheckOutcome['state'],
  extra: Partial<CheckOutcome> = {},
): CheckOutcome => ({
  requirementId: id,
  name: `${id} ${catalog.get(id)?.title}${extra.name ?? ''}`,
  file: 'suites/x.test.ts',
  state,
  failures: [],
  durationMs: 5,
  startedAt: 1_000,
  ...extra,
});

// Every requirement passes but these: a MUST that fails one of its two checks, a SHOULD that fails
// (not gating without --strict), one skipped for --read-only, one blocked by CREATE-OK, and
// ANY-NO-5XX, whose own check passed, failed by a 500 another check received.
const outcomes: CheckOutcome[] = [
  ...catalog.requirements
    .filter(
      (r) =>
        !['LIST-LIMIT-OVER-MAX', 'SHOW-UNKNOWN-404', 'AUTH-KEY-ACCEPTED', 'CREATE-PERSISTED'].includes(r.id),
    )
    .map((r) => outcome(r.id, 'passed')),
  outcome('LIST-LIMIT-OVER-MAX', 'failed', {
    name: ' [limit=101]',
    failures: [
      {
        message: 'expected: status 400–499\nreceived: 200',
        expected: 'status 400–499',
        received: '200, JSON array of 100 items',
        reproduce: "curl -sS 'https://staging.pets.example.com/v1/pets?limit=101'",
      },
    ],
    serverErrors: [
      {
        method: 'GET',
        url: 'https://staging.pets.example.com/v1/pets?limit=2',
        status: 500,
        reproduce: "curl -sS 'https://staging.pets.example.com/v1/pets?limit=2'",
      },
    ],
  }),
  outcome('LIST-LIMIT-OVER-MAX', 'passed', { name: ' [limit=2^31]' }),
  outcome('SHOW-UNKNOWN-404', 'failed', {
    failures: [{ message: 'x', expected: 'status 404', received: '410' }],
  }),
  outcome('AUTH-KEY-ACCEPTED', 'skipped', { note: 'needs --api-key' }),
  outcome('CREATE-PERSISTED', 'skipped', { note: 'blocked by CREATE-OK: POST /pets answered 500' }),
];

function record(overrides: Partial<RunRecord> = {}): RunRecord {
  const summary = rollUp(catalog, outcomes, overrides.config ?? config);
  // The lead's roll-up sets blockedBy; until then the test sets it on the result it expects blocked.
  const results = summary.results.map(
    (r): RequirementResult => (r.id === 'CREATE-PERSISTED' ? { ...r, blockedBy: ['CREATE-OK'] } : r),
  );
  return {
    version: '1.0.0',
    target: config.baseUrl,
    targetFrom: '--base-url',
    startedAt: new Date('2026-01-01T00:00:00.000Z'),
    durationMs: 5321,
    config,
    rollUp: { ...summary, results },
    operations: new Map([
      ['listPets', 'GET /pets'],
      ['createPets', 'POST /pets'],
      ['showPetById', 'GET /pets/{petId}'],
      ['listStoreOrders', 'GET /store/orders'],
    ]),
    checks: { outcomes, catalog },
    ...overrides,
  };
}

/** What the writer adds to allure-results/ of a run into a folder of its own, read back. */
function written(name: string, run: RunRecord, history?: string) {
  const dir = path.join(work, name);
  mkdirSync(dir, { recursive: true });
  if (history !== undefined) writeFileSync(path.join(dir, HISTORY_FILE), history);
  const folder = new ReportFolder(dir, `${dir}.previous`, work);
  const plain = (text: string) => text;
  const outlet: Outlet = {
    folder,
    console: {
      p: { green: plain, red: plain, yellow: plain, dim: plain, bold: plain },
      width: 100,
      out: () => undefined,
      err: () => undefined,
      warn: () => undefined,
    },
    html: false,
    annotations: false,
  };
  allureResults.write(run, outlet);
  const results = path.join(dir, 'allure-results');
  const files = readdirSync(results);
  const text = (file: string) => readFileSync(path.join(results, file), 'utf8');
  const json = <T>(suffix: string) =>
    files.filter((f) => f.endsWith(suffix)).map((f) => JSON.parse(text(f)) as T);
  return {
    folder,
    results: json<TestResult>('-result.json'),
    globals: json<Globals>('-globals.json'),
    environment: text('environment.properties'),
    attachment: (source: string) => text(source),
  };
}

describe('what the CLI adds to the Allure results once the run is judged', () => {
  const run = record();
  const files = written('judged', run);
  const label = (r: TestResult, name: string) => r.labels.filter((l) => l.name === name).map((l) => l.value);

  test('a result for each requirement the roll-up failed while none of its own checks did, and no other', () => {
    expect(verdictsBeyondChecks(run).map((r) => r.id)).toEqual(['ANY-NO-5XX']);
    expect(files.results).toHaveLength(1);
    const [verdict] = files.results;
    expect(verdict?.name).toBe(`ANY-NO-5XX (MUST) ${catalog.get('ANY-NO-5XX')?.title}: the run's verdict`);
    expect(verdict?.status).toBe('failed');
    expect(verdict?.statusDetails?.message).toBe(
      requirementMessage(run.rollUp.results.find((r) => r.id === 'ANY-NO-5XX')!),
    );
    expect(verdict?.statusDetails?.message).toMatch(/gating: this MUST failure makes the run non-conformant/);
    expect(verdict?.statusDetails?.message).toContain(
      "curl -sS 'https://staging.pets.example.com/v1/pets?limit=2'",
    );
    // Where its checks are in the tree, and sorted as they are.
    expect(label(verdict!, 'operation')).toEqual(['any operation']);
    expect(label(verdict!, 'requirement')).toEqual(['ANY-NO-5XX']);
    expect(label(verdict!, 'story')).toEqual([`ANY-NO-5XX (MUST) ${catalog.get('ANY-NO-5XX')?.title}`]);
    expect(label(verdict!, 'gating')).toEqual(['yes']);
    // The same history id in every run, so that Allure's history follows it.
    expect(written('judged-again', run).results[0]?.historyId).toBe(verdict?.historyId);
    expect(files.folder.written).toEqual(['allure-results/']);
  });

  test('a requirement excused by --expected, or passed only after retries: a verdict marked known, or flaky', () => {
    const flakyPass = run.rollUp.results.find((r) => r.id === 'LIST-OK')!;
    const excused = {
      id: 'LIST-LIMIT-OVER-MAX',
      reason: 'the gateway accepts any limit',
      link: 'https://tracker.example/PETS-12',
      gating: true,
    };
    const marked = record({
      rollUp: {
        ...run.rollUp,
        results: run.rollUp.results.map((r) => (r === flakyPass ? { ...r, flaky: true, retries: 1 } : r)),
      },
      expected: { file: 'expected.yaml', excused: [excused], stale: [], unexcused: [], gate: 'passed' },
    });
    expect(verdictsBeyondChecks(marked).map((r) => r.id)).toEqual([
      'ANY-NO-5XX',
      'LIST-OK',
      'LIST-LIMIT-OVER-MAX',
    ]);
    const { results } = written('marked', marked);
    const verdictOf = (id: string) => results.find((r) => label(r, 'requirement')[0] === id)!;
    const flaky = verdictOf('LIST-OK');
    expect(flaky.status).toBe('passed');
    expect(flaky.statusDetails).toMatchObject({ flaky: true });
    expect(flaky.statusDetails?.message).toMatch(/^flaky: passed only after 1 retry/);
    const known = verdictOf('LIST-LIMIT-OVER-MAX');
    expect(known.status).toBe('failed');
    expect(known.statusDetails).toMatchObject({ known: true });
    expect(known.statusDetails?.message).toMatch(
      /^expected to fail: the gateway accepts any limit \(https:\/\/tracker\.example\/PETS-12\)\n1 of 2 checks failed/,
    );
    expect(known.links).toEqual([
      { name: 'expected deviation', url: 'https://tracker.example/PETS-12', type: 'issue' },
    ]);
  });

  test('a failed requirement says whether it gates, what was expected and received, and how to reproduce it', () => {
    const of = (id: string) => requirementMessage(run.rollUp.results.find((r) => r.id === id)!);
    expect(of('LIST-LIMIT-OVER-MAX')).toBe(
      [
        '1 of 2 checks failed · gating: this MUST failure makes the run non-conformant',
        'expected:  status 400–499',
        'received:  200, JSON array of 100 items',
        "reproduce: curl -sS 'https://staging.pets.example.com/v1/pets?limit=101'",
      ].join('\n'),
    );
    expect(of('SHOW-UNKNOWN-404')).toMatch(
      /^failed · not gating: a SHOULD failure decides the verdict only with --strict\n/,
    );
    expect(of('CREATE-PERSISTED')).toBe('blocked by CREATE-OK: POST /pets answered 500');
    expect(of('AUTH-KEY-ACCEPTED')).toBe('needs --api-key');
    // Blocked when the roll-up says so (blockedBy), never by what its message reads.
    const skipped = run.rollUp.results.find((r) => r.id === 'AUTH-KEY-ACCEPTED')!;
    const { message: _, ...withoutMessage } = skipped;
    expect(requirementMessage({ ...withoutMessage, blockedBy: ['CREATE-OK'] })).toBe('blocked by CREATE-OK');
  });

  test('the first screen: verdict, counts per requirement (blocked apart from skipped), seed and gating level', () => {
    expect(reportName(run)).toBe('NON-CONFORMANT · 2 MUST failed · staging.pets.example.com/v1');
    const entries = Object.entries(environmentInfo(run));
    expect(entries.slice(0, 8)).toEqual([
      ['verdict', 'NON-CONFORMANT · 2 MUST failed'],
      ['vs last report', 'no earlier report in this folder'],
      ['failed', `3 of ${catalog.requirements.length} requirements (2 gating)`],
      ['passed', String(catalog.requirements.length - 5)],
      ['blocked', '1'],
      ['skipped', '1'],
      ['seed', '1616944622'],
      ['gating level', 'MUST (SHOULD gates only with --strict)'],
    ]);
    // As allure-js-commons writes it into environment.properties.
    expect(files.environment).toBe(stringifyEnvInfo(environmentInfo(run)));
    expect(files.environment.split('\n').slice(0, 2)).toEqual([
      'verdict=NON-CONFORMANT · 2 MUST failed',
      'vs\\ last\\ report=no earlier report in this folder',
    ]);
    const strict = record({ config: { ...config, strict: true } });
    expect(reportName(strict)).toBe(
      'NON-CONFORMANT · 2 MUST and 1 SHOULD failed · staging.pets.example.com/v1',
    );
  });

  test('the overview: the verdict with its failures, and what the document leaves unspecified', () => {
    const text = (name: string) => {
      const attachment = files.globals.flatMap((g) => g.attachments).find((a) => a.name.startsWith(name))!;
      return files.attachment(attachment.source);
    };
    const overview = text('Verdict and failures');
    expect(overview).toMatch(/^NON-CONFORMANT · 2 MUST failed/);
    expect(overview).toContain(
      '✗ LIST-LIMIT-OVER-MAX (MUST) a limit above 100 is rejected with a 4xx status',
    );
    expect(overview).toContain("reproduce: curl -sS 'https://staging.pets.example.com/v1/pets?limit=101'");
    expect(overview).toContain('! SHOW-UNKNOWN-404 (SHOULD, not gating)');
    expect(overview).toContain('Blocked (1)');
    const silent = text('Where the service document is silent');
    for (const u of catalog.unspecified) {
      expect(silent).toContain(`${u.topic} (spec/service.md, "${u.section}")`);
      expect(silent.replace(/\s+/g, ' ')).toContain(u.tolerated.replace(/\s+/g, ' ').trim());
    }
  });

  test('a run that could not judge before any check adds nothing, and lists what vitest wrote', () => {
    // Without checks: a run that judged some before it stopped adds their verdicts (record.ts judgedAny).
    const { checks: _, ...cannot } = record({ error: 'stopped by SIGTERM before the run could judge' });
    const dir = path.join(work, 'cannot');
    mkdirSync(path.join(dir, 'allure-results'), { recursive: true });
    writeFileSync(path.join(dir, 'allure-results', 'a-result.json'), '{}');
    const folder = new ReportFolder(dir, `${dir}.previous`, work);
    allureResults.write(cannot, { folder } as Outlet);
    expect(readdirSync(path.join(dir, 'allure-results'))).toEqual(['a-result.json']);
    expect(folder.written).toEqual(['allure-results/']);
    const none = new ReportFolder(path.join(work, 'none'), path.join(work, 'none.previous'), work);
    allureResults.write(cannot, { folder: none } as Outlet);
    expect(none.written).toEqual([]);
  });

  test('what changed since the last report comes from the last line of Allure history, a requirement failed when any of its results failed', () => {
    const file = path.join(work, 'history.jsonl');
    const point = (results: [string, string][]) =>
      JSON.stringify({
        uuid: 'x',
        testResults: Object.fromEntries(
          results.map(([id, status], i) => [
            `h${i}`,
            { status, labels: [{ name: 'requirement', value: id }] },
          ]),
        ),
      });
    writeFileSync(
      file,
      `${point([['LIST-OK', 'failed']])}\n${point([
        ['LIST-OK', 'passed'],
        ['LIST-OK', 'failed'],
        ['LIST-OK', 'passed'],
        ['SHOW-UNKNOWN-404', 'skipped'],
        ['SHOW-UNKNOWN-404', 'passed'],
      ])}\n`,
    );
    const previous = previousStatuses(file);
    expect(previous).toEqual(
      new Map([
        ['LIST-OK', 'failed'],
        ['SHOW-UNKNOWN-404', 'passed'],
      ]),
    );
    const diff = changes(run, previous);
    expect(diff).toEqual({
      newlyFailed: ['ANY-NO-5XX', 'LIST-LIMIT-OVER-MAX', 'SHOW-UNKNOWN-404'],
      fixed: ['LIST-OK'],
    });
    expect(changesLine(diff)).toBe('3 newly failed, 1 fixed');
    expect(previousStatuses(path.join(work, 'none.jsonl'))).toBeUndefined();
    expect(environmentInfo(run, previous)['vs last report']).toBe('3 newly failed, 1 fixed');
    expect(written('with-history', run, readFileSync(file, 'utf8')).environment).toContain(
      'vs\\ last\\ report=3 newly failed, 1 fixed',
    );
  });
});

describe('the Allure configuration and the page', () => {
  test('the report is named by its verdict, grouped by operation, keeps a bounded history beside it', () => {
    const reportDir = path.join(work, 'reports', 'latest');
    const c = allureConfig(reportDir, record()) as Json;
    expect(c.name).toBe('NON-CONFORMANT · 2 MUST failed · staging.pets.example.com/v1');
    expect(c.historyPath).toBe(path.join(reportDir, HISTORY_FILE));
    expect(c.historyLimit).toBe(HISTORY_LIMIT);
    // Requirement first: the operation, then the requirement (each check's story label), its checks.
    expect(c.plugins.awesome.options).toMatchObject({
      singleFile: true,
      groupBy: ['operation', 'story'],
      defaultSortBy: 'status,asc',
      reportName: c.name,
    });
    expect(c.plugins.agent).toEqual({ enabled: false });
    expect(c.categories.rules.map((r: Json) => r.id)).toEqual([
      'gating',
      'not-gating',
      'blocked',
      'not-checked',
    ]);
  });

  test('an expected failure (--expected) is its own category, ahead of the gating ones', () => {
    const excused = {
      id: 'LIST-LIMIT-OVER-MAX',
      reason: 'the gateway accepts any limit',
      link: 'https://tracker.example/PETS-12',
      gating: true,
    };
    const run = record({
      expected: { file: 'expected.yaml', excused: [excused], stale: [], unexcused: [], gate: 'passed' },
    });
    const rules = (allureConfig(path.join(work, 'x'), run) as Json).categories.rules;
    expect(rules.map((r: Json) => r.id)).toEqual([
      'expected-list-limit-over-max',
      'gating',
      'not-gating',
      'blocked',
      'not-checked',
    ]);
    expect(rules[0]).toMatchObject({
      name: 'Expected to fail (--expected): LIST-LIMIT-OVER-MAX, the gateway accepts any limit (https://tracker.example/PETS-12)',
      matchers: { statuses: ['failed', 'skipped'], labels: { requirement: '^LIST-LIMIT-OVER-MAX$' } },
    });
  });

  test('the page opens with a Content-Security-Policy that lets it load nothing from another origin', () => {
    // The template of the installed plugin: its <head>, as written, is where the policy goes.
    const require = createRequire(import.meta.url);
    const generators = readFileSync(
      path.join(path.dirname(require.resolve('@allurereport/plugin-awesome')), 'generators.js'),
      'utf8',
    );
    expect(generators).toContain(`<html dir="ltr" lang="en">\n${HEAD}\n    <meta charset="utf-8">`);
    const page = `<!DOCTYPE html>\n<html>\n${HEAD}\n    <meta charset="utf-8">\n<script async src="https://www.googletagmanager.com/gtag/js?id=x"></script></head><body></body></html>`;
    const guarded = withPagePolicy(page)!;
    const meta = `<meta http-equiv="Content-Security-Policy" content="${PAGE_POLICY}">`;
    expect(guarded.indexOf(meta)).toBeGreaterThan(guarded.indexOf(HEAD));
    expect(guarded.indexOf(meta)).toBeLessThan(guarded.indexOf('<script'));
    expect(guarded.slice(0, guarded.indexOf(meta))).toContain('allure-framework/allure3/issues/476');
    // The charset still within the first 1024 bytes, where a browser looks for it.
    expect(guarded.indexOf('<meta charset="utf-8">')).toBeLessThan(1024);
    // Inline and data:/blob: only: no scheme, host or wildcard another origin could match.
    expect(PAGE_POLICY).toMatch(/^default-src 'none'; /);
    for (const directive of PAGE_POLICY.split('; '))
      for (const source of directive.split(' ').slice(1))
        expect(["'none'", "'unsafe-inline'", 'data:', 'blob:'], directive).toContain(source);
  });

  test('a page without <head> is not published, and the warning says why', () => {
    expect(withPagePolicy('<html><body>no head</body></html>')).toBeUndefined();
    const dir = path.join(work, 'headless');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, 'index.html'),
      '<html><body><script src="https://www.googletagmanager.com/x"></script></body></html>',
    );
    writeFileSync(path.join(dir, 'summary.json'), '{}');
    expect(finishReport(dir)).toMatch(
      /^Allure's page has no "<head>" .*no report was written.*Google Analytics/,
    );
    expect(readdirSync(dir)).toEqual([]);
    const ok = path.join(work, 'headed');
    mkdirSync(ok, { recursive: true });
    writeFileSync(path.join(ok, 'index.html'), '<html><head><title>t</title></head></html>');
    writeFileSync(path.join(ok, 'test-results.json'), '{}');
    expect(finishReport(ok)).toBeUndefined();
    expect(readdirSync(ok)).toEqual(['index.html']);
    expect(readFileSync(path.join(ok, 'index.html'), 'utf8')).toContain(PAGE_POLICY);
  });

  test('the history moves on with the report folder: the new run starts with the previous one', () => {
    const reportDir = path.join(work, 'rotate', 'latest');
    const previousDir = path.join(work, 'rotate', 'previous');
    mkdirSync(reportDir, { recursive: true });
    writeFileSync(path.join(reportDir, 'summary.json'), '{}');
    writeFileSync(path.join(reportDir, HISTORY_FILE), '{"uuid":"1"}\n');
    rotateReportDir(reportDir, previousDir);
    expect(readFileSync(path.join(reportDir, HISTORY_FILE), 'utf8')).toBe('{"uuid":"1"}\n');
    expect(existsSync(path.join(reportDir, 'summary.json'))).toBe(false);
    expect(existsSync(path.join(previousDir, 'summary.json'))).toBe(true);
    expect(existsSync(path.join(previousDir, HISTORY_FILE))).toBe(true);
  });

  test('the run before the previous one is set aside at once, and gone once removed', async () => {
    const reportDir = path.join(work, 'rotate-twice', 'latest');
    const previousDir = path.join(work, 'rotate-twice', 'previous');
    mkdirSync(path.join(previousDir, 'allure-results'), { recursive: true });
    for (let i = 0; i < 50; i++)
      writeFileSync(path.join(previousDir, 'allure-results', `${i}-result.json`), '{}');
    mkdirSync(reportDir, { recursive: true });
    writeFileSync(path.join(reportDir, 'summary.json'), '{"run":2}');
    // A folder set aside by a run that was killed before it had removed it.
    mkdirSync(`${previousDir}.removing`, { recursive: true });
    writeFileSync(path.join(`${previousDir}.removing`, 'summary.json'), '{"run":0}');
    const rotation = rotateReportDir(reportDir, previousDir);
    // At once: the previous run is where the one before it was.
    expect(readFileSync(path.join(previousDir, 'summary.json'), 'utf8')).toBe('{"run":2}');
    expect(existsSync(path.join(previousDir, 'allure-results'))).toBe(false);
    await rotation.remove();
    expect(readdirSync(path.join(work, 'rotate-twice'))).toEqual(['previous']);
  });

  test("a run's reports are new files: an old report's files, their modes and other names stay as they were", async () => {
    const reportDir = path.join(work, 'fresh', 'latest');
    const previousDir = path.join(work, 'fresh', 'previous');
    mkdirSync(path.join(previousDir, 'allure-results'), { recursive: true });
    const old = path.join(previousDir, 'allure-results', 'old-result.json');
    writeFileSync(old, '{"old":1}', { mode: 0o600 });
    // A second name outside: an archive of hard links (cp -al, rsync --link-dest).
    const archived = path.join(work, 'fresh-archive.json');
    linkSync(old, archived);
    const oldInode = statSync(old).ino;
    mkdirSync(reportDir, { recursive: true });
    writeFileSync(path.join(reportDir, 'summary.json'), '{"run":2}');
    const folder = new ReportFolder(reportDir, previousDir, work);
    folder.clear();
    folder.write('summary.json', '{"run":3}');
    folder.writeIn('allure-results', 'a-result.json', Buffer.from('{"a":1}'));
    await folder.settled();
    expect(readFileSync(path.join(reportDir, 'summary.json'), 'utf8')).toBe('{"run":3}');
    const written = path.join(reportDir, 'allure-results', 'a-result.json');
    expect(readFileSync(written, 'utf8')).toBe('{"a":1}');
    expect(statSync(written).ino).not.toBe(oldInode);
    expect(statSync(written).mode & 0o777).not.toBe(0o600);
    expect(readFileSync(archived, 'utf8')).toBe('{"old":1}');
    expect(folder.written).toEqual(['summary.json', 'allure-results/']);
    expect(readdirSync(path.join(work, 'fresh')).sort()).toEqual(['latest', 'previous']);
    expect(readFileSync(path.join(previousDir, 'summary.json'), 'utf8')).toBe('{"run":2}');
  });
});

// biome-ignore lint/suspicious/noExplicitAny: the configuration is read as data and checked field by field
type Json = any;

// The HTML report's parts that need no browser: the Allure results the CLI writes from the record
// (one per requirement), the Allure configuration, the page's Content-Security-Policy and the
// history carried over on rotation. test/cli/report-browser.test.ts checks the page itself.
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
import type { TestResult } from 'allure-js-commons';
import { stringifyEnvInfo } from 'allure-js-commons/sdk/reporter';
import { afterAll, describe, expect, test } from 'vitest';
import { loadCatalog } from '../../catalog/catalog.ts';
import type { CheckOutcome, RunRecord } from '../../cli/record/record.ts';
import { type RequirementResult, rollUp } from '../../cli/record/rollup.ts';
import {
  allureFiles,
  changes,
  changesLine,
  environmentInfo,
  historyIdOf,
  previousStatuses,
  reportName,
  requirementMessage,
} from '../../cli/reports/allure.ts';
import { HISTORY_FILE, ReportFolder, rotateReportDir } from '../../cli/reports/folder.ts';
import {
  allureConfig,
  finishReport,
  HEAD,
  HISTORY_LIMIT,
  PAGE_POLICY,
  withPagePolicy,
} from '../../cli/reports/html.ts';
import { suiteFrames } from '../../cli/run/collector.ts';
import { recordExchange } from '../../suites/harness/evidence/exchange.ts';
import { testConfig } from '../helpers/config.ts';

const catalog = loadCatalog();
const work = mkdtempSync(path.join(tmpdir(), 'petstore-conformance-html-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const config = testConfig('https://staging.pets.example.com/v1', {
  seed: 1616944622,
  timeoutMs: 10_000,
  runId: 'test',
});

/** A check's outcome as the CLI's reporter records it; it starts at 1000 ms (since the epoch) unless told. */
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

/** The exchange the failed check [limit=101] keeps as its evidence, a plain copy as a check keeps it. */
const overMaxExchange = {
  ...recordExchange(
    {
      method: 'GET',
      url: 'https://staging.pets.example.com/v1/pets?limit=101',
      headers: { 'x-api-key': '***' },
    },
    {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from('[1 2]'),
      durationMs: 7,
    },
  ),
};

// Every requirement passes but these: a MUST that fails one of its two checks, a SHOULD that fails
// (not gating without --strict), one skipped for --read-only, one blocked by CREATE-OK.
const outcomes: CheckOutcome[] = [
  ...catalog.requirements
    .filter(
      (r) =>
        !['LIST-LIMIT-OVER-MAX', 'SHOW-UNKNOWN-404', 'AUTH-KEY-ACCEPTED', 'CREATE-PERSISTED'].includes(r.id),
    )
    .map((r) => outcome(r.id, 'passed')),
  outcome('LIST-LIMIT-OVER-MAX', 'failed', {
    name: ' [limit=101]',
    caseLabel: 'limit=101',
    startedAt: 900,
    failures: [
      {
        message: 'expected: status 400–499\nreceived: 200',
        expected: 'status 400–499',
        received: '200, JSON array of 100 items',
        reproduce: "curl -sS 'https://staging.pets.example.com/v1/pets?limit=101'",
      },
    ],
    trace: 'at suites/list/list.checks.ts:48:3',
    evidence: [overMaxExchange],
  }),
  outcome('LIST-LIMIT-OVER-MAX', 'passed', {
    name: ' [limit=2^31]',
    caseLabel: 'limit=2^31',
    notes: ['sent 2147483648'],
    evidence: [overMaxExchange, overMaxExchange],
  }),
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
    ...overrides,
  };
}

/** The Allure files of a run of the outcomes above. */
function filesOf(run: RunRecord, previous?: ReadonlyMap<string, string>) {
  return allureFiles({ record: run, catalog, outcomes, ...(previous ? { previous } : {}) });
}

describe('the Allure results of a run: one per requirement', () => {
  const run = record();
  const files = filesOf(run);
  const { results } = files;
  const byId = (id: string) =>
    results.find((r) => r.labels.some((l) => l.name === 'requirement' && l.value === id))!;
  const label = (r: TestResult, name: string) => r.labels.filter((l) => l.name === name).map((l) => l.value);

  test('each catalog requirement is one result, in the status summary.json gives it', () => {
    expect(results).toHaveLength(catalog.requirements.length);
    for (const r of run.rollUp.results) expect(byId(r.id).status, r.id).toBe(r.status);
    const overMax = byId('LIST-LIMIT-OVER-MAX');
    expect(overMax.name).toBe('LIST-LIMIT-OVER-MAX (MUST) a limit above 100 is rejected with a 4xx status');
    expect(label(overMax, 'operation')).toEqual(['GET /pets (listPets)']);
    expect(label(overMax, 'severity')).toEqual(['critical']);
    expect(label(overMax, 'tag')).toEqual(['gating']);
    expect(label(overMax, 'gating')).toEqual(['yes']);
    expect(label(byId('LIST-OK'), 'gating')).toEqual([]);
    expect(label(byId('SHOW-UNKNOWN-404'), 'tag')).toEqual(['not gating']);
    expect(label(byId('CREATE-PERSISTED'), 'tag')).toEqual(['blocked']);
    expect(label(byId('AUTH-KEY-ACCEPTED'), 'operation')).toEqual(['auth (any operation)']);
    expect(label(byId('ANY-NO-5XX'), 'operation')).toEqual(['any operation']);
    // The history id is the requirement's, the same in every run, distinct from every other's.
    expect(overMax.historyId).toBe(historyIdOf('LIST-LIMIT-OVER-MAX'));
    expect(new Set(results.map((r) => r.historyId)).size).toBe(results.length);
  });

  test('a failed requirement says whether it gates, what was expected and received, and how to reproduce it', () => {
    expect(byId('LIST-LIMIT-OVER-MAX').statusDetails?.message).toBe(
      [
        '1 of 2 checks failed · gating: this MUST failure makes the run non-conformant',
        'expected:  status 400–499',
        'received:  200, JSON array of 100 items',
        "reproduce: curl -sS 'https://staging.pets.example.com/v1/pets?limit=101'",
      ].join('\n'),
    );
    expect(byId('SHOW-UNKNOWN-404').statusDetails?.message).toMatch(
      /^failed · not gating: a SHOULD failure decides the verdict only with --strict\n/,
    );
    expect(byId('CREATE-PERSISTED').statusDetails?.message).toBe(
      'blocked by CREATE-OK: POST /pets answered 500',
    );
    expect(byId('AUTH-KEY-ACCEPTED').statusDetails?.message).toBe('needs --api-key');
  });

  test('a requirement is blocked when the roll-up says so (blockedBy), never by what its message reads', () => {
    const skipped = run.rollUp.results.find((r) => r.id === 'AUTH-KEY-ACCEPTED')!;
    const readsBlocked = { ...skipped, message: 'blocked by CREATE-OK: POST /pets answered 500' };
    expect(requirementMessage(readsBlocked)).toBe('blocked by CREATE-OK: POST /pets answered 500');
    const asRead = allureFiles({
      record: record({
        rollUp: {
          ...run.rollUp,
          results: run.rollUp.results.map((r) => (r.id === skipped.id ? readsBlocked : r)),
        },
      }),
      catalog,
      outcomes,
    }).results;
    const tags = (r: TestResult | undefined) => r?.labels.filter((l) => l.name === 'tag').map((l) => l.value);
    expect(tags(asRead.find((r) => r.fullName?.endsWith(skipped.id)))).toEqual([]);
    expect(tags(byId('CREATE-PERSISTED'))).toEqual(['blocked']);
    const { message: _, ...withoutMessage } = skipped;
    expect(requirementMessage({ ...withoutMessage, blockedBy: ['CREATE-OK'] })).toBe('blocked by CREATE-OK');
  });

  test('its checks are its steps, in the order they ran, with their notes and exchanges and without harness frames', () => {
    const steps = byId('LIST-LIMIT-OVER-MAX').steps;
    expect(steps.map((s) => [s.name, s.status, s.start, s.stop])).toEqual([
      ['check [limit=101]', 'failed', 900, 905],
      ['check [limit=2^31]', 'passed', 1_000, 1_005],
    ]);
    const [failed, passed] = steps;
    expect(failed?.statusDetails).toEqual({
      message: 'expected: status 400–499\nreceived: 200',
      trace: 'at suites/list/list.checks.ts:48:3',
    });
    // A failed check: its request and its response, each an attachment in a step of its own.
    expect(failed?.steps.map((s) => s.name)).toEqual([
      'request: GET /v1/pets?limit=101',
      'response: 200 OK · 5 bytes · 7 ms',
    ]);
    const text = (step: (typeof steps)[number] | undefined) =>
      files.attachments.get(step?.attachments[0]?.source ?? '');
    expect(text(failed?.steps[0])).toBe(
      'GET https://staging.pets.example.com/v1/pets?limit=101\nx-api-key: ***\n\n(no body)',
    );
    // The body as it came: "[1 2]" is not valid JSON, and is not re-indented.
    expect(text(failed?.steps[1])).toContain('content-type: application/json\n\n[1 2]\n\nbody: 5 bytes');
    // A passed check: its notes, then its last exchanges together in one attachment.
    expect(passed?.steps.map((s) => [s.name, s.status])).toEqual([
      ['sent 2147483648', 'passed'],
      [expect.stringMatching(/^last 2 exchanges: GET \/v1\/pets\?limit=101 → 200 OK/), undefined],
    ]);
    expect(text(passed?.steps[1])).toMatch(/^── 1\/2 ──\nGET https:[\s\S]*── 2\/2 ──/);
    // A skipped check carries the reason vitest gave it.
    expect(byId('AUTH-KEY-ACCEPTED').steps[0]).toMatchObject({
      status: 'skipped',
      statusDetails: { message: 'needs --api-key' },
    });
    // Frames of the suite file only, from a check's error.
    expect(
      suiteFrames(
        [
          'ConformanceError: expected: status 400–499',
          '    at fail (/work/x/suites/harness/expect.ts:21:9)',
          '    at /work/x/suites/list/list.checks.ts:48:3',
          '    at async file:///work/x/node_modules/@vitest/runner/dist/chunk-artifact.js:1903:20',
        ].join('\n'),
      ),
    ).toBe('at suites/list/list.checks.ts:48:3');
    expect(suiteFrames('Error: x\n    at f (/a/suites/harness/client.ts:1:1)')).toBeUndefined();
  });

  test('its times agree with the record: the results span the run, the checks keep the times they ran', () => {
    const runStart = run.startedAt.getTime();
    expect(Math.min(...results.map((r) => r.start!))).toBe(runStart);
    for (const r of results) expect(r.stop).toBe(runStart + run.durationMs);
  });

  test('the tree reads by operation as the OpenAPI document lists them, then any operation, each in catalog order', () => {
    const order = [...results].sort((a, b) => (a.start ?? 0) - (b.start ?? 0));
    const groups = [...new Set(order.map((r) => label(r, 'operation')[0]))];
    expect(groups).toEqual([
      'GET /pets (listPets)',
      'POST /pets (createPets)',
      'GET /pets/{petId} (showPetById)',
      'GET /store/orders (listStoreOrders)',
      'any operation',
      'auth (any operation)',
      'version (any operation)',
    ]);
    const listIds = order
      .filter((r) => label(r, 'operation')[0] === 'GET /pets (listPets)')
      .map((r) => label(r, 'requirement')[0]);
    expect(listIds).toEqual(catalog.requirements.filter((r) => r.operation === 'listPets').map((r) => r.id));
  });

  test('a requirement is described by the quoted sentence, its source and the RFC behind it', () => {
    const overMax = byId('LIST-LIMIT-OVER-MAX');
    const r = catalog.get('LIST-LIMIT-OVER-MAX')!;
    expect(overMax.description).toContain(`> ${r.source.text.trim()}`);
    expect(overMax.description).toContain(`section "${r.source.section}"`);
    expect(overMax.links).toEqual([
      {
        name: 'RFC 9110 §15.5',
        url: 'https://www.rfc-editor.org/rfc/rfc9110.html#section-15.5',
        type: 'link',
      },
    ]);
    // A requirement on a topic the document leaves unspecified says what the suite tolerates.
    const silent = catalog.requirements.find((x) => x.unspecified !== undefined)!;
    const topic = catalog.unspecified.find((u) => u.topic === silent.unspecified)!;
    expect(byId(silent.id).description).toContain(topic.tolerated);
  });

  test('the first screen: verdict, counts per requirement (blocked apart from skipped), seed and gating level', () => {
    expect(reportName(run)).toBe('NON-CONFORMANT · 1 MUST failed · staging.pets.example.com/v1');
    expect(Object.entries(files.environment).slice(0, 8)).toEqual([
      ['verdict', 'NON-CONFORMANT · 1 MUST failed'],
      ['vs last report', 'no earlier report in this folder'],
      ['failed', `2 of ${catalog.requirements.length} requirements (1 gating)`],
      ['passed', String(catalog.requirements.length - 4)],
      ['blocked', '1'],
      ['skipped', '1'],
      ['seed', '1616944622'],
      ['gating level', 'MUST (SHOULD gates only with --strict)'],
    ]);
    // As allure-js-commons writes it into environment.properties.
    expect(stringifyEnvInfo(files.environment).split('\n').slice(0, 2)).toEqual([
      'verdict=NON-CONFORMANT · 1 MUST failed',
      'vs\\ last\\ report=no earlier report in this folder',
    ]);
    const strict = record({ config: { ...config, strict: true } });
    expect(reportName(strict)).toBe(
      'NON-CONFORMANT · 1 MUST and 1 SHOULD failed · staging.pets.example.com/v1',
    );
  });

  test('the overview: the verdict with its failures, and what the document leaves unspecified', () => {
    expect(files.globals.name).toMatch(/-globals\.json$/);
    const text = (name: string) => {
      const source = files.globals.content.attachments.find((a) => a.name.startsWith(name))!.source;
      return files.attachments.get(source)!;
    };
    const overview = text('Verdict and failures');
    expect(overview).toMatch(/^NON-CONFORMANT · 1 MUST failed/);
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

  test('what changed since the last report comes from the last line of Allure history', () => {
    const file = path.join(work, 'history.jsonl');
    const point = (statuses: Record<string, string>) =>
      JSON.stringify({
        uuid: 'x',
        testResults: Object.fromEntries(
          Object.entries(statuses).map(([id, status]) => [
            `${historyIdOf(id)}.x`,
            { status, labels: [{ name: 'requirement', value: id }] },
          ]),
        ),
      });
    writeFileSync(
      file,
      `${point({ 'LIST-OK': 'failed' })}\n${point({ 'LIST-OK': 'failed', 'SHOW-UNKNOWN-404': 'passed' })}\n`,
    );
    const previous = previousStatuses(file);
    expect(previous).toEqual(
      new Map([
        ['LIST-OK', 'failed'],
        ['SHOW-UNKNOWN-404', 'passed'],
      ]),
    );
    const diff = changes(run, previous);
    expect(diff).toEqual({ newlyFailed: ['LIST-LIMIT-OVER-MAX', 'SHOW-UNKNOWN-404'], fixed: ['LIST-OK'] });
    expect(changesLine(diff)).toBe('2 newly failed, 1 fixed');
    expect(previousStatuses(path.join(work, 'none.jsonl'))).toBeUndefined();
    expect(environmentInfo(run, previous)['vs last report']).toBe('2 newly failed, 1 fixed');
    expect(filesOf(run, previous).environment['vs last report']).toBe('2 newly failed, 1 fixed');
  });
});

describe('the Allure configuration and the page', () => {
  test('the report is named by its verdict, grouped by operation, keeps a bounded history beside it', () => {
    const reportDir = path.join(work, 'reports', 'latest');
    const c = allureConfig(reportDir, record()) as Json;
    expect(c.name).toBe('NON-CONFORMANT · 1 MUST failed · staging.pets.example.com/v1');
    expect(c.historyPath).toBe(path.join(reportDir, HISTORY_FILE));
    expect(c.historyLimit).toBe(HISTORY_LIMIT);
    expect(c.plugins.awesome.options).toMatchObject({
      singleFile: true,
      groupBy: ['operation'],
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

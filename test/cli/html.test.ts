// The HTML report's parts that need no browser: the Allure results the CLI builds (one per
// requirement), the Allure configuration, the page's post-processing (analytics, embedded data)
// and the history carried over on rotation. test/cli/report-browser.test.ts checks the page itself.
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
import { afterAll, describe, expect, test } from 'vitest';
import { loadCatalog } from '../../catalog/catalog.ts';
import type { RunRecord } from '../../cli/record/record.ts';
import { type RequirementResult, rollUp, type TestOutcome } from '../../cli/record/rollup.ts';
import {
  type AllureResult,
  changes,
  changesLine,
  environmentProperties,
  historyIdOf,
  isBlocked,
  previousStatuses,
  reportName,
  requirementMessage,
  requirementResults,
  suiteFrames,
} from '../../cli/reports/allure.ts';
import { HISTORY_FILE, ReportFolder, rotateReportDir } from '../../cli/reports/folder.ts';
import { allureConfig, HISTORY_LIMIT, VERDICT_FIRST, withoutAnalytics } from '../../cli/reports/html.ts';
import { testConfig } from '../helpers/config.ts';

const catalog = loadCatalog();
const work = mkdtempSync(path.join(tmpdir(), 'petstore-conformance-html-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const config = testConfig('https://staging.pets.example.com/v1', {
  seed: 1616944622,
  timeoutMs: 10_000,
  runId: 'test',
});

const outcome = (id: string, state: TestOutcome['state'], extra: Partial<TestOutcome> = {}): TestOutcome => ({
  requirementId: id,
  name: `${id} ${catalog.get(id)?.title}${extra.name ?? ''}`,
  file: 'suites/x.test.ts',
  state,
  failures: [],
  durationMs: 5,
  ...extra,
});

// Every requirement passes but these: a MUST that fails one of its two checks, a SHOULD that fails
// (not gating without --strict), one skipped for --read-only, one blocked by CREATE-OK.
const outcomes: TestOutcome[] = [
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
        message: 'expected: status 400–499\nreceived: 200\nreproduce: curl -sS x',
        expected: 'status 400–499',
        received: '200, JSON array of 100 items',
        reproduce: "curl -sS 'https://staging.pets.example.com/v1/pets?limit=101'",
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
    ...overrides,
  };
}

/** What allure-vitest writes for a check (the parts the CLI reads). */
function check(id: string, name: string, status: string, extra: Partial<AllureResult> = {}): AllureResult {
  return {
    uuid: `${id}-${name}`,
    name: `${id} ${catalog.get(id)?.title}${name}`,
    status,
    statusDetails: {},
    labels: [
      { name: 'requirement', value: id },
      { name: 'framework', value: 'vitest' },
    ],
    links: [],
    steps: [],
    start: 1_000,
    stop: 1_100,
    ...extra,
  };
}

const checks: AllureResult[] = [
  check('LIST-OK', '', 'passed'),
  check('LIST-LIMIT-OVER-MAX', ' [limit=2^31]', 'passed', {
    parameters: [{ name: 'case', value: 'limit=2^31' }],
  }),
  check('LIST-LIMIT-OVER-MAX', ' [limit=101]', 'failed', {
    start: 900,
    parameters: [{ name: 'case', value: 'limit=101' }],
    statusDetails: {
      message: 'expected: status 400–499\nreceived: 200',
      trace: [
        'ConformanceError: expected: status 400–499',
        'received: 200',
        '    at fail (/work/x/suites/harness/expect.ts:21:9)',
        '    at expectStatus (/work/x/suites/harness/expect.ts:83:39)',
        '    at /work/x/suites/list/list.test.ts:48:3',
        '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
        '    at async file:///work/x/node_modules/@vitest/runner/dist/chunk-artifact.js:1903:20',
      ].join('\n'),
    },
    steps: [
      {
        name: 'request: GET /v1/pets?limit=101',
        attachments: [
          { name: 'request: GET /v1/pets?limit=101', source: 'a-attachment.txt', type: 'text/plain' },
        ],
      },
    ],
  }),
  check('AUTH-KEY-ACCEPTED', '', 'skipped'),
];

describe('the Allure results of a run: one per requirement', () => {
  const run = record();
  const { results, files } = requirementResults(checks, { record: run, catalog, outcomes });
  const byId = (id: string) =>
    results.find((r) => r.labels.some((l) => l.name === 'requirement' && l.value === id))!;
  const label = (r: AllureResult, name: string) =>
    r.labels.filter((l) => l.name === name).map((l) => l.value);

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

  test('a requirement is blocked by its blockedBy, or by the "blocked by" note of its skipped checks', () => {
    const skipped = run.rollUp.results.find((r) => r.id === 'AUTH-KEY-ACCEPTED')!;
    expect(isBlocked(skipped)).toBe(false);
    expect(isBlocked({ ...skipped, blockedBy: ['CREATE-OK'], message: 'a reason' })).toBe(true);
    expect(
      requirementMessage({ ...skipped, blockedBy: ['CREATE-OK'], message: 'POST /pets answered 500' }),
    ).toBe('blocked by CREATE-OK: POST /pets answered 500');
    expect(isBlocked({ ...skipped, message: 'blocked by CREATE-OK: POST /pets answered 500' })).toBe(true);
    expect(isBlocked({ ...skipped, status: 'failed', blockedBy: ['CREATE-OK'] })).toBe(false);
  });

  test('its checks are its steps, in the order they ran, with their exchanges and without harness frames', () => {
    const steps = byId('LIST-LIMIT-OVER-MAX').steps ?? [];
    expect(steps.map((s) => [s.name, s.status])).toEqual([
      ['check [limit=101]', 'failed'],
      ['check [limit=2^31]', 'passed'],
    ]);
    expect(steps[0]?.statusDetails).toEqual({
      message: 'expected: status 400–499\nreceived: 200',
      trace: 'at suites/list/list.test.ts:48:3',
    });
    expect(steps[0]?.steps?.[0]?.attachments?.[0]?.source).toBe('a-attachment.txt');
    // A skipped check carries the reason vitest gave it.
    expect(byId('AUTH-KEY-ACCEPTED').steps?.[0]).toMatchObject({
      status: 'skipped',
      statusDetails: { message: 'needs --api-key' },
    });
    expect(suiteFrames('Error: x\n    at f (/a/suites/harness/client.ts:1:1)')).toBeUndefined();
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
    const properties = files.find((f) => f.name === 'environment.properties')!.content.split('\n');
    expect(properties.slice(0, 8)).toEqual([
      'verdict=NON-CONFORMANT \\u00b7 1 MUST failed',
      'vs\\ last\\ report=no earlier report in this folder',
      `failed=2 of ${catalog.requirements.length} requirements (1 gating)`,
      `passed=${catalog.requirements.length - 4}`,
      'blocked=1',
      'skipped=1',
      'seed=1616944622',
      'gating\\ level=MUST (SHOULD gates only with --strict)',
    ]);
    const strict = record({ config: { ...config, strict: true } });
    expect(reportName(strict)).toBe(
      'NON-CONFORMANT · 1 MUST and 1 SHOULD failed · staging.pets.example.com/v1',
    );
  });

  test('the overview: the verdict with its failures, and what the document leaves unspecified', () => {
    const globals = JSON.parse(files.find((f) => f.name.endsWith('-globals.json'))!.content);
    const text = (name: string) => {
      const source = globals.attachments.find((a: { name: string }) => a.name.startsWith(name)).source;
      return files.find((f) => f.name === source)!.content;
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
    expect(environmentProperties(run, previous)).toContain('vs\\ last\\ report=2 newly failed, 1 fixed\n');
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

  test("Allure's analytics tag, as its awesome template writes it, is removed; any trace left refuses the page", () => {
    // The template of the installed plugin, so that a change of it in an Allure update is noticed here.
    const require = createRequire(import.meta.url);
    const generators = readFileSync(
      path.join(path.dirname(require.resolve('@allurereport/plugin-awesome')), 'generators.js'),
      'utf8',
    );
    const block = /\{\{#if analyticsEnable\}\}([\s\S]*?)\{\{\/if\}\}/.exec(generators)?.[1];
    expect(block).toContain('googletagmanager');
    const tag = block!.replace(/\{\{\s*\w+\s*\}\}/g, 'value');
    const page = `<html><body><div id="app"></div>\n${tag}\n<script>window.x = 1</script></body></html>`;
    const cleaned = withoutAnalytics(page);
    expect(cleaned?.replace(/\s+/g, ' ')).toBe(
      '<html><body><div id="app"></div> <script>window.x = 1</script></body></html>',
    );
    expect(withoutAnalytics('<img src="https://www.googletagmanager.com/ns.html">')).toBeUndefined();
    expect(VERDICT_FIRST).not.toMatch(/https?:/);
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

  test('a run writes its reports over the files of the run before the previous one, and leaves none of theirs', async () => {
    const reportDir = path.join(work, 'recycle', 'latest');
    const previousDir = path.join(work, 'recycle', 'previous');
    mkdirSync(path.join(previousDir, 'allure-results'), { recursive: true });
    const inodes = new Set<number>();
    for (let i = 0; i < 3; i++) {
      const old = path.join(previousDir, 'allure-results', `old-${i}-result.json`);
      writeFileSync(old, `{"old":${i},"padding":"${'x'.repeat(200)}"}`);
      inodes.add(statSync(old).ino);
    }
    // A fourth, with a second name outside (an archive of hard links): never written over.
    const archived = path.join(work, 'recycle-archive.json');
    writeFileSync(archived, '{"archived":true}');
    linkSync(archived, path.join(previousDir, 'allure-results', 'old-3-result.json'));
    mkdirSync(reportDir, { recursive: true });
    writeFileSync(path.join(reportDir, 'summary.json'), '{"run":2}');
    const folder = new ReportFolder(reportDir, previousDir, work);
    folder.clear();
    folder.write('summary.json', '{"run":3}');
    const results = new Map([
      ['a-result.json', Buffer.from('{"a":1}')],
      ['b-attachment.txt', Buffer.from('b')],
      ['c-attachment.txt', Buffer.from('c')],
      ['d-attachment.txt', Buffer.from('d')],
    ]);
    folder.writeAhead('allure-results', new Map([...results].slice(1, 3)));
    await folder.writeAll(results, 'allure-results');
    await folder.settled();
    // Each file holds its own bytes only, whether it was a spare or created.
    expect(readFileSync(path.join(reportDir, 'summary.json'), 'utf8')).toBe('{"run":3}');
    for (const [name, bytes] of results)
      expect(readFileSync(path.join(reportDir, 'allure-results', name))).toEqual(bytes);
    // The three old files became three of the five new ones; the fourth and fifth were created.
    const written = ['summary.json', ...[...results.keys()].map((n) => path.join('allure-results', n))];
    const reused = written.filter((name) => inodes.has(statSync(path.join(reportDir, name)).ino));
    expect(reused).toHaveLength(3);
    expect(readFileSync(archived, 'utf8')).toBe('{"archived":true}');
    expect(readdirSync(path.join(work, 'recycle')).sort()).toEqual(['latest', 'previous']);
    expect(readFileSync(path.join(previousDir, 'summary.json'), 'utf8')).toBe('{"run":2}');
  });
});

// biome-ignore lint/suspicious/noExplicitAny: the configuration is read as data and checked field by field
type Json = any;

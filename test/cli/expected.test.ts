// --expected <file>: known deviations with a reason, a link and an end date. The file is checked
// entry by entry; a gating failure an unexpired entry names does not fail the run and is shown as
// expected; an entry that passes now, matches nothing or has expired is stale (and fails --strict).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadCatalog, type Requirement } from '../../catalog/catalog.ts';
import { CannotJudgeError } from '../../cli/record/errors.ts';
import { applyExpected, type ExpectedFile } from '../../cli/record/expected.ts';
import { exitOf } from '../../cli/record/record.ts';
import { rollUp, type TestOutcome } from '../../cli/record/rollup.ts';
import { loadExpected } from '../../cli/run/expected.ts';
import type { RunningServer } from '../../reference-impl/index.ts';
import { build, type CliResult, type Json, ROOT, readJson, runInProcess } from '../helpers/cli.ts';
import { shippedSchema } from '../helpers/schemas.ts';
import { createVariants } from '../variants/faulty/create.ts';
import { reference } from '../variants/servers/reference.ts';

const work = mkdtempSync(path.join(tmpdir(), 'petstore-conformance-expected-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const catalog = loadCatalog();

/** The file written into the work folder, read by loadExpected; or the message it is refused with. */
function read(name: string, text: string): ExpectedFile | string {
  writeFileSync(path.join(work, name), text);
  try {
    return loadExpected(name, work, catalog);
  } catch (error) {
    expect(error).toBeInstanceOf(CannotJudgeError);
    return (error as Error).message;
  }
}

describe('the file: YAML or JSON, each entry checked', () => {
  test('a YAML list, and a JSON object with the list under "expected"', () => {
    expect(
      read(
        'a.yaml',
        '- id: CREATE-OK\n  reason: " answers 200 "\n  link: https://t.example/PETS-1\n  expires: 2026-06-30\n- id: SHOW-OK\n  reason: broken\n',
      ),
    ).toEqual({
      given: 'a.yaml',
      entries: [
        { id: 'CREATE-OK', reason: 'answers 200', link: 'https://t.example/PETS-1', expires: '2026-06-30' },
        { id: 'SHOW-OK', reason: 'broken' },
      ],
    });
    expect(read('b.json', '{"expected": [{"id": "LIST-OK", "reason": "r"}]}')).toEqual({
      given: 'b.json',
      entries: [{ id: 'LIST-OK', reason: 'r' }],
    });
  });

  test.each([
    ['no such file', null, '--expected missing.yaml: no such file'],
    ['not YAML', '- id: [', '--expected bad.yaml: not YAML or JSON: '],
    [
      'not a list',
      'id: CREATE-OK',
      'expected a list of entries (id, reason, and optionally link and expires), alone or under "expected:", got an object',
    ],
    [
      'an entry that is not an object',
      '- CREATE-OK',
      'entry 1: expected an object with id and reason, got "CREATE-OK"',
    ],
    ['no id', '- reason: r', 'entry 1: "id" is missing: expected a requirement id such as CREATE-OK'],
    [
      'an id the catalog does not have',
      '- id: CREATE-OKK\n  reason: r',
      'entry 1 (CREATE-OKK): "id" is not a requirement of the catalog',
    ],
    [
      'no reason',
      '- id: CREATE-OK',
      'entry 1 (CREATE-OK): "reason" is missing: expected a sentence saying why the deviation is expected',
    ],
    [
      'an empty reason',
      '- id: CREATE-OK\n  reason: "  "',
      'entry 1 (CREATE-OK): "reason": expected a sentence saying why the deviation is expected, got "  "',
    ],
    [
      'a link that is not a URL',
      '- id: CREATE-OK\n  reason: r\n  link: PETS-12',
      'entry 1 (CREATE-OK): "link": expected an http or https URL (the ticket), got "PETS-12"',
    ],
    [
      'a date that does not exist',
      '- id: CREATE-OK\n  reason: r\n  expires: 2026-02-30',
      'entry 1 (CREATE-OK): "expires": expected a date as YYYY-MM-DD, got "2026-02-30"',
    ],
    [
      'a date in another form',
      '- id: CREATE-OK\n  reason: r\n  expires: 30.06.2026',
      '"expires": expected a date as YYYY-MM-DD, got "30.06.2026"',
    ],
    [
      'an unknown field',
      '- id: CREATE-OK\n  reason: r\n  reson: x',
      'entry 1 (CREATE-OK): unknown field "reson" (the fields are id, reason, link, expires)',
    ],
    [
      'a link of another scheme',
      '- id: CREATE-OK\n  reason: r\n  link: ftp://t.example/PETS-12',
      'entry 1 (CREATE-OK): "link": expected an http or https URL (the ticket), got "ftp://t.example/PETS-12"',
    ],
    [
      'an id that is not a string',
      '- id: 12\n  reason: r',
      'entry 1: "id": expected a requirement id such as CREATE-OK, got 12',
    ],
    [
      'another key beside the list',
      'expected: []\nexpire: 2026-01-01',
      'unknown key "expire" (the keys are $schema, expected)',
    ],
    [
      'an entry of a list under "expected:"',
      'expected:\n  - id: CREATE-OK\n    reason: r\n    expires: soon',
      'entry 1 (CREATE-OK): "expires": expected a date as YYYY-MM-DD, got "soon"',
    ],
    [
      'an id twice',
      '- id: SHOW-OK\n  reason: r\n- id: SHOW-OK\n  reason: s',
      'entry 2 (SHOW-OK): SHOW-OK is already listed by entry 1',
    ],
  ])('%s is refused, naming the file, the entry and what was expected', (_what, text, message) => {
    const name = text === null ? 'missing.yaml' : _what === 'not YAML' ? 'bad.yaml' : 'x.yaml';
    const got = text === null ? loadMessage(name) : read(name, text);
    expect(typeof got).toBe('string');
    expect(got).toContain(message);
  });
});

describe('the shipped schema (schemas/expected.schema.json) is the one the command checks with', () => {
  const valid = shippedSchema('expected.schema.json');
  const good: unknown[] = [
    [{ id: 'CREATE-OK', reason: 'r', link: 'https://t.example/PETS-1', expires: '2026-06-30' }],
    { $schema: './node_modules/petstore-conformance/schemas/expected.schema.json', expected: [] },
  ];
  const bad: unknown[] = [
    { id: 'CREATE-OK', reason: 'r' },
    [{ id: 'CREATE-OK' }],
    [{ id: 'CREATE-OK', reason: 'r', expires: '2026-02-30' }],
    [{ id: 'CREATE-OK', reason: 'r', link: 'PETS-12' }],
    { expected: [], more: 1 },
  ];

  test.each(good.map((d) => [JSON.stringify(d), d]))('accepts %s', (_, data) => {
    expect(valid(data)).toEqual([]);
    expect(read('good.json', JSON.stringify(data))).toMatchObject({ given: 'good.json' });
  });

  test.each(bad.map((d) => [JSON.stringify(d), d]))('refuses %s', (_, data) => {
    expect(valid(data)).not.toEqual([]);
    expect(typeof read('bad.json', JSON.stringify(data))).toBe('string');
  });

  test('docs/staging.md’s example file is valid', () => {
    const doc = readFileSync(path.join(ROOT, 'docs', 'staging.md'), 'utf8');
    const example = /```yaml\n(# deviations\.yaml[\s\S]*?)```/.exec(doc)?.[1];
    expect(example, 'docs/staging.md has a ```yaml block starting "# deviations.yaml"').toBeDefined();
    expect(valid(parseYaml(example!))).toEqual([]);
    expect(read('example.yaml', example!)).toMatchObject({
      entries: [{ id: 'CREATE-OK' }, { id: 'SHOW-UNKNOWN-404' }],
    });
  });
});

function loadMessage(name: string): string {
  try {
    loadExpected(name, work, catalog);
  } catch (error) {
    return (error as Error).message;
  }
  return 'not refused';
}

describe('what the entries do', () => {
  const req = (id: string, level: Requirement['level'] = 'MUST') =>
    ({ id, level, title: `${id} title`, operation: 'listPets', needs: [] }) as unknown as Requirement;
  const requirements = [req('A'), req('B'), req('C'), req('D', 'SHOULD'), req('E'), req('F')];
  const cat = { requirements, get: (id: string) => requirements.find((r) => r.id === id) };
  const outcome = (
    id: string,
    state: TestOutcome['state'],
    extra: Partial<TestOutcome> = {},
  ): TestOutcome => ({
    requirementId: id,
    name: id,
    file: 'x',
    state,
    failures: state === 'failed' ? [{ message: 'm', expected: 'x', received: 'y' }] : [],
    durationMs: 1,
    ...extra,
  });
  const results = rollUp(
    cat,
    [
      outcome('A', 'failed'),
      outcome('B', 'skipped', { blockedBy: ['A'], note: 'blocked by A' }),
      outcome('C', 'failed'),
      outcome('D', 'passed'),
      outcome('E', 'skipped', { note: '--read-only: needs writes' }),
      outcome('F', 'passed'),
    ],
    { only: [], strict: false },
  ).results;
  const file = (entries: ExpectedFile['entries']): ExpectedFile => ({ given: 'x.yaml', entries });
  const gatingBad = ['A', 'B', 'C'];

  test('a gating failure an entry names is excused with its reason, and what it alone blocks with it', () => {
    const o = applyExpected(
      file([
        { id: 'A', reason: 'known', link: 'https://t/1', expires: '2026-12-31' },
        { id: 'C', reason: 'also' },
      ]),
      results,
      { strict: false, today: '2026-12-31', gatingBad },
    );
    expect(o.excused.map((e) => [e.id, e.reason])).toEqual([
      ['A', 'known'],
      ['B', 'blocked by A, expected to fail'],
      ['C', 'also'],
    ]);
    expect(o).toMatchObject({ unexcused: [], stale: [], gate: 'passed' });
  });

  test('a failure no entry names still fails the run', () => {
    const o = applyExpected(file([{ id: 'A', reason: 'known' }]), results, {
      strict: false,
      today: '2026-01-01',
      gatingBad,
    });
    expect(o.unexcused).toEqual(['C']);
    expect(o.gate).toBe('failed');
  });

  test('stale: an entry that passes now, that matches nothing, or that has expired (and excuses nothing)', () => {
    const o = applyExpected(
      file([
        { id: 'A', reason: 'r', expires: '2025-12-31' },
        { id: 'C', reason: 'r' },
        { id: 'D', reason: 'r' },
        { id: 'E', reason: 'r' },
      ]),
      results,
      { strict: false, today: '2026-01-01', gatingBad },
    );
    expect(o.stale).toEqual([
      { id: 'A', why: 'expired on 2025-12-31' },
      { id: 'D', why: 'passes now: remove the entry' },
      { id: 'E', why: 'matched nothing: skipped (--read-only: needs writes)' },
    ]);
    expect(o.unexcused).toEqual(['A', 'B']);
    expect(o.gate).toBe('failed');
  });

  test('stale entries fail the run under --strict only', () => {
    const stale = file([
      { id: 'A', reason: 'r' },
      { id: 'C', reason: 'r' },
      { id: 'F', reason: 'r' },
    ]);
    expect(applyExpected(stale, results, { strict: false, today: '2026-01-01', gatingBad }).gate).toBe(
      'passed',
    );
    expect(applyExpected(stale, results, { strict: true, today: '2026-01-01', gatingBad }).gate).toBe(
      'failed',
    );
  });

  test('entries of requirements the run leaves out are neither used nor stale', () => {
    const only = rollUp(cat, [outcome('A', 'failed')], { only: ['A'], strict: false }).results;
    const o = applyExpected(file([{ id: 'D', reason: 'r' }]), only, {
      strict: true,
      today: '2026-01-01',
      gatingBad: ['A'],
    });
    expect(o.stale).toEqual([]);
  });

  test('with --baseline only the new failures need an entry; the exit status follows the combined gate', () => {
    const o = applyExpected(file([{ id: 'C', reason: 'r' }]), results, {
      strict: false,
      today: '2026-01-01',
      gatingBad: ['C'], // A and B were failing in the baseline already
    });
    expect(o.gate).toBe('passed');
    const record = { rollUp: { verdict: 'non-conformant' } as never, expected: o };
    expect(exitOf(record)).toBe(0);
    expect(exitOf({ ...record, expected: { ...o, gate: 'failed' } })).toBe(1);
  });
});

describe('--expected, with the real command', () => {
  let faulty: RunningServer;
  const runs: Record<string, CliResult> = {};
  const variant = createVariants.find((v) => v.name === 'create-answers-200')!;

  beforeAll(async () => {
    await build();
    faulty = await reference(variant.server as { wrap: never });
    writeFileSync(
      path.join(work, 'deviations.yaml'),
      [
        '- id: CREATE-OK',
        '  reason: our create answers 200 until the SDK moves to v3',
        '  link: https://tracker.example.com/PETS-12',
        '  expires: 2999-12-31',
        '- id: SHOW-OK',
        '  reason: show was broken in release 41',
        '',
      ].join('\n'),
    );
    writeFileSync(
      path.join(work, 'broken.yaml'),
      '- id: CREATE-OK\n  link: https://tracker.example.com/PETS-12\n',
    );
    const at = { cwd: work, timeoutMs: 120_000 };
    runs.excused = await runInProcess(
      ['--base-url', faulty.url, '--expected', 'deviations.yaml', '--report-dir', 'r/excused'],
      at,
    );
    runs.strict = await runInProcess(
      [
        '--base-url',
        faulty.url,
        '--only',
        'CREATE,SHOW',
        '--expected',
        'deviations.yaml',
        '--strict',
        '--report-dir',
        'r/strict',
      ],
      at,
    );
    runs.broken = await runInProcess(
      ['--base-url', faulty.url, '--expected', 'broken.yaml', '--report-dir', 'r/broken'],
      at,
    );
  }, 300_000);

  afterAll(async () => {
    await faulty?.close();
  });

  const out = (c: CliResult) => `exit ${c.code}\n${c.stdout}\n${c.stderr}`;

  test('excuses the failure with its reason, and lists the entry that passes now as stale', () => {
    const c = runs.excused!;
    expect(c.code, out(c)).toBe(0);
    expect(c.stdout).toMatch(/CREATE-OK +MUST +failed \(expected\)/);
    expect(c.stdout).toContain('deviation: our create answers 200 until the SDK moves to v3');
    expect(c.stdout).toContain('stale:    SHOW-OK: passes now: remove the entry');
    expect(c.stdout).toContain(
      'GATE PASSED: no gating failure left that is not expected (2 expected); 1 stale entry',
    );
    const summary = readJson(path.join(work, 'r', 'excused', 'summary.json'));
    expect(summary.verdict).toBe('non-conformant');
    expect(summary.options.expected).toBe('deviations.yaml');
    expect(summary.results.find((r: Json) => r.id === 'CREATE-OK')).toMatchObject({
      status: 'failed',
      expectedFailure: {
        reason: 'our create answers 200 until the SDK moves to v3',
        link: 'https://tracker.example.com/PETS-12',
        expires: '2999-12-31',
      },
    });
    expect(summary.expectedFailures).toEqual({
      file: 'deviations.yaml',
      gate: 'passed',
      excused: ['CREATE-OK', 'CREATE-VALID-GENERATED'],
      unexcused: [],
      stale: [{ id: 'SHOW-OK', why: 'passes now: remove the entry' }],
    });
  });

  test('JUnit writes the excused failure as an expected failure (skipped), summary.md gives the reason', () => {
    const junit = new XMLParser({ ignoreAttributes: false }).parse(
      readFileSync(path.join(work, 'r', 'excused', 'junit.xml'), 'utf8'),
    );
    expect(junit.testsuites['@_failures']).toBe('0');
    const cases = [junit.testsuites.testsuite].flat().flatMap((s: Json) => [s.testcase].flat());
    const create = cases.find((c: Json) => c['@_name'].startsWith('CREATE-OK '));
    expect(create.skipped['@_type']).toBe('expected');
    expect(create.skipped['@_message']).toContain('expected to fail: our create answers 200');
    const markdown = readFileSync(path.join(work, 'r', 'excused', 'summary.md'), 'utf8');
    expect(markdown).toContain('### Expected deviations: ✅ gate passed');
    expect(markdown).toContain('| `SHOW-OK` | passes now: remove the entry |');
    expect(markdown).toContain('- expected deviation: our create answers 200 until the SDK moves to v3');
  });

  test('a stale entry fails the run under --strict', () => {
    const c = runs.strict!;
    expect(c.code, out(c)).toBe(1);
    expect(c.stdout).toContain('GATE FAILED: 1 stale entry under --strict: remove or renew them');
  });

  test('a bad file: exit 2, naming the file, the entry and what was expected', () => {
    const c = runs.broken!;
    expect(c.code, out(c)).toBe(2);
    expect(c.stderr).toContain(
      '--expected broken.yaml: entry 1 (CREATE-OK): "reason" is missing: expected a sentence saying why the deviation is expected',
    );
  });
});

// Across runs: --baseline, compare and merge on real runs of the real command, against the bundled
// reference and faulty servers from test/variants. Four runs in all, two at a time; compare and merge
// only read summaries, so their cases cost no run.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadCatalog } from '../../catalog/catalog.ts';
import { type RunningServer, startReferenceServer } from '../../reference-impl/index.ts';
import { build, type CliResult, failMessage, type Json, readJson, runInProcess } from '../helpers/cli.ts';
import { variants } from '../variants/index.ts';
import { compose, type Wrap } from '../variants/servers/wrap.ts';
import type { Variant } from '../variants/variant.ts';

const catalog = loadCatalog();
const work = mkdtempSync(path.join(tmpdir(), 'petstore-conformance-runs-'));
const dir = (name: string) => path.join(work, name);

/** The variant of that name, with its wrap: the faults the runs below carry. */
function variant(name: string): Variant & { server: { wrap: Wrap } } {
  const v = variants.find((x) => x.name === name);
  if (!v || !('wrap' in v.server) || !v.server.wrap) throw new Error(`no wrapping variant ${name}`);
  return v as never;
}
/** A MUST fault of the list; a second fault, of show, fails a MUST and a SHOULD. */
const first = variant('limit-over-max-accepted');
const second = variant('unknown-pet-200');

const servers: RunningServer[] = [];
const runs: Record<'reference' | 'faulty' | 'rerun' | 'twoFaults', Promise<CliResult>> = {} as never;

beforeAll(async () => {
  await build();
  const faulty = await startReferenceServer({ port: 0, host: '127.0.0.1', wrap: first.server.wrap });
  const twoFaults = await startReferenceServer({
    port: 0,
    host: '127.0.0.1',
    wrap: compose(first.server.wrap, second.server.wrap),
  });
  servers.push(faulty, twoFaults);
  // Two at a time (the machine has two cores); the baseline runs need the faulty run's summary.
  runs.reference = runInProcess(['--report-dir', dir('reference')]);
  runs.faulty = runInProcess(['--base-url', faulty.url, '--report-dir', dir('faulty')]);
  const baseline = Promise.allSettled([runs.reference, runs.faulty]);
  runs.rerun = baseline.then(() =>
    runInProcess(['--base-url', faulty.url, '--baseline', dir('faulty'), '--report-dir', dir('rerun')]),
  );
  runs.twoFaults = baseline.then(() =>
    runInProcess([
      '--base-url',
      twoFaults.url,
      '--baseline',
      path.join(dir('faulty'), 'summary.json'),
      '--report-dir',
      dir('two-faults'),
    ]),
  );
  await Promise.allSettled(Object.values(runs));
}, 180_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  rmSync(work, { recursive: true, force: true });
});

/** The ids a run failed, in catalog order; `level` narrows them to one level. */
function failedIds(folder: string, level?: string): string[] {
  return readJson(path.join(dir(folder), 'summary.json'))
    .results.filter((r: Json) => r.status === 'failed' && (level === undefined || r.level === level))
    .map((r: Json) => r.id);
}

describe('the runs compared and merged below', () => {
  test('the reference is conformant; the faulty server fails exactly its variant requirement', async () => {
    expect((await runs.reference).code, failMessage(await runs.reference)).toBe(0);
    expect((await runs.faulty).code, failMessage(await runs.faulty)).toBe(1);
    expect(failedIds('faulty')).toEqual(first.breaks);
    // A faulty variant fails exactly what it declares (test/variants), so two faults fail both sets.
    expect(failedIds('two-faults').sort()).toEqual([...first.breaks, ...second.breaks].sort());
    // Summaries name their catalog, so that runs of two catalogs are never mixed up.
    expect(readJson(path.join(dir('faulty'), 'summary.json')).catalog).toEqual({
      hash: expect.stringMatching(/^sha256:[0-9a-f]{16}$/),
      requirements: catalog.requirements.length,
    });
  });
});

describe('--baseline <summary.json>', () => {
  test('taken from a faulty run, a rerun against the same server exits 0 and says the failure is known', async () => {
    const r = await runs.rerun;
    expect(r.code, failMessage(r)).toBe(0);
    expect(r.stdout).toContain('NON-CONFORMANT');
    expect(r.stdout).toMatch(/GATE PASSED: no gating requirement fails that the baseline did not/);
    const summary = readJson(path.join(dir('rerun'), 'summary.json'));
    // The verdict stays the truth about the deployment; the baseline decides the exit status only.
    expect(summary.verdict).toBe('non-conformant');
    expect(summary.baseline).toEqual({
      file: dir('faulty'),
      startedAt: readJson(path.join(dir('faulty'), 'summary.json')).startedAt,
      target: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/v1$/),
      gate: 'passed',
      newFailures: [],
      stillFailing: first.breaks,
      fixed: [],
    });
    const markdown = readFileSync(path.join(dir('rerun'), 'summary.md'), 'utf8');
    expect(markdown).toContain('### Baseline: ✅ no new failure');
    expect(markdown).toContain(`| still failing | ${first.breaks.map((id) => `\`${id}\``).join(', ')} |`);
  });

  test('a second fault on top exits 1, naming the new failure apart from the known one', async () => {
    const r = await runs.twoFaults;
    expect(r.code, failMessage(r)).toBe(1);
    const summary = readJson(path.join(dir('two-faults'), 'summary.json'));
    // New: the MUST failures of the second fault (its SHOULD one does not gate without --strict).
    const added = failedIds('two-faults', 'MUST').filter((id) => !first.breaks.includes(id));
    expect(added).toEqual(
      expect.arrayContaining(second.breaks.filter((id) => catalog.get(id)!.level === 'MUST')),
    );
    expect(summary.baseline).toMatchObject({
      gate: 'failed',
      newFailures: added,
      stillFailing: first.breaks,
      fixed: [],
    });
    expect(r.stdout).toMatch(new RegExp(`new failures: +${added.join(', ')}`));
    expect(r.stdout).toMatch(new RegExp(`still failing: +${first.breaks.join(', ')}`));
    expect(r.stdout).toContain('GATE FAILED');
    expect(readFileSync(path.join(dir('two-faults'), 'summary.md'), 'utf8')).toContain(
      `### Baseline: ❌ ${added.length} new failure${added.length === 1 ? '' : 's'}`,
    );
  });

  test('a baseline of another gating level is refused before any check runs (exit 2, reports say why)', async () => {
    const r = await runInProcess([
      '--strict',
      '--baseline',
      dir('faulty'),
      '--report-dir',
      dir('refused'),
      '--base-url',
      'http://127.0.0.1:9/v1',
    ]);
    expect(r.code, failMessage(r)).toBe(2);
    expect(r.stderr).toMatch(
      /could not judge: --baseline .*faulty: judged without --strict \(MUST gates\), this run with --strict/,
    );
    expect(r.stdout).toBe('');
    expect(readJson(path.join(dir('refused'), 'summary.json')).error).toMatch(/^--baseline /);
  });
});

/** The rows compare prints: id, level, before, after and what the change is. */
function changedRows(stdout: string): string[][] {
  return [...stdout.matchAll(/^ {2}([A-Z0-9-]+) +(MUST|SHOULD|MAY) +(\w+) +→ (\w+) +(.+)$/gm)].map((m) =>
    m.slice(1, 6).map((s) => s!.trim()),
  );
}

describe('compare <before> <after>', () => {
  test("the reference, then a faulty server: exactly the variant's requirements, as gating regressions (exit 1)", async () => {
    const markdown = path.join(work, 'compare', 'pr-comment.md');
    const r = await runInProcess(['compare', dir('reference'), dir('faulty'), '--markdown', markdown]);
    expect(r.code, failMessage(r)).toBe(1);
    expect(changedRows(r.stdout)).toEqual(
      first.breaks.map((id) => [id, catalog.get(id)!.level, 'passed', 'failed', 'regression']),
    );
    expect(r.stdout).toMatch(/^REGRESSED: 1 gating regression · 0 fixed · 0 other changes$/m);
    const text = readFileSync(markdown, 'utf8');
    expect(text).toMatch(/^## petstore-conformance compare: ❌ regressed/);
    for (const id of first.breaks) {
      expect(text).toContain(
        `| \`${id}\` ${catalog.get(id)!.title} | ${catalog.get(id)!.level} | ✅ passed | ❌ failed | **regression** |`,
      );
    }
  });

  test('the other way round: fixed, no regression (exit 0)', async () => {
    const r = await runInProcess(['compare', path.join(dir('faulty'), 'summary.json'), dir('reference')]);
    expect(r.code, failMessage(r)).toBe(0);
    expect(changedRows(r.stdout)).toEqual(
      first.breaks.map((id) => [id, catalog.get(id)!.level, 'failed', 'passed', 'fixed']),
    );
    expect(r.stdout).toMatch(/^NO REGRESSION: /m);
  });

  test('a run with the same states: no difference (exit 0)', async () => {
    const r = await runInProcess(['compare', dir('faulty'), dir('rerun')]);
    expect(r.code, failMessage(r)).toBe(0);
    expect(r.stdout).toContain('NO DIFFERENCE');
  });

  test.each<[string, () => string[], RegExp]>([
    [
      'a missing file',
      () => [dir('reference'), path.join(work, 'nope.json')],
      /nope\.json: no such file or folder/,
    ],
    [
      'a file that is not a summary',
      () => [dir('reference'), writeFile('junit.json', '{"testsuites":[]}')],
      /junit\.json: not a petstore-conformance summary\.json/,
    ],
    [
      'a folder without summary.json',
      () => [dir('reference'), ensureDir('empty')],
      /empty is a folder without summary\.json/,
    ],
    [
      'runs of two catalogs',
      () => [dir('reference'), otherCatalog()],
      /judged against different catalogs .*: level changed LIST-OK MUST→SHOULD; compare them anyway with --allow-catalog-change/,
    ],
    ['one run only', () => [dir('reference')], /expected two runs, <before> and <after>/],
  ])('bad input, %s: exit 2 with what is wrong', async (_, args, message) => {
    const r = await runInProcess(['compare', ...args()]);
    expect(r.code, failMessage(r)).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });

  test('a mistyped command is named as such, not run as a check (exit 2)', async () => {
    const r = await runInProcess(['comprae', dir('reference'), dir('faulty')]);
    expect(r.code, failMessage(r)).toBe(2);
    expect(r.stderr).toMatch(/unknown command "comprae" \(commands: compare, merge/);
  });

  test('--allow-catalog-change compares runs of two catalogs and says how they differ', async () => {
    const r = await runInProcess(['compare', dir('reference'), otherCatalog(), '--allow-catalog-change']);
    expect(r.code, failMessage(r)).toBe(0);
    expect(r.stdout).toContain('catalogs differ: level changed LIST-OK MUST→SHOULD');
  });
});

/** A copy of the reference run's summary as another catalog would have written it (LIST-OK a SHOULD). */
function otherCatalog(): string {
  const summary = readJson(path.join(dir('reference'), 'summary.json'));
  summary.catalog.hash = 'sha256:0123456789abcdef';
  summary.results.find((r: Json) => r.id === 'LIST-OK').level = 'SHOULD';
  return writeFile('other-catalog/summary.json', JSON.stringify(summary));
}

function writeFile(name: string, content: string): string {
  const file = path.join(work, name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  return file;
}

function ensureDir(name: string): string {
  mkdirSync(path.join(work, name), { recursive: true });
  return path.join(work, name);
}

describe('merge <summary.json…> --out <dir>', () => {
  const out = path.join(work, 'fleet');
  let merged: CliResult;
  beforeAll(async () => {
    merged = await runInProcess([
      'merge',
      dir('reference'),
      path.join(dir('faulty'), 'summary.json'),
      dir('two-faults'),
      '--name',
      'reference',
      '--name',
      'one fault',
      '--name',
      'two faults',
      '--out',
      out,
    ]);
  });

  test('three runs: the verdicts on top and the list operation, row by row, as this test expects them', () => {
    expect(merged.code, failMessage(merged)).toBe(0);
    const markdown = readFileSync(path.join(out, 'fleet.md'), 'utf8');
    expect(markdown).toMatch(/^## petstore-conformance fleet: 1 of 3 deployments conformant\n/);
    expect(markdown).toContain(
      [
        '|  | reference | one fault | two faults |',
        '|---|---|---|---|',
        `| verdict | ✅ conformant | ❌ 1 MUST failed | ❌ ${failedIds('two-faults', 'MUST').length} MUST failed |`,
      ].join('\n'),
    );
    const cell = (id: string, faults: readonly Variant[]) =>
      faults.some((v) => v.breaks.includes(id)) ? '❌' : '✅';
    const expected = [
      '### GET /pets (listPets)',
      '',
      '| requirement | level | reference | one fault | two faults |',
      '|---|---|---|---|---|',
      ...catalog.requirements
        .filter((r) => r.operation === 'listPets')
        .map(
          (r) =>
            `| \`${r.id}\` ${r.title} | ${r.level} | ✅ | ${cell(r.id, [first])} | ${cell(r.id, [first, second])} |`,
        ),
      '',
    ].join('\n');
    expect(markdown).toContain(expected);
    // The second fault's requirements: a MUST fails (❌), a SHOULD fails without gating (⚠️).
    for (const id of second.breaks) {
      const r = catalog.get(id)!;
      expect(markdown).toContain(
        `| \`${id}\` ${r.title} | ${r.level} | ✅ | ✅ | ${r.level === 'MUST' ? '❌' : '⚠️'} |`,
      );
    }
    // Every operation has its section, in catalog order.
    const headings = [...markdown.matchAll(/^### (.+)$/gm)].map((m) => m[1]);
    expect(headings).toEqual([
      'any operation',
      'GET /pets (listPets)',
      'POST /pets (createPets)',
      'GET /pets/{petId} (showPetById)',
      'GET /store/orders (listStoreOrders)',
    ]);
  });

  test('a shields.io endpoint badge per deployment', () => {
    const badge = (name: string) => readJson(path.join(out, 'badges', `${name}.json`));
    expect(badge('reference')).toEqual({
      schemaVersion: 1,
      label: 'pets conformance',
      message: 'conformant',
      color: 'brightgreen',
    });
    expect(badge('one-fault')).toMatchObject({ message: '1 MUST failed', color: 'red' });
    expect(badge('two-faults')).toMatchObject({
      message: `${failedIds('two-faults', 'MUST').length} MUST failed`,
      color: 'red',
    });
  });

  test('fleet.html: one self-contained page with the same table', () => {
    const page = readFileSync(path.join(out, 'fleet.html'), 'utf8');
    expect(page).toMatch(/^<!doctype html>/);
    expect(page).not.toMatch(/<script|<link|src=|href=|@import|url\(/i);
    expect(page).toContain('<title>petstore-conformance fleet: 1 of 3 deployments conformant</title>');
    const row = page.split('\n').find((line) => line.includes(`<code>${first.breaks[0]}</code>`));
    expect(row?.match(/<td class="c (\w+)"/g)).toEqual([
      '<td class="c passed"',
      '<td class="c failed"',
      '<td class="c failed"',
    ]);
    // The failure's evidence travels in the cell's title.
    expect(row).toMatch(/<td class="c failed" title="expected status 400/);
  });

  test("bad input writes nothing: a missing run, or an --out folder that is not merge's (exit 2)", async () => {
    const missing = await runInProcess([
      'merge',
      dir('reference'),
      path.join(work, 'gone'),
      '--out',
      dir('fleet-2'),
    ]);
    expect(missing.code, failMessage(missing)).toBe(2);
    expect(missing.stderr).toMatch(/gone: no such file or folder/);
    expect(existsSync(dir('fleet-2'))).toBe(false);
    const foreign = writeFile('mine/notes.txt', 'keep me');
    const taken = await runInProcess(['merge', dir('reference'), '--out', path.dirname(foreign)]);
    expect(taken.code, failMessage(taken)).toBe(2);
    expect(taken.stderr).toMatch(/mine holds files merge did not write \(notes\.txt\)/);
    expect(readFileSync(foreign, 'utf8')).toBe('keep me');
  });
});

describe.concurrent('help', () => {
  test('--help names --baseline and the two commands; each command has a --help of its own', async () => {
    const [main, compare, merge] = await Promise.all([
      runInProcess(['--help']),
      runInProcess(['compare', '--help']),
      runInProcess(['merge', '--help']),
    ]);
    for (const r of [main, compare, merge]) expect(r.code, failMessage(r)).toBe(0);
    expect(main.stdout).toContain('--baseline <summary.json>');
    expect(main.stdout).toMatch(/petstore-conformance compare <before> <after>/);
    expect(main.stdout).toMatch(/petstore-conformance merge <summary\.json…> --out <dir>/);
    expect(compare.stdout).toMatch(/^Usage: petstore-conformance compare .*--allow-catalog-change/);
    expect(merge.stdout).toMatch(/^Usage: petstore-conformance merge .*--name <name>/);
  });
});

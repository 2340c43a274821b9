// The real command, as a child process, against the reference implementation and against servers
// with one deliberate fault. Runs are started up front, two at a time, and shared by the assertions.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadCatalog } from '../../catalog/catalog.ts';
import { packageVersion } from '../../catalog/paths.ts';
import {
  build,
  type CliResult,
  failMessage,
  filesUnder,
  type Json,
  ROOT,
  readJson,
  runCli,
} from '../helpers/cli.ts';
import { slots } from '../helpers/slots.ts';
import { acceptAnyLimit } from '../variants/faulty/list.ts';
import { goneInsteadOfNotFound } from '../variants/faulty/show.ts';
import { closedPort, garbage, neverAnswers as hangs, type Raw } from '../variants/servers/hostile.ts';
import { reference } from '../variants/servers/reference.ts';
import { installPacked, useLibrary } from './packaged.ts';

const catalog = loadCatalog();
const SECRET = 'pcs-SECRET-7f3a9c-do-not-print';
const work = mkdtempSync(path.join(tmpdir(), 'petstore-conformance-cli-'));
const dir = (name: string) => path.join(work, name);

type Server = Raw;
const servers: Record<string, Server> = {};
const runs: Record<string, Promise<CliResult>> = {};
/** The project that installed the packed tarball (see packaged.ts). */
let installed: Promise<string>;
/** What import('petstore-conformance') gave in that project (before its spec is broken on purpose). */
let library: ReturnType<typeof useLibrary>;

beforeAll(async () => {
  await build();
  servers.faulty = await reference({ wrap: acceptAnyLimit, apiKey: SECRET });
  servers.shouldFault = await reference({ wrap: goneInsteadOfNotFound });
  servers.hangs = await hangs();
  servers.garbage = await garbage();
  // Packing and installing is mostly disk and network: it starts at once, beside the runs.
  installed = installPacked(work);
  // Two runs at a time: each one starts vitest workers of its own, and the machine has two cores.
  const next = slots(2);
  const cli = (args: string[], options: Parameters<typeof runCli>[1] = {}) =>
    next(() => runCli(args, options));
  // A first look: no target, the default report folder under the working folder, the HTML report.
  runs.first = cli(['--html'], { cwd: work });
  runs.faulty = cli([
    '--base-url',
    servers.faulty.url,
    '--api-key',
    SECRET,
    '--auth-required',
    '--report-dir',
    dir('faulty'),
  ]);
  // Read-only and --only against the SHOULD fault without --strict, into the default folder again:
  // the first run moves to reports/previous.
  runs.readOnly = runs.first.then(() =>
    cli(['--base-url', servers.shouldFault!.url, '--read-only', '--only', 'LIST,SHOW'], { cwd: work }),
  );
  runs.strict = cli([
    '--base-url',
    servers.shouldFault.url,
    '--only',
    'SHOW',
    '--strict',
    '--report-dir',
    dir('strict'),
  ]);
  runs.hangs = cli([
    '--base-url',
    servers.hangs.url,
    '--only',
    'LIST-OK',
    '--timeout-ms',
    '500',
    '--report-dir',
    dir('hangs'),
  ]);
  runs.garbage = cli([
    '--base-url',
    servers.garbage.url,
    '--only',
    'LIST-OK',
    '--report-dir',
    dir('garbage'),
  ]);
  // The suite itself broken, or stuck past every timeout: main() with a fixture suite in place of suites/.
  const withFixture = (fixture: string) => [
    process.execPath,
    path.join(ROOT, 'test/cli/fixtures/run-with.mjs'),
    fixture,
  ];
  runs.broken = cli(['--report-dir', dir('broken')], { command: withFixture('broken') });
  runs.buggy = cli(['--only', 'LIST-OK', '--report-dir', dir('buggy')], { command: withFixture('buggy') });
  // Mostly waiting for its deadline: outside the queue.
  runs.stuck = runCli(['--only', 'LIST', '--report-dir', dir('stuck')], { command: withFixture('stuck') });
  // From a project that installed the package: `npx petstore-conformance`, then with a broken spec.
  const npx = ['npx', '--no-install', 'petstore-conformance'];
  runs.packed = installed.then((project) =>
    cli(['--report-dir', 'reports/pack'], { cwd: project, command: npx, timeoutMs: 120_000 }),
  );
  library = installed.then((project) => useLibrary(project));
  runs.packedInvalidSpec = Promise.all([installed, runs.packed, library.catch(() => undefined)]).then(
    ([project]) => {
      // The installed copy is the consumer's own; breaking it touches nothing of the repository.
      const openapi = path.join(project, 'node_modules', 'petstore-conformance', 'spec', 'openapi.yaml');
      writeFileSync(openapi, readFileSync(openapi, 'utf8').replace(/^openapi: 3\.1\.0$/m, 'openapi: banana'));
      return cli(['--report-dir', 'reports/invalid'], { cwd: project, command: npx });
    },
  );
  // Let every run settle before any assertion, so that a failing assertion leaves no child behind.
  await Promise.allSettled([installed, library, ...Object.values(runs)]);
}, 300_000);

afterAll(async () => {
  await Promise.all(Object.values(servers).map((s) => s.close()));
  rmSync(work, { recursive: true, force: true });
});

const resultOf = (summary: Json, id: string) => summary.results.find((r: Json) => r.id === id);

describe('a first look: no target, the bundled reference implementation', () => {
  test('is conformant: exit 0, with the seed printed at the start and the verdict at the end', async () => {
    const r = await runs.first!;
    expect(r.code, failMessage(r)).toBe(0);
    expect(r.stdout).toMatch(/^seed: +\d+/m);
    expect(r.stdout).toContain('CONFORMANT');
    expect(r.stdout).toMatch(/reports: reports[/\\]latest/);
  });

  test('prints no warning of Node or of the tools it runs: its stderr holds nothing', async () => {
    const r = await runs.first!;
    expect(r.stderr).toBe('');
  });

  test('writes summary.json exactly as CONTRACT.md gives it: one result per requirement, in catalog order', async () => {
    await runs.readOnly; // by then the first run's reports sit in reports/previous
    const summary = readJson(path.join(work, 'reports', 'previous', 'summary.json'));
    expect(summary.tool).toEqual({ name: 'petstore-conformance', version: packageVersion() });
    expect(summary.target).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(new Date(summary.startedAt).toISOString()).toBe(summary.startedAt);
    expect(summary.durationMs).toBeGreaterThan(0);
    expect(Number.isInteger(summary.seed)).toBe(true);
    expect(summary.options).toMatchObject({ readOnly: false, strict: false, authRequired: false });
    expect(summary.verdict).toBe('conformant');
    expect(summary.results.map((r: Json) => r.id)).toEqual(catalog.requirements.map((r) => r.id));
    for (const r of summary.results) {
      expect(['MUST', 'SHOULD', 'MAY']).toContain(r.level);
      expect(['passed', 'failed', 'skipped']).toContain(r.status);
      expect(r.title).toBe(catalog.get(r.id)?.title);
    }
    const count = (s: string) => summary.results.filter((r: Json) => r.status === s).length;
    expect(summary.totals).toEqual({
      passed: count('passed'),
      failed: count('failed'),
      skipped: count('skipped'),
      blocked: summary.results.filter((r: Json) => r.blockedBy !== undefined).length,
    });
    expect(resultOf(summary, 'AUTH-MISSING-KEY-REFUSED')).toMatchObject({
      status: 'skipped',
      message: expect.any(String),
    });
  });

  test('writes JUnit (one testcase per requirement), Markdown, Allure results and the HTML report', async () => {
    await runs.readOnly;
    const previous = path.join(work, 'reports', 'previous');
    const junit = new XMLParser({ ignoreAttributes: false }).parse(
      readFileSync(path.join(previous, 'junit.xml'), 'utf8'),
    );
    const suites = [junit.testsuites.testsuite].flat();
    const cases = suites.flatMap((s: Json) => [s.testcase].flat());
    expect(cases).toHaveLength(catalog.requirements.length);
    expect(cases.map((c: Json) => c['@_name'].split(' ')[0]).sort()).toEqual(
      catalog.requirements.map((r) => r.id).sort(),
    );
    expect(cases.find((c: Json) => c['@_name'].startsWith('LIST-OK '))['@_classname']).toBe('listPets');
    const markdown = readFileSync(path.join(previous, 'summary.md'), 'utf8');
    expect(markdown).toContain('conformant');
    expect(markdown).toContain('| `LIST-LIMIT-OVER-MAX` | MUST |');
    expect(filesUnder(path.join(previous, 'allure-results')).some((f) => f.endsWith('-result.json'))).toBe(
      true,
    );
    expect(existsSync(path.join(previous, 'allure-report', 'index.html'))).toBe(true);
  });
});

describe('a server with one deliberate MUST fault, a key and --auth-required', () => {
  test('is non-conformant: exit 1, LIST-LIMIT-OVER-MAX failed with what came back and a curl line', async () => {
    const r = await runs.faulty!;
    expect(r.code, failMessage(r)).toBe(1);
    const summary = readJson(path.join(dir('faulty'), 'summary.json'));
    expect(summary.verdict).toBe('non-conformant');
    expect(summary.options.authRequired).toBe(true);
    const failed = resultOf(summary, 'LIST-LIMIT-OVER-MAX');
    expect(failed).toMatchObject({ status: 'failed', level: 'MUST' });
    expect(failed.message).toMatch(/\S/);
    expect(failed.reproduce).toMatch(/^curl .*limit=/);
    expect(resultOf(summary, 'AUTH-KEY-ACCEPTED').status).toBe('passed');
    expect(resultOf(summary, 'AUTH-MISSING-KEY-REFUSED').status).toBe('passed');
    expect(r.stdout).toContain('NON-CONFORMANT');
    expect(r.stdout).toMatch(/LIST-LIMIT-OVER-MAX.*\n(.*\n)*? +reproduce: curl /);
    const junit = readFileSync(path.join(dir('faulty'), 'junit.xml'), 'utf8');
    expect(junit).toMatch(/name="LIST-LIMIT-OVER-MAX [^"]*"[^>]*>\s*<failure message="[^"]+" type="MUST">/);
  });

  test('never writes the API key: in no report file, on neither stdout nor stderr', async () => {
    const r = await runs.faulty!;
    const spellings = [SECRET, encodeURIComponent(SECRET), SECRET.slice(4, 20)];
    const files = filesUnder(dir('faulty'));
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) {
      const text = readFileSync(path.join(dir('faulty'), file), 'latin1');
      for (const s of spellings) expect(text.includes(s), `${file} holds the key`).toBe(false);
    }
    for (const s of spellings) {
      expect(r.stdout.includes(s)).toBe(false);
      expect(r.stderr.includes(s)).toBe(false);
    }
  });
});

describe('--read-only and --only', () => {
  test('skip with their own reasons, and the previous run is kept in reports/previous', async () => {
    const r = await runs.readOnly!;
    expect(r.code, failMessage(r)).toBe(0);
    const summary = readJson(path.join(work, 'reports', 'latest', 'summary.json'));
    expect(summary.options).toMatchObject({ readOnly: true });
    for (const req of catalog.requirements) {
      const result = resultOf(summary, req.id);
      if (!/^(LIST|SHOW)/.test(req.id)) {
        expect(result, req.id).toMatchObject({ status: 'skipped', message: 'not selected by --only' });
      } else if (req.needs.includes('write')) {
        expect(result.status, req.id).toBe('skipped');
        expect(result.message, req.id).toMatch(/--read-only/);
      }
    }
    expect(existsSync(path.join(work, 'reports', 'previous', 'summary.json'))).toBe(true);
  });
});

describe('a SHOULD-only fault', () => {
  test('fails the run with --strict (exit 1)', async () => {
    const r = await runs.strict!;
    expect(r.code, failMessage(r)).toBe(1);
    const summary = readJson(path.join(dir('strict'), 'summary.json'));
    expect(summary.verdict).toBe('non-conformant');
    expect(resultOf(summary, 'SHOW-UNKNOWN-404')).toMatchObject({ status: 'failed', level: 'SHOULD' });
    expect(resultOf(summary, 'SHOW-UNKNOWN-NOT-2XX').status).toBe('passed');
  });

  test('is reported but does not fail the run without --strict (exit 0)', async () => {
    const r = await runs.readOnly!;
    expect(r.code, failMessage(r)).toBe(0);
    const summary = readJson(path.join(work, 'reports', 'latest', 'summary.json'));
    expect(summary.verdict).toBe('conformant');
    expect(resultOf(summary, 'SHOW-UNKNOWN-404')).toMatchObject({ status: 'failed', level: 'SHOULD' });
    expect(r.stdout).toMatch(/SHOW-UNKNOWN-404 +SHOULD +failed \(not gating\)/);
  });
});

describe('a misbehaving server fails requirements (exit 1), in bounded time', () => {
  test.each(['hangs', 'garbage'])('a server that %s', async (name) => {
    const r = await runs[name]!;
    expect(r.code, failMessage(r)).toBe(1);
    expect(resultOf(readJson(path.join(dir(name), 'summary.json')), 'LIST-OK').status).toBe('failed');
  });
});

describe('installed as a dependency of another project (npm pack, npm install <tarball>)', () => {
  test('the package ships what runs: the command, dist/, the spec and the suites; prepack builds', async () => {
    expect(readJson(path.join(ROOT, 'package.json')).scripts.prepack).toBe('npm run build');
    const pkg = path.join(await installed, 'node_modules', 'petstore-conformance');
    for (const file of [
      'bin/petstore-conformance.js',
      'dist/cli/main.js',
      'dist/reference-impl/index.js',
      'spec/requirements.yaml',
      'suites/vitest.shared.ts',
    ]) {
      expect(existsSync(path.join(pkg, file)), file).toBe(true);
    }
  });

  test("import('petstore-conformance') gives the documented library API; deep imports stay private", async () => {
    const used = await library;
    expect(used.exports).toEqual(
      expect.arrayContaining(['EXIT', 'createReferenceHandler', 'main', 'startReferenceServer']),
    );
    expect(used.listStatus).toBe(200);
    expect(used.version).toBe(packageVersion());
    expect(used.deepImport).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');
    const pkg = path.join(await installed, 'node_modules', 'petstore-conformance');
    expect(existsSync(path.join(pkg, 'dist', 'index.d.ts'))).toBe(true);
    expect(existsSync(path.join(pkg, 'LICENSE'))).toBe(true);
  });

  test('npx petstore-conformance checks the bundled reference implementation: exit 0 and summary.json', async () => {
    const r = await runs.packed!;
    expect(r.code, failMessage(r)).toBe(0);
    const summary = readJson(path.join(await installed, 'reports', 'pack', 'summary.json'));
    expect(summary.verdict).toBe('conformant');
    expect(summary.results).toHaveLength(catalog.requirements.length);
  });

  test('an invalid OpenAPI document: could not judge (exit 2) before any test runs', async () => {
    const r = await runs.packedInvalidSpec!;
    expect(r.code, failMessage(r)).toBe(2);
    expect(r.stderr).toMatch(/could not judge: the spec is invalid: .*openapi\.yaml/);
    const summary = readJson(path.join(await installed, 'reports', 'invalid', 'summary.json'));
    expect(summary.verdict).toBe('could-not-judge');
    expect(summary.error).toMatch(/^the spec is invalid: .*openapi\.yaml/);
  });
});

describe('a suite that breaks or gets stuck', () => {
  test('a suite file that does not load: could not judge (exit 2), naming the file, in summary.json too', async () => {
    const r = await runs.broken!;
    expect(r.code, failMessage(r)).toBe(2);
    expect(r.stderr).toMatch(/suite file test\/cli\/fixtures\/broken\/broken\.check\.ts failed to load/);
    expect(r.stderr).toContain('could not judge');
    const summary = readJson(path.join(dir('broken'), 'summary.json'));
    expect(summary).toMatchObject({
      verdict: 'could-not-judge',
      totals: { passed: 0, failed: 0, skipped: 0 },
    });
    expect(summary.error).toMatch(/^the suite itself broke: suite file .*broken\.check\.ts failed to load/);
    expect(existsSync(path.join(dir('broken'), 'junit.xml'))).toBe(false);
  });

  test('an exception of a check itself (not an HTTP expectation): could not judge (exit 2), naming the check', async () => {
    const r = await runs.buggy!;
    expect(r.code, failMessage(r)).toBe(2);
    expect(r.stderr).toMatch(
      /could not judge: the suite failed in LIST-OK listing pets answers 200 with a JSON array: TypeError: .*\(.*buggy\.check\.ts:\d+:\d+\)/,
    );
    const summary = readJson(path.join(dir('buggy'), 'summary.json'));
    expect(summary.verdict).toBe('could-not-judge');
    expect(summary.error).toMatch(/^the suite failed in LIST-OK/);
    expect(resultOf(summary, 'LIST-OK').status).toBe('skipped');
  });

  test('a test that never yields: the run is cut at its deadline, the unfinished checks fail (exit 1)', async () => {
    const r = await runs.stuck!;
    expect(r.code, failMessage(r)).toBe(1);
    const summary = readJson(path.join(dir('stuck'), 'summary.json'));
    expect(resultOf(summary, 'LIST-OK')).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/deadline/),
    });
    // Cancelled by the deadline in a worker that was not stuck: vitest says "skipped, aborted"; they failed.
    for (const id of ['LIST-LIMIT-FILLS', 'LIST-LIMIT-DEFAULT']) {
      expect(resultOf(summary, id), id).toMatchObject({
        status: 'failed',
        message: expect.stringMatching(/not finished before the run's deadline/),
      });
    }
    expect(JSON.stringify(summary)).not.toContain('aborted by the user');
    expect(resultOf(summary, 'CREATE-OK').status).toBe('skipped');
    expect(r.stderr).toContain('deadline');
  });
});

describe.concurrent('could not judge: exit 2 with one line saying what to fix', () => {
  test.each([
    [['--bogus'], /unknown option --bogus/],
    [['--seed', 'abc'], /--seed takes a whole number/],
    [['--target', 'staging'], /PETSTORE_STAGING_URL/],
    [['--base-url', 'ftp://x/v1'], /http or https/],
  ])('options that do not parse: %j, and no report', async (args, message) => {
    const r = await runCli([...args, '--report-dir', dir('never')]);
    expect(r.code, failMessage(r)).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
    expect(existsSync(dir('never'))).toBe(false);
  });

  /** A report folder holding an earlier run's conformant verdict, which a could-not-judge run must not leave in place. */
  function previousRun(name: string): string {
    const folder = dir(name);
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, 'summary.json'), '{"verdict":"conformant","stale":true}\n');
    writeFileSync(path.join(folder, 'summary.md'), 'stale\n');
    return folder;
  }

  /** summary.json and summary.md of a run that could not judge; the earlier run moved to <dir>.previous. */
  function expectCannotJudgeReports(folder: string, reason: RegExp): void {
    const summary = readJson(path.join(folder, 'summary.json'));
    expect(summary.verdict).toBe('could-not-judge');
    expect(summary.error).toMatch(reason);
    expect(summary.totals).toEqual({ passed: 0, failed: 0, skipped: 0, blocked: 0 });
    expect(summary.results).toHaveLength(catalog.requirements.length);
    for (const result of summary.results) {
      expect(result.status).toBe('skipped');
      expect(result.message).toBe(`could not judge: ${summary.error}`);
    }
    const markdown = readFileSync(path.join(folder, 'summary.md'), 'utf8');
    expect(markdown).toContain('could not judge');
    expect(markdown).not.toContain('stale');
    expect(readJson(path.join(`${folder}.previous`, 'summary.json'))).toEqual({
      verdict: 'conformant',
      stale: true,
    });
  }

  test('--only that selects nothing', async () => {
    const folder = previousRun('only-nothing');
    const r = await runCli(['--only', 'NOPE', '--report-dir', folder]);
    expect(r.code, failMessage(r)).toBe(2);
    expect(r.stderr).toMatch(/--only NOPE selects no requirement/);
    expect(r.stdout).toBe('');
    expectCannotJudgeReports(folder, /^--only NOPE selects no requirement/);
  });

  test('an unreachable target (a closed port): summary.json says so, the previous run moves aside', async () => {
    const port = await closedPort();
    const folder = previousRun('unreachable');
    const r = await runCli(['--report-dir', folder], {
      env: { PETSTORE_BASE_URL: `http://127.0.0.1:${port}/v1` },
    });
    expect(r.code, failMessage(r)).toBe(2);
    expect(r.stderr).toMatch(/target unreachable: 127\.0\.0\.1:\d+: connection refused/);
    expectCannotJudgeReports(folder, /^target unreachable: 127\.0\.0\.1:\d+: connection refused/);
    expect(readJson(path.join(folder, 'summary.json')).target).toBe(`http://127.0.0.1:${port}/v1`);
  });
});

describe.concurrent('--help and --version', () => {
  test('--help names every option and environment variable, with an example per kind of user', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    for (const word of [
      '--base-url',
      '--target',
      '--api-key',
      '--api-key-header',
      '--api-key-query',
      '--auth-required',
      '--read-only',
      '--strict',
      '--only',
      '--seed',
      '--timeout-ms',
      '--report-dir',
      '--html',
      '--version',
      'PETSTORE_BASE_URL',
      'PETSTORE_API_KEY',
      'PETSTORE_PRODUCTION_URL',
      'PETSTORE_STAGING_URL',
      'First look',
      'QA against staging',
      'CI gate',
      'implementer',
      'Production smoke check',
    ]) {
      expect(r.stdout).toContain(word);
    }
  });

  test('--version prints the version of the package', async () => {
    const r = await runCli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(packageVersion());
  });
});

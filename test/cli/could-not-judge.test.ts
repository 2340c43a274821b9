// A run that cannot judge some requirements keeps what it judged (issue 36 item 3), and one cause is
// one line (issue 35 item 3): the real command against the reference asking for a key the run is not
// given, and against a store that is full before the run or fills up during it. Each exits 2 with
// the verdict could-not-judge, fails nothing, and writes every report of what it did judge.
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../reference-impl/index.ts';
import { build, type CliResult, failMessage, type Json, readJson, runInProcess } from '../helpers/cli.ts';
import { busyStore } from '../variants/faulty/lived.ts';
import { reference } from '../variants/servers/reference.ts';

let work = '';
beforeAll(async () => {
  await build();
  work = await mkdtemp(path.join(tmpdir(), 'petstore-cannot-judge-'));
}, 180_000);
afterAll(() => rm(work, { recursive: true, force: true }));

interface Run {
  cli: CliResult;
  dir: string;
  summary: Json;
}

/** The command against a server started for the test, with its reports in `name`. */
async function runAgainst(server: RunningServer, name: string, args: string[] = []): Promise<Run> {
  const dir = path.join(work, name);
  try {
    const cli = await runInProcess(['--base-url', server.url, '--seed', '7', '--report-dir', dir, ...args], {
      timeoutMs: 120_000,
    });
    return { cli, dir, summary: readJson(path.join(dir, 'summary.json')) };
  } finally {
    await server.close();
  }
}

const failedIds = (summary: Json) =>
  (summary.results as Json[]).filter((r) => r.status === 'failed').map((r) => r.id);

describe('a deployment that asks for a key the run was not given', () => {
  let run: Run;
  beforeAll(async () => {
    run = await runAgainst(await reference({ apiKey: 'a-key-the-run-has-not' }), 'no-key');
  }, 150_000);

  test('exit 2 and one line saying to give --api-key, not a red per requirement', () => {
    expect(run.cli.code, failMessage(run.cli)).toBe(2);
    expect(run.cli.stderr.trim().split('\n')).toEqual([
      'petstore-conformance: could not judge: the deployment answers 401 to requests without a key (GET /pets answered 401): give --api-key (or PETSTORE_API_KEY)',
    ]);
    expect(run.cli.stdout).not.toMatch(/✗|FAILED|blocked by/);
    // Its cause is printed once as checks end, not once per requirement.
    expect(run.cli.stdout.match(/not judged: the deployment answers 401/g)).toHaveLength(1);
  });

  test('summary.json says could-not-judge, fails nothing, and lists the gating requirements not judged', () => {
    const { summary } = run;
    expect(summary.verdict).toBe('could-not-judge');
    expect(summary.error).toMatch(/^the deployment answers 401 to requests without a key/);
    expect(failedIds(summary)).toEqual([]);
    expect(summary.notJudged).toEqual(expect.arrayContaining(['LIST-OK', 'CREATE-OK', 'SHOW-OK']));
    const listOk = (summary.results as Json[]).find((r) => r.id === 'LIST-OK');
    expect(listOk).toMatchObject({ status: 'skipped', message: expect.stringMatching(/^not judged: /) });
  });
});

describe('a store that is full before the run (the reference answers 409 "the store is full")', () => {
  let run: Run;
  const events = () => path.join(work, 'full.ndjson');
  beforeAll(async () => {
    run = await runAgainst(await reference({ store: busyStore(5000, 5000) }), 'full', [
      '--html',
      '--events',
      events(),
    ]);
  }, 150_000);

  test('could not judge the checks that need creates, naming the server own answer; fails nothing', () => {
    expect(run.cli.code, failMessage(run.cli)).toBe(2);
    expect(run.summary.verdict).toBe('could-not-judge');
    expect(run.summary.error).toMatch(
      /^the deployment takes no more pets: POST \/pets of a valid pet with a new id answered 409, .*the store is full/,
    );
    // Not schema failures, not 5xx failures: no failure at all.
    expect(failedIds(run.summary)).toEqual([]);
    expect(run.summary.notJudged).toEqual(expect.arrayContaining(['CREATE-OK', 'CREATE-PERSISTED']));
    // What needs no create was judged, and passed.
    const status = (id: string) => (run.summary.results as Json[]).find((r) => r.id === id)?.status;
    expect(['LIST-OK', 'LIST-LIMIT-OVER-MAX', 'SHOW-UNKNOWN-404'].map(status)).toEqual([
      'passed',
      'passed',
      'passed',
    ]);
  });

  test('every report is written, with the judged results kept', () => {
    for (const file of [
      'junit.xml',
      'summary.md',
      'ctrf-report.json',
      'exchanges.har',
      'allure-report/index.html',
    ])
      expect(existsSync(path.join(run.dir, file)), file).toBe(true);
    const junit = readFileSync(path.join(run.dir, 'junit.xml'), 'utf8');
    expect(junit).toMatch(/<testcase [^>]*name="LIST-OK [^"]*"[^>]*\/>/);
    expect(junit).toMatch(
      /name="CREATE-OK [^"]*"[^>]*>\s*<skipped message="not judged: the deployment takes no more pets/,
    );
    const md = readFileSync(path.join(run.dir, 'summary.md'), 'utf8');
    expect(md).toMatch(/^## petstore-conformance: ⚠️ could not judge/);
    expect(md).toContain('Not judged, at the gating level: `');
    expect(md).toMatch(/\| `LIST-OK` \| MUST \| ✅ passed \|/);
    const lines = readFileSync(events(), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const end = lines.at(-1);
    expect(end).toMatchObject({ type: 'run-end', verdict: 'could-not-judge', exitStatus: 2 });
    expect(end.notJudged).toEqual(run.summary.notJudged);
  });
});

describe('a store that fills up during the run', () => {
  test('what was judged before it filled is kept; nothing fails for the refusals', async () => {
    // 3000 pets of others, room for 120 more: a run creates some 230.
    const run = await runAgainst(await reference({ store: busyStore(3000, 3120) }), 'fills');
    expect(run.cli.code, failMessage(run.cli)).toBe(2);
    expect(run.summary.verdict).toBe('could-not-judge');
    expect(failedIds(run.summary)).toEqual([]);
    expect(run.summary.traffic.creates).toBe(120);
    expect(run.summary.totals.passed).toBeGreaterThan(10);
  }, 150_000);
});

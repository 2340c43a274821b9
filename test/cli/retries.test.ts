// --retries against a flaky network: the reference behind a server that resets the connection of one
// GET in fifteen. With --retries 2 the run is conformant and the requirements whose checks met a reset
// are passed, marked flaky, in every report; without it the run fails ANY-HTTP-MESSAGE, once, naming
// the reset and --retries, and the checks the resets hit are blocked by it rather than failed each.
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../reference-impl/index.ts';
import { build, type CliResult, failMessage, type Json, readJson, runInProcess } from '../helpers/cli.ts';
import { resetsOneGetIn } from '../variants/servers/flaky.ts';
import { reference } from '../variants/servers/reference.ts';

let work = '';
const runs: Record<'retried' | 'plain', CliResult> = {} as never;

async function against(name: keyof typeof runs, args: string[]): Promise<void> {
  const server: RunningServer = await reference({ wrap: resetsOneGetIn(15) });
  try {
    runs[name] = await runInProcess(
      ['--base-url', server.url, '--strict', '--seed', '7', '--report-dir', path.join(work, name), ...args],
      { timeoutMs: 120_000 },
    );
  } finally {
    await server.close();
  }
}

beforeAll(async () => {
  await build();
  work = await mkdtemp(path.join(tmpdir(), 'petstore-conformance-retries-'));
  await against('retried', ['--retries', '2']);
  await against('plain', []);
}, 300_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('--retries 2 against a network that resets one GET in fifteen', () => {
  test('the run is conformant, with the requirements that met a reset passed and flaky', () => {
    const r = runs.retried;
    expect(r.code, failMessage(r)).toBe(0);
    const summary = readJson(path.join(work, 'retried', 'summary.json'));
    expect(summary.options.retries).toBe(2);
    const flaky = summary.results.filter((x: Json) => x.flaky);
    expect(flaky.length, failMessage(r)).toBeGreaterThan(0);
    for (const x of flaky) {
      expect(x.status).toBe('passed');
      expect(x.retries).toBeGreaterThan(0);
      expect(x.retried[0]).toMatch(/^GET \/v1\/\S*: .*before the status line and headers arrived/);
    }
    expect(summary.totals.flaky).toBe(flaky.length);
    expect(r.stdout).toContain(
      `Flaky (${flaky.length}): passed only after a request was sent again (--retries)`,
    );
    expect(r.stdout).toMatch(/passed \(\d+ flaky\)/);
  });

  test('JUnit writes each flaky requirement as Maven Surefire writes a test that passed on a rerun', () => {
    const summary = readJson(path.join(work, 'retried', 'summary.json'));
    const flakyIds = summary.results.filter((x: Json) => x.flaky).map((x: Json) => x.id);
    const junit = new XMLParser({ ignoreAttributes: false }).parse(
      readFileSync(path.join(work, 'retried', 'junit.xml'), 'utf8'),
    );
    const cases = [junit.testsuites.testsuite].flat().flatMap((s: Json) => [s.testcase].flat());
    const withFlaky = cases.filter((c: Json) => c.flakyFailure !== undefined);
    expect(withFlaky.map((c: Json) => c['@_name'].split(' ')[0]).sort()).toEqual([...flakyIds].sort());
    for (const c of withFlaky) {
      expect(c.failure).toBeUndefined();
      const first = [c.flakyFailure].flat()[0];
      expect(first['@_type']).toBe('transport');
      expect(first.stackTrace).toContain('sent again with --retries');
    }
  });

  test('the CTRF report marks them flaky with their retries, and stays valid CTRF', async () => {
    const summary = readJson(path.join(work, 'retried', 'summary.json'));
    const ctrf = readJson(path.join(work, 'retried', 'ctrf-report.json'));
    const flaky = ctrf.results.tests.filter((t: Json) => t.flaky);
    expect(flaky.map((t: Json) => t.testId).sort()).toEqual(
      summary.results
        .filter((x: Json) => x.flaky)
        .map((x: Json) => x.id)
        .sort(),
    );
    for (const t of flaky) {
      expect(t.status).toBe('passed');
      expect(t.retries).toBe(summary.results.find((x: Json) => x.id === t.testId).retries);
    }
    const { validate } = await import('ctrf');
    expect(validate(ctrf)).toEqual({ valid: true, errors: [] });
  });

  test("summary.md and the Allure results mark them flaky (the requirement's verdict, and the check that needed retries)", () => {
    const summary = readJson(path.join(work, 'retried', 'summary.json'));
    const [first] = summary.results.filter((x: Json) => x.flaky);
    const markdown = readFileSync(path.join(work, 'retried', 'summary.md'), 'utf8');
    expect(markdown).toContain('### Flaky: passed only after a request was sent again (`--retries`)');
    expect(markdown).toMatch(new RegExp(`\\| \`${first.id}\` \\| \\w+ \\| ✅ passed \\(flaky: \\d+ retr`));
    const dir = path.join(work, 'retried', 'allure-results');
    const results = readdirSync(dir)
      .filter((f: string) => f.endsWith('-result.json'))
      .map((f: string) => readJson(path.join(dir, f)));
    const checks = results.filter((x: Json) =>
      x.labels.some((l: Json) => l.name === 'requirement' && l.value === first.id),
    );
    expect(checks.length).toBeGreaterThan(0);
    expect(checks.every((x: Json) => x.status === 'passed')).toBe(true);
    expect(
      checks.some((x: Json) => x.labels.some((l: Json) => l.name === 'tag' && l.value === 'flaky')),
    ).toBe(true);
  });
});

describe('without --retries, the same network', () => {
  test('fails the run on one cause, ANY-HTTP-MESSAGE, naming the reset and --retries', () => {
    const r = runs.plain;
    expect(r.code, failMessage(r)).toBe(1);
    const summary = readJson(path.join(work, 'plain', 'summary.json'));
    const failed = summary.results.filter((x: Json) => x.status === 'failed');
    expect(failed.length, failMessage(r)).toBeLessThanOrEqual(2);
    const message = failed.find((x: Json) => x.id === 'ANY-HTTP-MESSAGE');
    expect(message, failMessage(r)).toBeDefined();
    expect(`${message.expected} ${message.received}`).toMatch(/connection reset by the server/);
    expect(message.expected).toContain('--retries');
    // the checks the resets hit are blocked by it, not failed each for a reset they happened to meet
    const blocked = summary.results.filter((x: Json) => x.blockedBy?.includes('ANY-HTTP-MESSAGE'));
    expect(blocked.length, failMessage(r)).toBeGreaterThan(0);
    expect(summary.results.some((x: Json) => x.flaky)).toBe(false);
  });
});

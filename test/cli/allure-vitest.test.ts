// The suites run straight with vitest (`vitest run --config suites/vitest.config.ts`, as suites/README.md
// says) report to Allure: allure-vitest's reporter writes a result per check, with what the harness
// recorded inside each test (suites/harness/requirement/report.ts), into PETSTORE_ALLURE_RESULTS.
// Against a server with one fault, LIST-LIMIT-OVER-MAX alone selected.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestResult } from 'allure-js-commons';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type CliResult, ROOT, runCli } from '../helpers/cli.ts';
import { acceptAnyLimit } from '../variants/faulty/list.ts';
import { reference } from '../variants/servers/reference.ts';

const SECRET = 'pcs-ALLURE-VITEST-91c2-do-not-print';
const resultsDir = mkdtempSync(path.join(tmpdir(), 'petstore-conformance-allure-vitest-'));
/** vitest's command, as npm installs it: `npx vitest`. */
const vitest = path.join(ROOT, 'node_modules', '.bin', 'vitest');
let server: Awaited<ReturnType<typeof reference>> | undefined;
let run: CliResult;

beforeAll(async () => {
  server = await reference({ wrap: acceptAnyLimit, apiKey: SECRET });
  run = await runCli(['run', '--config', 'suites/vitest.config.ts'], {
    command: [vitest],
    env: {
      PETSTORE_BASE_URL: server.url,
      PETSTORE_API_KEY: SECRET,
      PETSTORE_ONLY: 'LIST-LIMIT-OVER-MAX',
      PETSTORE_SEED: '1',
      PETSTORE_ALLURE_RESULTS: resultsDir,
    },
    timeoutMs: 180_000,
  });
}, 200_000);

afterAll(async () => {
  await server?.close();
  rmSync(resultsDir, { recursive: true, force: true });
});

/** The results allure-vitest wrote, and the text of an attachment. */
function written() {
  const files = readdirSync(resultsDir);
  const read = (file: string) => readFileSync(path.join(resultsDir, file), 'utf8');
  const results = files
    .filter((f) => f.endsWith('-result.json'))
    .map((f) => JSON.parse(read(f)) as TestResult);
  return { files, results, read };
}

test('a result per check, the failed ones with their requirement, case, request and response', () => {
  expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(1);
  const { results, read } = written();
  const label = (r: TestResult, name: string) => r.labels.find((l) => l.name === name)?.value;
  const overMax = results.filter((r) => label(r, 'requirement') === 'LIST-LIMIT-OVER-MAX');
  expect(overMax.map((r) => r.parameters[0]?.value).sort()).toEqual([
    'limit=1000',
    'limit=101',
    'limit=2^31',
    'limit=2^63',
  ]);
  for (const r of overMax) {
    expect(r.status).toBe('failed');
    expect(r.statusDetails.message).toMatch(/^expected: status 400–499\nreceived: 200/);
    expect(label(r, 'operation')).toBe('GET /pets (listPets)');
    expect(label(r, 'story')).toBe(
      'LIST-LIMIT-OVER-MAX (MUST) a limit above 100 is rejected with a 4xx status',
    );
    expect(label(r, 'gating')).toBe('yes');
    expect(r.description).toContain('When `limit` is above 100');
    const [request, response] = r.steps.map((s) => s.attachments[0]);
    expect(request?.name).toMatch(/^request: GET \/v1\/pets\?limit=/);
    expect(read(request!.source)).toMatch(
      /^GET http:\/\/127\.0\.0\.1:\d+\/v1\/pets\?limit=\S+\nx-api-key: \*\*\*\n/,
    );
    expect(read(response!.source)).toMatch(/^HTTP 200 OK/);
  }
  // The other checks were not selected: skipped, with their requirement still named.
  const others = results.filter((r) => label(r, 'requirement') !== 'LIST-LIMIT-OVER-MAX');
  expect(others.length).toBeGreaterThan(40);
  for (const r of others) expect(r.status).toBe('skipped');
  expect(others.every((r) => label(r, 'requirement') !== undefined)).toBe(true);
});

test('the key is in no file it wrote, nor in what vitest printed', () => {
  const { files, read } = written();
  for (const file of files) expect(read(file), file).not.toContain(SECRET);
  expect(run.stdout + run.stderr).not.toContain(SECRET);
});

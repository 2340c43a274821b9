// What vitest's side of a run writes (its messages, and anything its worker writes on the process's
// streams) reaches the command on the suites' thread's own streams and is masked before the terminal
// sees it (cli/run/suites.ts): the real command, with a fixture suite whose check writes the key on
// stderr, against the bundled reference.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { build, type CliResult, ROOT, runCli } from '../helpers/cli.ts';

const SECRET = 'pcs-LOUD-5b0e-do-not-print';
const work = mkdtempSync(path.join(tmpdir(), 'petstore-conformance-thread-output-'));
let run: CliResult;

beforeAll(async () => {
  await build();
  run = await runCli(['--only', 'LIST-OK', '--api-key', SECRET, '--report-dir', path.join(work, 'reports')], {
    command: [process.execPath, path.join(ROOT, 'test/cli/fixtures/run-with.mjs'), 'loud'],
    timeoutMs: 120_000,
  });
}, 180_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

test("what the checks' side writes on stderr reaches it masked, and the run goes on", () => {
  expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
  expect(run.stderr).toContain('loud: GET /v1/pets with x-api-key: ***\n');
  expect(run.stdout + run.stderr).not.toContain(SECRET);
});

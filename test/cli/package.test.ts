// The command as a dependency of someone else's project: pack the package, install the tarball into
// a fresh project, run `npx petstore-conformance` there against the bundled reference implementation.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadCatalog } from '../../spec/catalog.ts';
import { build, ROOT, readJson, runCli } from './helpers.ts';

const work = mkdtempSync(path.join(tmpdir(), 'petstore-conformance-pack-'));
const project = path.join(work, 'project');
let tarball = '';

/** npm, bounded in time; its output is kept for the failure message. */
function npm(args: string[], cwd: string, timeoutMs: number) {
  const result = spawnSync('npm', args, { cwd, encoding: 'utf8', timeout: timeoutMs, killSignal: 'SIGKILL' });
  if (result.status !== 0) {
    throw new Error(
      `npm ${args.join(' ')} failed (${result.status ?? result.signal}):\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result.stdout;
}

beforeAll(async () => {
  // The build is what prepack runs; it is done here once, under the lock the other test file shares.
  await build();
  const packed = JSON.parse(
    npm(['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT, 60_000),
  );
  tarball = path.join(work, packed[0].filename);
  mkdirSync(project);
  writeFileSync(
    path.join(project, 'package.json'),
    `${JSON.stringify({ name: 'consumer', private: true }, null, 2)}\n`,
  );
  npm(['install', tarball, '--no-audit', '--no-fund', '--prefer-offline'], project, 180_000);
}, 300_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('installed as a dependency of another project', () => {
  test('the package ships what runs: the command, dist/, the spec and the suites, and prepack builds', () => {
    const manifest = readJson(path.join(ROOT, 'package.json'));
    expect(manifest.scripts.prepack).toBe('npm run build');
    const installed = path.join(project, 'node_modules', 'petstore-conformance');
    for (const file of [
      'bin/petstore-conformance.js',
      'dist/cli/main.js',
      'dist/reference-impl/index.js',
      'spec/openapi.yaml',
      'spec/requirements.yaml',
      'suites/vitest.shared.ts',
    ]) {
      expect(existsSync(path.join(installed, file)), file).toBe(true);
    }
  });

  test('npx petstore-conformance checks the bundled reference implementation: exit 0 and summary.json', async () => {
    const r = await runCli(['--report-dir', 'reports/pack'], {
      cwd: project,
      command: ['npx', '--no-install', 'petstore-conformance'],
      timeoutMs: 120_000,
    });
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    const summary = readJson(path.join(project, 'reports', 'pack', 'summary.json'));
    expect(summary.verdict).toBe('conformant');
    expect(summary.results).toHaveLength(loadCatalog().requirements.length);
    expect(readFileSync(path.join(project, 'reports', 'pack', 'junit.xml'), 'utf8')).toContain('<testsuites');
  }, 150_000);

  test('an invalid OpenAPI document: could not judge (exit 2) before any test runs', async () => {
    // The installed copy is the consumer's own; breaking it here touches nothing of the repository.
    const openapi = path.join(project, 'node_modules', 'petstore-conformance', 'spec', 'openapi.yaml');
    writeFileSync(openapi, readFileSync(openapi, 'utf8').replace(/^openapi: 3\.1\.0$/m, 'openapi: banana'));
    const r = await runCli(['--report-dir', 'reports/invalid'], {
      cwd: project,
      command: ['npx', '--no-install', 'petstore-conformance'],
      timeoutMs: 60_000,
    });
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(2);
    expect(r.stderr).toMatch(/could not judge: the spec is invalid: .*openapi\.yaml/);
    expect(existsSync(path.join(project, 'reports', 'invalid'))).toBe(false);
  });
});

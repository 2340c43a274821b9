// reproduce.sh (cli/reports/reproduce-sh.ts): the failures of a run as one POSIX sh script. Against a
// reference that requires a key and has two faults planted (a limit above 100 served, the name left
// out of the list's items), the script of the run parses with `sh -n`, holds no key, names each
// failed requirement with what was expected, and, run with the key in PETSTORE_API_KEY against the
// same server, shows the failing answers again. A conformant run writes none.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../../reference-impl/index.ts';
import { build, type CliResult, type Json, readJson, runInProcess } from '../helpers/cli.ts';
import { acceptAnyLimit } from '../variants/faulty/list.ts';
import { reference } from '../variants/servers/reference.ts';
import { headAsGet, isList, rewriteJson } from '../variants/servers/wrap.ts';

const KEY = 'reproduce-key-7f3a91c2';
const work = mkdtempSync(path.join(tmpdir(), 'petstore-conformance-reproduce-'));
const faultyDir = path.join(work, 'faulty');
const conformantDir = path.join(work, 'conformant');
let faulty: RunningServer;
let conformant: RunningServer;
let run: CliResult;
let summary: Json;
let script: string;

const nameLeftOut = rewriteJson(
  (body) => (Array.isArray(body) ? body.map(({ name: _name, ...rest }) => rest) : body),
  (req, res) => isList(req) && res.status === 200,
);

beforeAll(async () => {
  await build();
  faulty = await reference({ apiKey: KEY, wrap: headAsGet((h) => nameLeftOut(acceptAnyLimit(h))) });
  conformant = await reference({ apiKey: KEY });
  const args = (url: string, dir: string) => ['--base-url', url, '--api-key', KEY, '--report-dir', dir];
  [run] = await Promise.all([
    runInProcess(args(faulty.url, faultyDir), { timeoutMs: 120_000 }),
    runInProcess(args(conformant.url, conformantDir), { timeoutMs: 120_000 }),
  ]);
  summary = readJson(path.join(faultyDir, 'summary.json'));
  script = readFileSync(path.join(faultyDir, 'reproduce.sh'), 'utf8');
}, 180_000);

afterAll(async () => {
  await Promise.all([faulty?.close(), conformant?.close()]);
  if (!process.env.KEEP) rmSync(work, { recursive: true, force: true });
});

describe('reproduce.sh', () => {
  test('the faulty run failed the two requirements planted', () => {
    const failed = summary.results.filter((r: Json) => r.status === 'failed').map((r: Json) => r.id);
    expect(failed, run.stdout).toEqual(['ANY-PET-SCHEMA', 'LIST-LIMIT-OVER-MAX']);
  });

  test('is a POSIX sh script that sh -n accepts', () => {
    expect(script.startsWith('#!/bin/sh\n')).toBe(true);
    const parsed = spawnSync('sh', ['-n', path.join(faultyDir, 'reproduce.sh')], { encoding: 'utf8' });
    expect(parsed.stderr).toBe('');
    expect(parsed.status).toBe(0);
  });

  test('names every failed requirement, in the order of summary.json, with what was expected', () => {
    const failed = summary.results.filter((r: Json) => r.status === 'failed');
    const headings = script.split('\n').filter((l) => l.startsWith('# ✗ '));
    expect(headings).toEqual(failed.map((r: Json) => `# ✗ ${r.id} (${r.level}) ${r.title}`));
    for (const r of failed) {
      const at = script.indexOf(`# ✗ ${r.id} `);
      expect(script.slice(at), r.id).toContain(`# expected: ${r.expected.split('\n')[0]}`);
      expect(script.slice(at), r.id).toContain(r.reproduce);
    }
  });

  test('holds no key and stops, saying why, when PETSTORE_API_KEY is not set', () => {
    expect(script).not.toContain(KEY);
    expect(script).toContain(`"\${PETSTORE_API_KEY:-***}"`);
    const unset = spawnSync('sh', [path.join(faultyDir, 'reproduce.sh')], {
      env: { PATH: process.env.PATH },
      encoding: 'utf8',
    });
    expect(unset.status).not.toBe(0);
    expect(unset.stderr).toContain('set PETSTORE_API_KEY to the API key the run used');
  });

  test('run with the key against the same server, shows the failing answers', async () => {
    // Not execFileSync: the server answers from this process.
    const { stdout: out } = await promisify(execFile)('sh', [path.join(faultyDir, 'reproduce.sh')], {
      env: { PATH: process.env.PATH, PETSTORE_API_KEY: KEY },
      encoding: 'utf8',
      timeout: 60_000,
    });
    // A limit above 100 answered 200 (LIST-LIMIT-OVER-MAX), a list whose items have no name.
    expect(out).toMatch(/^HTTP\/1\.1 200 OK/m);
    expect(out).not.toMatch(/^HTTP\/1\.1 401/m);
    // The first answer is ANY-PET-SCHEMA's list, up to the next answer's status line.
    const at = out.indexOf('[{');
    expect(at, out).toBeGreaterThanOrEqual(0);
    const listed = out.slice(at, out.indexOf('HTTP/1.1', at));
    expect(listed).toContain('"id":');
    expect(listed).not.toContain('"name":');
  });

  test('a conformant run writes none, and the folder lists only what it wrote', () => {
    expect(existsSync(path.join(conformantDir, 'summary.json'))).toBe(true);
    expect(existsSync(path.join(conformantDir, 'reproduce.sh'))).toBe(false);
    expect(run.stdout).toContain('reproduce.sh');
  });
});

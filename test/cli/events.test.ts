// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the config file's own syntax here, not a template
// --events on standard output, and the mistakes that stop a run before it sends anything: an events
// file that cannot be written, a config file that is wrong or names a variable that is not set.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { build, runInProcess } from '../helpers/cli.ts';
import { shippedSchema } from '../helpers/schemas.ts';
import { type HandMadeServer, httpServer } from '../helpers/servers.ts';

const work = mkdtempSync(path.join(tmpdir(), 'petstore-conformance-events-'));
let server: HandMadeServer;
let requests = 0;

beforeAll(async () => {
  await build();
  server = await httpServer((req, res) => {
    requests++;
    req.resume();
    res.end('[]');
  });
}, 180_000);

afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

test('--events -: standard output holds the events alone, the console goes to standard error', async () => {
  const run = await runInProcess(
    ['--events', '-', '--only', 'LIST-LIMIT', '--report-dir', path.join(work, 'stdout')],
    {
      timeoutMs: 120_000,
    },
  );
  expect(run.code, run.stderr).toBe(0);
  const lines = run.stdout.trimEnd().split('\n');
  const events = lines.map((line) => JSON.parse(line));
  const valid = shippedSchema('events.schema.json');
  expect(events.flatMap((e) => valid(e))).toEqual([]);
  expect(events[0].type).toBe('run-start');
  expect(events.at(-1)).toMatchObject({ type: 'run-end', verdict: 'conformant', exitStatus: 0 });
  const judged = events.filter((e) => e.type === 'check-end' && e.status !== 'skipped');
  expect(judged.length).toBeGreaterThan(0);
  expect(judged.filter((e) => !e.requirement.startsWith('LIST-LIMIT'))).toEqual([]);
  expect(run.stderr).toContain('checking ');
  expect(run.stderr).toContain('CONFORMANT');
});

describe('stopped before any request (exit 2), nothing written', () => {
  const stopped = async (args: string[], cwd = work, env: Record<string, string> = {}) => {
    const before = requests;
    const reportDir = path.join(work, `never-${Math.random().toString(36).slice(2)}`);
    const run = await runInProcess([...args, '--report-dir', reportDir], { cwd, env, timeoutMs: 60_000 });
    expect(run.code, run.stdout + run.stderr).toBe(2);
    expect(requests).toBe(before);
    expect(existsSync(reportDir)).toBe(false);
    return run.stderr;
  };

  test('an events file that cannot be written', async () => {
    const file = path.join(work, 'no-such-folder', 'events.ndjson');
    expect(await stopped(['--base-url', server.url, '--events', file])).toContain(
      `--events ${file}: cannot write it (its folder does not exist)`,
    );
  });

  test('an events file inside the report folder, which every run replaces', async () => {
    const reportDir = path.join(work, 'inside');
    const run = await runInProcess([
      '--base-url',
      server.url,
      '--report-dir',
      reportDir,
      '--events',
      `${reportDir}/e.ndjson`,
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('the events file cannot be inside the report folder');
  });

  test('a config file with an unknown key, or a variable that is not set', async () => {
    const dir = mkdtempSync(path.join(work, 'config-'));
    writeFileSync(
      path.join(dir, 'petstore-conformance.config.yaml'),
      `baseUrl: ${server.url}\nstrcit: true\n`,
    );
    expect(await stopped([], dir)).toContain(
      'petstore-conformance.config.yaml: $.strcit: unknown key "strcit" (expected one of:',
    );
    writeFileSync(
      path.join(dir, 'petstore-conformance.config.yaml'),
      `baseUrl: ${server.url}\napiKey: \${PETS_KEY}\n`,
    );
    expect(await stopped([], dir)).toContain('$.apiKey: ${PETS_KEY} is not set in the environment');
  });
});

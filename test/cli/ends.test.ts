// Every run ends: no option value makes the command loop, and Ctrl-C or SIGTERM stop it, the first
// cleanly (a report that says it was stopped, no staging folder left), the second at once, whatever
// the run is doing. Each with the real command (or the real module) as a child process, bounded in time.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BIN, build, ROOT, readJson, runCli } from '../helpers/cli.ts';
import { type HandMadeServer, silentServer } from '../helpers/servers.ts';

const work = mkdtempSync(path.join(tmpdir(), 'petstore-conformance-ends-'));

beforeAll(async () => {
  await build();
}, 180_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Child {
  readonly child: ChildProcess;
  /** Resolves once `text` has appeared on stdout or stderr. */
  said(text: string): Promise<void>;
  /** Resolves with the exit status (or the signal that ended it), killing it by its pid after `ms`. */
  ended(ms: number): Promise<{ code: number | null; output: string; ms: number }>;
}

/** A child process with its output collected; `env` is all it gets besides PATH and HOME. */
function start(args: readonly string[], env: Record<string, string> = {}): Child {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const waiting: { text: string; resolve: () => void }[] = [];
  const onData = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    for (const w of waiting.filter((w) => output.includes(w.text))) {
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve();
    }
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return {
    child,
    said: (text) =>
      output.includes(text) ? Promise.resolve() : new Promise((resolve) => waiting.push({ text, resolve })),
    async ended(ms) {
      const started = Date.now();
      const killer = setTimeout(() => child.pid !== undefined && process.kill(child.pid, 'SIGKILL'), ms);
      const code = await closed;
      clearTimeout(killer);
      return { code, output, ms: Date.now() - started };
    },
  };
}

/** Sends a signal to the child by its pid. */
function signal(c: Child, name: NodeJS.Signals): void {
  if (c.child.pid !== undefined && c.child.exitCode === null) process.kill(c.child.pid, name);
}

describe('a report folder the run cannot create', () => {
  test.runIf(existsSync('/proc/self'))(
    '--report-dir /proc/x ends at once with exit 2, naming the folder that refuses it',
    async () => {
      const r = await runCli(['--report-dir', '/proc/x'], { timeoutMs: 30_000 });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--report-dir: cannot create /proc/x: /proc does not take new folders');
      expect(r.stdout).not.toContain('checking');
    },
  );

  test.runIf(existsSync('/proc/self'))(
    'the report folder is made one folder at a time: under /proc that is an error, not a loop',
    async () => {
      const module = pathToFileURL(path.join(ROOT, 'dist', 'cli', 'record', 'dirs.js')).href;
      const c = start([
        '--input-type=module',
        '-e',
        `const { makeDirs } = await import(${JSON.stringify(module)});
         try { makeDirs('/proc/x/y'); } catch (error) { console.log(error.code); }`,
      ]);
      const r = await c.ended(20_000);
      expect(r.code, r.output).toBe(0);
      expect(r.output.trim()).toBe('ENOENT');
    },
  );

  test('a report folder under a file ends with exit 2, naming the file', async () => {
    const file = path.join(work, 'a-file');
    writeFileSync(file, 'not a folder');
    const r = await runCli(['--report-dir', path.join(file, 'reports', 'latest')], { timeoutMs: 30_000 });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file} is not a folder`);
  });
});

describe('signals', () => {
  let server: HandMadeServer;
  beforeAll(async () => {
    server = await silentServer();
  });
  afterAll(async () => {
    await server.close();
  });

  /** The command against a server that never answers, each request allowed 60 s. */
  function hangingRun(name: string): { run: Child; reportDir: string; staging: string } {
    const reportDir = path.join(work, name);
    const staging = path.join(work, `${name}-tmp`);
    mkdirSync(staging, { recursive: true });
    const run = start([BIN, '--base-url', server.url, '--timeout-ms', '60000', '--report-dir', reportDir], {
      TMPDIR: staging,
    });
    return { run, reportDir, staging };
  }

  test('a first SIGTERM during the checks stops the run cleanly: exit 143, a report that says so, no staging folder left', async () => {
    const { run, reportDir, staging } = hangingRun('sigterm');
    await run.said('checking ');
    signal(run, 'SIGTERM');
    const r = await run.ended(30_000);
    expect(r.code, r.output).toBe(143);
    expect(r.output).toContain('SIGTERM received: stopping the run');
    expect(r.output).toContain('could not judge: stopped by SIGTERM before the run could judge');
    const summary = readJson(path.join(reportDir, 'summary.json'));
    expect(summary.verdict).toBe('could-not-judge');
    expect(summary.error).toBe('stopped by SIGTERM before the run could judge');
    expect(readdirSync(staging)).toEqual([]);
  });

  test('a second Ctrl-C ends the run at once with exit 130', async () => {
    const { run, staging } = hangingRun('sigint-twice');
    await run.said('checking ');
    signal(run, 'SIGINT');
    await run.said('SIGINT received');
    signal(run, 'SIGINT');
    const r = await run.ended(30_000);
    expect(r.code, r.output).toBe(130);
    expect(readdirSync(staging)).toEqual([]);
  });

  /** A process that watches signals as a run does, with a clean stop that never finishes. */
  function stuckStop(graceMs: number): Child {
    const module = pathToFileURL(path.join(ROOT, 'dist', 'cli', 'run', 'interrupt.js')).href;
    const script = `
      const { watchInterrupts } = await import(${JSON.stringify(module)});
      const interrupt = watchInterrupts({ say: (line) => console.error(line), graceMs: ${graceMs} });
      interrupt.signal.addEventListener('abort', () => console.error('clean stop begins, and never ends'));
      setInterval(() => {}, 1000);
      console.log('watching');
    `;
    return start(['--input-type=module', '-e', script]);
  }

  test('the second signal ends the process at once, whatever the clean stop is waiting for', async () => {
    const c = stuckStop(600_000);
    await c.said('watching');
    signal(c, 'SIGINT');
    await c.said('clean stop begins');
    signal(c, 'SIGTERM');
    const r = await c.ended(20_000);
    expect(r.code, r.output).toBe(130);
    expect(r.output).toContain('SIGTERM received again: stopped at once');
  });

  test('a clean stop that outlasts its grace ends the process anyway', async () => {
    const c = stuckStop(300);
    await c.said('watching');
    signal(c, 'SIGTERM');
    const r = await c.ended(20_000);
    expect(r.code, r.output).toBe(143);
    expect(r.output).toContain('did not stop within 300 ms of SIGTERM: stopped at once');
  });
});

// Runs the real command (bin/petstore-conformance.js over dist/): as a child process, bounded in time
// (runCli), or in this process through its library entry (runInProcess).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../../catalog/paths.ts';

export const ROOT = packageRoot();
export const BIN = path.join(ROOT, 'bin', 'petstore-conformance.js');

const LOCK = path.join(tmpdir(), 'petstore-conformance-test-build.lock');

/**
 * Compiles cli/ and what it imports to dist/ when a source changed (npm run build), once at a time
 * across test files.
 * Type errors elsewhere in the tree do not stop tsc from emitting, so success is judged by the output.
 */
export async function build(): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      // A lock older than two minutes belongs to a run that died.
      if (Date.now() - statSync(LOCK, { throwIfNoEntry: false })!.mtimeMs > 120_000)
        rmSync(LOCK, { force: true, recursive: true });
      if (Date.now() > deadline) throw new Error(`waited 120 s for ${LOCK}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    // npm run build's own script: it compiles only when a source is newer than dist/ (npm test has
    // just built, and 26 test files ask), as make does.
    const script = path.join(ROOT, 'scripts', 'build.mjs');
    const result = spawnSync(process.execPath, [script], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 120_000,
    });
    if (!existsSync(path.join(ROOT, 'dist', 'cli', 'main.js'))) {
      throw new Error(`npm run build produced no dist/cli/main.js:\n${result.stdout}${result.stderr}`);
    }
  } finally {
    rmSync(LOCK, { force: true, recursive: true });
  }
}

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** What a run printed, for an assertion's message: its exit status, then its stdout and stderr. */
export function failMessage(r: CliResult): string {
  return `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
}

/**
 * Runs the command (or `command`, e.g. npm) with exactly the environment given (plus PATH and HOME):
 * a developer's own PETSTORE_* variables must not leak into the tests. Killed by its pid when it
 * outlives timeoutMs.
 */
export function runCli(
  args: readonly string[],
  options: {
    env?: Record<string, string>;
    cwd?: string;
    timeoutMs?: number;
    command?: readonly string[];
  } = {},
): Promise<CliResult> {
  const started = Date.now();
  const [file, ...pre] = options.command ?? [process.execPath, BIN];
  return new Promise((resolve, reject) => {
    const child = spawn(file!, [...pre, ...args], {
      cwd: options.cwd ?? ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? tmpdir(),
        NO_COLOR: '1',
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
      reject(
        new Error(
          `${path.basename(file!)} ${[...pre, ...args].join(' ')} did not end within ${options.timeoutMs ?? 60_000} ms\n${stdout}\n${stderr}`,
        ),
      );
    }, options.timeoutMs ?? 60_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** main(argv, env, io) of the compiled command (dist/cli/main.js), loaded once. */
type Main = (argv: readonly string[], env: Record<string, string>, io: InProcessIo) => Promise<number>;
interface InProcessIo {
  stdout: Writable & { isTTY: false };
  stderr: Writable & { isTTY: false };
  cwd: string;
}
let loadedMain: Promise<Main> | undefined;

/** A stream that keeps what is written to it, as a terminal it is not. */
function collector(): { stream: Writable & { isTTY: false }; text(): string } {
  const chunks: Buffer[] = [];
  const stream = Object.assign(
    new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
        done();
      },
    }),
    { isTTY: false as const },
  );
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

/**
 * Runs the command in this process, through the entry the package documents for programs
 * (`main(argv, env, io)`, which bin/petstore-conformance.js calls): the same code as runCli's child,
 * with exactly the environment given (plus PATH and HOME, NO_COLOR) and its output collected, but
 * without a new Node process loading the command and vitest for each run (a run then costs about half
 * the CPU: docs/benchmarks.md). For what only a process shows (its exit on a signal, the bin's
 * handling of a crash), use runCli. A run that outlives timeoutMs fails the test; runs are bounded
 * by their own deadline besides.
 */
export async function runInProcess(
  args: readonly string[],
  options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  loadedMain ??= import(pathToFileURL(path.join(ROOT, 'dist', 'cli', 'main.js')).href).then(
    (m: { main: Main }) => m.main,
  );
  const main = await loadedMain;
  const stdout = collector();
  const stderr = collector();
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? tmpdir(),
    NO_COLOR: '1',
    ...options.env,
  };
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const limit = options.timeoutMs ?? 60_000;
  const outlived = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `petstore-conformance ${args.join(' ')} did not end within ${limit} ms (in process)\n${stdout.text()}\n${stderr.text()}`,
          ),
        ),
      limit,
    );
  });
  try {
    const code = await Promise.race([
      main(args, env, { stdout: stdout.stream, stderr: stderr.stream, cwd: options.cwd ?? ROOT }),
      outlived,
    ]);
    return { code, stdout: stdout.text(), stderr: stderr.text(), ms: Date.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

/** Every file under a folder, relative paths. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const file = path.join(d, name);
      if (statSync(file).isDirectory()) walk(file);
      else out.push(path.relative(dir, file));
    }
  };
  walk(dir);
  return out;
}

// biome-ignore lint/suspicious/noExplicitAny: summary.json is read as data and checked field by field
export type Json = any;

export function readJson(file: string): Json {
  return JSON.parse(readFileSync(file, 'utf8'));
}

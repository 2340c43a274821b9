/**
 * The pets server in Python's standard library (petstore.py beside this file), started for a test on
 * 127.0.0.1 and a free port: with the library's own defaults (a listen backlog of 5, HTTP/1.0, one
 * connection per request) unless told otherwise, as an implementer would have it. Stopped by its pid.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { packageRoot } from '../../../catalog/paths.ts';

/** From the checkout, not beside this file: the benchmark runs it compiled, from dist/ (bench/small-server.ts). */
const SCRIPT = path.join(packageRoot(), 'test', 'servers', 'python', 'petstore.py');

/** The Python the tests run: `python3` on the PATH, or PYTHON. */
export const PYTHON = process.env.PYTHON || 'python3';

/** Whether that Python is there (Debian's python3 is on every machine the project is built on). */
export function pythonFound(): boolean {
  return spawnSync(PYTHON, ['--version'], { encoding: 'utf8' }).status === 0;
}

export interface PythonServerOptions {
  /** The listen backlog; the library's 5 when absent. */
  readonly backlog?: number;
  /** HTTP/1.1 with keep-alive; the library's HTTP/1.0 when absent. */
  readonly http11?: boolean;
  /** A fault: the body of a request answered 405 is left unread on a kept-alive connection. */
  readonly leaveBodyUnread?: boolean;
}

export interface PythonServer {
  /** Its base URL, …/v1. */
  readonly url: string;
  close(): Promise<void>;
}

/** Starts the server and resolves once it listens (it prints its base URL, its only line). */
export function startPythonPetstore(options: PythonServerOptions = {}): Promise<PythonServer> {
  const args = [SCRIPT, '--port', '0'];
  if (options.backlog !== undefined) args.push('--backlog', String(options.backlog));
  if (options.http11) args.push('--http11');
  if (options.leaveBodyUnread) args.push('--leave-body-unread');
  const child = spawn(PYTHON, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      stop(child);
      reject(new Error(`${PYTHON} ${args.join(' ')} did not listen within 10 s\n${err}`));
    }, 10_000);
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString('utf8');
    });
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      const line = out.split('\n')[0];
      if (!out.includes('\n') || line === undefined) return;
      clearTimeout(timer);
      resolve({ url: line.trim(), close: () => stop(child) });
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

/** Ends the server by its pid, and resolves once it has exited. */
function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    if (child.pid !== undefined) process.kill(child.pid, 'SIGTERM');
  });
}

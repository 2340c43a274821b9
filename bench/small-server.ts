/**
 * A small server as an implementer writes it (test/servers/python/petstore.py: Python's http.server
 * with its defaults, a listen backlog of 5 and HTTP/1.0) takes only a few connections at once; the
 * run comes down to what it takes (suites/harness/http/capacity.ts). Issue 35 holds such a run to at
 * most twice the time of a run told --concurrency 4 against the same server: measured here, runs of
 * the two kinds alternated against one long-lived server, wall time from spawn to exit. Skipped when
 * python3 (or PYTHON) is not there. The server listens on 127.0.0.1 and is ended by its pid.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pythonFound, startPythonPetstore } from '../test/servers/python/petstore.ts';
import { median } from './suite.ts';

export interface SmallServerFigures {
  /** Wall times of the runs at --concurrency 4, and by default, alternated. */
  readonly concurrency4: readonly number[];
  readonly byDefault: readonly number[];
  /** Median by default / median at --concurrency 4. */
  readonly ratio: number;
}

/** The figures, or undefined without Python. */
export async function smallServerBench(root: string, pairs: number): Promise<SmallServerFigures | undefined> {
  if (!pythonFound()) return undefined;
  const server = await startPythonPetstore();
  const reports = mkdtempSync(path.join(tmpdir(), 'petstore-bench-small-'));
  try {
    const concurrency4: number[] = [];
    const byDefault: number[] = [];
    for (let i = 0; i < pairs; i++) {
      const dir = ['--report-dir', path.join(reports, String(i))];
      concurrency4.push(await timedRun(root, server.url, [...dir, '--concurrency', '4']));
      byDefault.push(await timedRun(root, server.url, dir));
    }
    return { concurrency4, byDefault, ratio: median(byDefault) / median(concurrency4) };
  } finally {
    await server.close();
    rmSync(reports, { recursive: true, force: true });
  }
}

/** One run of the command against `url`, its wall time in ms; a run that is not conformant throws. */
function timedRun(root: string, url: string, args: readonly string[]): Promise<number> {
  const started = performance.now();
  const bin = path.join(root, 'bin', 'petstore-conformance.js');
  const child = spawn(process.execPath, [bin, '--base-url', url, '--no-har', ...args], {
    cwd: root,
    stdio: 'ignore',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      const ms = Math.round(performance.now() - started);
      if (code === 0) resolve(ms);
      else reject(new Error(`petstore-conformance --base-url ${url} ${args.join(' ')} exited ${code}`));
    });
  });
}

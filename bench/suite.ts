/**
 * The suite's own figures for `npm run bench`: whole processes, timed from the outside, each against
 * its floor in the same run.
 *
 * - a full default run against the bundled reference, alternated with the floor (one empty vitest
 *   test started the same way, bench/floor.ts): wall time, CPU time (every thread of the process:
 *   vitest's workers are threads) and where the time goes, from the stage marks the run leaves on its
 *   performance timeline (cli/run/timeline.ts), read by bench/timing.ts at exit;
 * - the same run with every request delayed (bench/latency.ts: a proxy on 127.0.0.1 adding 50 ms),
 *   against a reference in a process of its own, as a staging server across an ocean;
 * - what `npm start` adds on an unchanged checkout (npm and scripts/build.mjs).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packageRoot } from '../catalog/paths.ts';
import { STAGE } from '../cli/run/timeline.ts';
import { latencyProxy } from './latency.ts';

const root = packageRoot();
const here = path.join(root, 'dist', 'bench');
const cli = path.join(root, 'bin', 'petstore-conformance.js');

export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length === 0 ? Number.NaN : s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/** One process, timed: wall from spawn to exit, and what bench/timing.ts wrote at its exit. */
export interface Timed {
  readonly ms: number;
  readonly code: number | null;
  /** CPU time of the whole process (every thread), in ms. */
  readonly cpuMs: number;
  /** performance.now() at exit: the wall time minus Node's start before its time origin and its teardown. */
  readonly exitMs: number;
  /** The stage marks (cli/run/timeline.ts) without their prefix, in ms from the time origin. */
  readonly marks: Readonly<Record<string, number>>;
}

/** Runs `node --import timing.js …args` to its end (killed after 2 minutes). */
function timedNode(args: readonly string[]): Promise<Timed> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'petstore-bench-timing-'));
  const file = path.join(dir, 'timing.json');
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', path.join(here, 'timing.js'), ...args], {
      cwd: root,
      stdio: 'ignore',
      env: { ...process.env, PETSTORE_BENCH_TIMING: file },
    });
    const killer = setTimeout(() => child.pid && process.kill(child.pid, 'SIGKILL'), 120_000);
    child.on('close', (code) => {
      clearTimeout(killer);
      const ms = performance.now() - started;
      let timing = { cpuMs: Number.NaN, exitMs: ms, marks: {} };
      try {
        timing = JSON.parse(readFileSync(file, 'utf8'));
      } catch {
        // no timing written: the process died before its exit handlers ran
      }
      rmSync(dir, { recursive: true, force: true });
      resolve({ ms, code, ...timing });
    });
  });
}

/** Runs a command through the shell (npm) to its end; resolves with its wall time and exit code. */
function timedShell(command: string): Promise<{ ms: number; code: number | null }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command, { cwd: root, stdio: 'ignore', shell: true });
    child.on('close', (code) => resolve({ ms: performance.now() - started, code }));
  });
}

const name = (stage: string) => stage.replace(/^petstore-conformance:/, '');

/**
 * Where the time of one run goes, in ms, stage after stage (they add up to the wall time): Node's
 * own start and exit (outside its time origin); the CLI's start-up (its modules, the plan); vitest
 * loading, with the target opening beside it (the reference on its own thread, or the deployment
 * reached); vitest to the first suite file collected (its worker started, the file and the harness
 * loaded); the checks; judging, reports and exit. `reference` is the target's own part of the
 * loading stage, beside it rather than after. The floor has no CLI and no target: its loading stage
 * is vitest's import alone.
 */
export function stagesOf(t: Timed): Record<Stage, number> {
  const m = t.marks;
  const vitest = m[name(STAGE.vitestStarting)] ?? Number.NaN;
  const opening = m[name(STAGE.targetOpening)] ?? 0;
  const open = m[name(STAGE.targetOpen)] ?? opening;
  const first = m[name(STAGE.collected)] ?? Number.NaN;
  const done = m[name(STAGE.testsDone)] ?? Number.NaN;
  return {
    node: t.ms - t.exitMs,
    startup: opening,
    loading: vitest - opening,
    reference: open - opening,
    firstFile: first - vitest,
    checks: done - first,
    reports: t.exitMs - done,
  };
}

export const STAGES = ['node', 'startup', 'loading', 'reference', 'firstFile', 'checks', 'reports'] as const;
export type Stage = (typeof STAGES)[number];
export const STAGE_LABELS: Record<Stage, string> = {
  node: 'Node start and exit',
  startup: 'CLI start-up and plan',
  loading: 'vitest loads',
  reference: '  beside it: target opens',
  firstFile: 'to the first file collected',
  checks: 'checks',
  reports: 'judging, reports, exit',
};

export interface RunFigures {
  readonly runs: number;
  readonly wallMs: number;
  readonly cpuMs: number;
  /** The median of each stage on its own (they need not add up to the median wall time). */
  readonly stages: Record<Stage, number>;
  readonly walls: readonly number[];
}

function figures(runs: readonly Timed[]): RunFigures {
  const stages = Object.fromEntries(
    STAGES.map((s) => [s, Math.round(median(runs.map((r) => stagesOf(r)[s])))]),
  ) as Record<Stage, number>;
  return {
    runs: runs.length,
    wallMs: Math.round(median(runs.map((r) => r.ms))),
    cpuMs: Math.round(median(runs.map((r) => r.cpuMs))),
    stages,
    walls: runs.map((r) => Math.round(r.ms)),
  };
}

/** A reference implementation in a process of its own (bench/server.ts, counting its requests). */
export interface ForkedReference {
  readonly url: string;
  stats(): Promise<{ requests: number }>;
  stop(): void;
}

export interface SuiteFigures {
  readonly full: RunFigures;
  readonly floor: RunFigures;
  readonly ratio: number;
  /** HTTP requests one default run sends (counted by the server). */
  readonly requests: number;
  /** The run through the delaying proxy, at each delay (0 first: the same path without the delay). */
  readonly latency: readonly DelayedRuns[];
  /**
   * Round trips the run waits for one after another: (t at the longest delay − t at 0) / that delay,
   * from the medians. Requests sent together count once; a chain of requests that wait for each
   * other counts each.
   */
  readonly roundTrips: number;
  readonly start: {
    /** What `npm start` runs before the CLI, on an unchanged checkout: npm itself and scripts/build.mjs. */
    readonly unchangedMs: number;
  };
}

/** Runs of the suite through bench/latency.ts's proxy at one delay per request. */
export interface DelayedRuns {
  readonly delayMs: number;
  readonly full: RunFigures;
  readonly requests: number;
  /** Connections the run opened (each one a tunnel through the proxy, which costs a delay too). */
  readonly connections: number;
}

export async function suiteBench(options: {
  readonly runs: number;
  readonly latencyRuns: number;
  /** Delays added per request, in milliseconds, 0 first; the round trips are counted at the last. */
  readonly delaysMs: readonly number[];
  readonly reference: () => Promise<ForkedReference>;
}): Promise<SuiteFigures> {
  const reportDir = mkdtempSync(path.join(os.tmpdir(), 'petstore-bench-'));
  const args = ['--strict', '--seed', '1', '--report-dir', reportDir];
  try {
    const floors: Timed[] = [];
    const fulls: Timed[] = [];
    for (let i = 0; i < options.runs; i++) {
      const f = await timedNode([path.join(here, 'floor.js')]);
      if (f.code !== 0) throw new Error(`the floor run (one empty vitest test) exited ${f.code}`);
      floors.push(f);
      const s = await timedNode([cli, ...args]);
      if (s.code !== 0) throw new Error(`the suite run against the embedded reference exited ${s.code}`);
      fulls.push(s);
    }

    const counting = await options.reference();
    let requests: number;
    try {
      const counted = await timedNode([cli, ...args, '--base-url', counting.url]);
      if (counted.code !== 0)
        throw new Error(`the suite run against the counting reference exited ${counted.code}`);
      ({ requests } = await counting.stats());
    } finally {
      counting.stop();
    }

    // Across an ocean: a fresh reference for each run (the pets of one run would spare the next some
    // creates), through the same proxy at every delay, 0 included, so that only the delay differs.
    const latency: DelayedRuns[] = [];
    for (const delayMs of options.delaysMs) latency.push(await delayedRuns(delayMs));
    const first = latency[0];
    const last = latency.at(-1);
    const roundTrips =
      first && last && last.delayMs > 0 ? (last.full.wallMs - first.full.wallMs) / last.delayMs : Number.NaN;

    const full = figures(fulls);
    const floor = figures(floors);
    return {
      full,
      floor,
      ratio: full.wallMs / floor.wallMs,
      requests,
      latency,
      roundTrips,
      start: await startBench(),
    };
  } finally {
    rmSync(reportDir, { recursive: true, force: true });
  }

  async function delayedRuns(delayMs: number): Promise<DelayedRuns> {
    const proxy = await latencyProxy(delayMs);
    const far: Timed[] = [];
    let farRequests = 0;
    let connections = 0;
    try {
      for (let i = 0; i < options.latencyRuns; i++) {
        const reference = await options.reference();
        try {
          const tunnels = proxy.tunnels;
          const r = await timedNode([cli, ...args, '--base-url', reference.url, '--proxy', proxy.url]);
          if (r.code !== 0)
            throw new Error(`the suite run through the proxy adding ${delayMs} ms exited ${r.code}`);
          far.push(r);
          farRequests = (await reference.stats()).requests;
          connections = proxy.tunnels - tunnels;
        } finally {
          reference.stop();
        }
      }
    } finally {
      await proxy.close();
    }
    return { delayMs, full: figures(far), requests: farRequests, connections };
  }
}

/**
 * What `npm start` adds to a run on an unchanged checkout: npm itself running scripts/build.mjs, as
 * the start script does before the CLI (median of 3, after one run that builds whatever is stale).
 * That a changed source is rebuilt is test/build.test.ts's to show.
 */
async function startBench(): Promise<SuiteFigures['start']> {
  const build = 'npm run --silent build';
  const first = await timedShell(build);
  if (first.code !== 0) throw new Error(`${build} exited ${first.code}`);
  const unchanged: number[] = [];
  for (let i = 0; i < 3; i++) unchanged.push((await timedShell(build)).ms);
  return { unchangedMs: Math.round(median(unchanged)) };
}

/**
 * The suite checks itself: the command is run against every variant of test/variants/ (index.ts),
 * one test per variant, named for it. The faulty variants are an exact oracle: each must fail
 * exactly the requirements it declares, and may leave blocked only those it declares, each blocked
 * by one of its failures; every failure's reproduce line, pasted into sh against the same server,
 * shows the status the failure received. Conformant ones must pass in --strict mode with nothing
 * failed or blocked; hostile ones must end the run by itself with exit 1 and at least the
 * requirements they declare failed. Every run, whatever its kind, must be judged and must not point
 * a blockedBy at a requirement that did not fail.
 *
 * The runs go through the command's library entry in this process (helpers/cli.ts runInProcess):
 * the same code as the bin, without a new Node process per run. At most CPU_RUNS runs that keep the
 * cores busy are under way at once, and beside them at most WAITING_RUNS runs that mostly wait (a rate
 * limit, a hanging server).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, type ExpectStatic, expect, test } from 'vitest';
import { loadCatalog } from '../../catalog/catalog.ts';
import { packageRoot } from '../../catalog/paths.ts';
import { type CliResult, runInProcess } from '../helpers/cli.ts';
import { slots } from '../helpers/slots.ts';
import { variants as allVariants, type Variant } from './index.ts';
import { reference } from './servers/reference.ts';
import { headAsGet } from './servers/wrap.ts';
import { KEY, mayBlockOf } from './variant.ts';

/**
 * While working on one variant: PETSTORE_VARIANTS=name,name npx vitest run test/variants runs only
 * those.
 */
const named = process.env.PETSTORE_VARIANTS?.split(',').filter(Boolean) ?? [];
const variants = named.length > 0 ? allVariants.filter((v) => named.includes(v.name)) : allVariants;
const unknownNames = named.filter((name) => !allVariants.some((v) => v.name === name));
if (unknownNames.length > 0) {
  throw new Error(
    `PETSTORE_VARIANTS names no variant: ${unknownNames.join(', ')}; ` +
      `the variants are ${allVariants.map((v) => v.name).join(', ')}`,
  );
}

const catalog = loadCatalog();
/** Per-request limit given to runs against hostile servers. */
const HOSTILE_TIMEOUT_MS = 1000;
/** A run against a hostile server must end by itself within this. */
const HOSTILE_BOUND_MS = 45_000;
/** A run that has not ended after this fails its test: it has hung. */
const RUN_LIMIT_MS = 90_000;
/**
 * The same for a run that mostly waits: a limit's own pace (a write quota of 8 creates a second
 * takes 70 s of it alone), on a machine as busy as the whole test run makes it.
 */
const WAITING_RUN_LIMIT_MS = 180_000;
/** Runs that keep the cores busy, at once: one per core of a CI machine. */
const CPU_RUNS = 2;
/**
 * Runs that mostly wait, at once, beside those: each still loads vitest and sends its first round of
 * requests at full speed, to a server on this test's own thread, and a dozen at once (2 × 13 threads
 * and 13 servers on 2 cores) once kept requests unanswered past their 10 s timeout; four, beside the
 * test files running at once, once kept the creates of a limiter refusing one in seven unanswered so.
 */
const WAITING_RUNS = 3;

interface Result {
  id: string;
  level: string;
  status: string;
  message?: string;
  received?: string;
  reproduce?: string;
  /** Set on a skipped requirement whose check could not have what it needs (CONTRACT.md). */
  blockedBy?: string[];
}
interface Summary {
  verdict: string;
  options: { strict: boolean };
  results: Result[];
}
interface Outcome {
  variant: Variant;
  run: CliResult;
  summary?: Summary;
  failed: Set<string>;
  /** Blocked requirement id → the requirements that block it. */
  blocked: Map<string, string[]>;
}

let reportRoot = '';
/** Each run's outcome, for the table the file prints at its end (the tests judge each as it ends). */
const outcomes = new Map<string, Outcome>();
beforeAll(async () => {
  // Each run under way adds its listeners to the process and its streams (vitest's, the command's own
  // for the signals), and removes them as it ends: a dozen runs at once are not a leak.
  for (const emitter of [process, process.stdout, process.stderr]) emitter.setMaxListeners(4 * 16);
  if (!existsSync(path.join(packageRoot(), 'dist', 'cli', 'main.js'))) {
    throw new Error('dist/ is missing: run `npm run build` first (npm test does it)');
  }
  reportRoot = await mkdtemp(path.join(tmpdir(), 'petstore-variants-'));
});
afterAll(async () => {
  if (reportRoot) await rm(reportRoot, { recursive: true, force: true });
  console.log(figures([...outcomes.values()]));
});

/** The runs as a table, then the mutation score, the false alarms and the slowest hostile server. */
function figures(runs: readonly Outcome[]): string {
  const faulty = runs.filter((o) => o.variant.kind === 'faulty');
  const caught = faulty.filter((o) => o.variant.breaks.every((id) => o.failed.has(id)));
  const exact = faulty.filter((o) => mismatch(o).length === 0);
  const conformant = runs.filter((o) => o.variant.kind === 'conformant');
  const falseAlarms = conformant.filter((o) => o.run.code !== 0 || o.failed.size > 0 || o.blocked.size > 0);
  const hostile = runs.filter((o) => o.variant.kind === 'hostile');
  const inexact = faulty.filter((o) => mismatch(o).length > 0);
  const pct = (n: number, of: number) => ((100 * n) / Math.max(1, of)).toFixed(0);
  return [
    '',
    'variant                        kind        exit  time    failed requirements [blocked: id<-by]',
    ...runs.map((o) => {
      const blocked = [...o.blocked].map(([id, by]) => `${id}<-${by.join(',')}`);
      return (
        `${o.variant.name.padEnd(30)} ${o.variant.kind.padEnd(11)} ${String(o.run.code).padEnd(5)} ` +
        `${`${(o.run.ms / 1000).toFixed(1)}s`.padEnd(7)} ${[...o.failed].join(' ') || '-'}` +
        (blocked.length ? ` [blocked: ${blocked.join(' ')}]` : '')
      );
    }),
    '',
    ...(inexact.length
      ? [
          'faulty variants whose run differs from what they declare (-missing +extra, blocked outside blocks):',
          ...inexact.map((o) => `  ${o.variant.name}: ${mismatch(o).join(' ')}`),
          '',
        ]
      : []),
    `mutation score: ${caught.length}/${faulty.length} faults caught (${pct(caught.length, faulty.length)}%),` +
      ` ${exact.length}/${faulty.length} exactly as declared`,
    `false alarms: ${falseAlarms.length} of ${conformant.length} conformant variants`,
    `hostile servers: ${hostile.filter((o) => o.run.code === 1).length}/${hostile.length} ended with exit 1,` +
      ` slowest ${(Math.max(0, ...hostile.map((o) => o.run.ms)) / 1000).toFixed(1)}s`,
  ].join('\n');
}

const cpu = slots(CPU_RUNS);
const waiting = slots(WAITING_RUNS);
/** Whether a variant's run mostly waits rather than computes. */
const waits = (v: Variant) => v.waits === true || v.kind === 'hostile';

async function startVariant(variant: Variant): Promise<{ url: string; close(): Promise<void> }> {
  if ('hostile' in variant.server) return variant.server.hostile();
  // HEAD is served as the variant serves GET: a fault planted in GET answers is in HEAD answers too.
  const { wrap } = variant.server;
  return reference({ ...variant.server, ...(wrap ? { wrap: headAsGet(wrap) } : {}) });
}

/** The command against the variant, then `after` while its server is still up. */
async function against<T>(variant: Variant, after: (o: Outcome, url: string) => Promise<T>): Promise<T> {
  const server = await startVariant(variant);
  try {
    const reportDir = path.join(reportRoot, variant.name);
    const args = ['--base-url', server.url, '--strict', '--seed', '20261122', '--report-dir', reportDir];
    if (variant.kind === 'hostile') args.push('--timeout-ms', String(HOSTILE_TIMEOUT_MS));
    const run = await runInProcess([...args, ...(variant.args ?? [])], {
      timeoutMs: waits(variant) ? WAITING_RUN_LIMIT_MS : RUN_LIMIT_MS,
    });
    const file = path.join(reportDir, 'summary.json');
    const summary: Summary | undefined = existsSync(file)
      ? JSON.parse(await readFile(file, 'utf8'))
      : undefined;
    const results = summary?.results ?? [];
    const failed = new Set(results.filter((r) => r.status === 'failed').map((r) => r.id));
    const blocked = new Map(results.filter(isBlocked).map((r) => [r.id, r.blockedBy ?? []]));
    const outcome: Outcome = { variant, run, ...(summary ? { summary } : {}), failed, blocked };
    outcomes.set(variant.name, outcome);
    return await after(outcome, server.url);
  } finally {
    await server.close();
  }
}

/** The variant's run, in a slot of the runs that keep the cores busy, or of those that mostly wait. */
function runOf<T>(variant: Variant, after: (o: Outcome) => Promise<T>): Promise<T> {
  return (waits(variant) ? waiting : cpu)(() => against(variant, after));
}

/** The HTTP status a failure's `received` names: "404, …", "GET /v1/pets answered 500 …". */
function statusOf(received: string | undefined): string | undefined {
  return (/\banswered (\d{3})\b/.exec(received ?? '') ?? /^(\d{3})\b/.exec(received ?? ''))?.[1];
}

/**
 * Runs a reproduce line as a person would paste it: `sh -c`, the key in PETSTORE_API_KEY. What it
 * shows is the status line of its last answer: a single curl's, or that of the last request of a
 * script (a generated sequence replayed, whose last request is the one that failed).
 */
function replay(line: string): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', line], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH, PETSTORE_API_KEY: KEY },
    });
    let out = '';
    child.stdout.on('data', (d) => {
      if (out.length < 64 * 1024) out += d;
    });
    const killer = setTimeout(() => child.pid && process.kill(child.pid, 'SIGKILL'), 20_000);
    child.on('close', () => {
      clearTimeout(killer);
      const statusLines = out.split('\n').filter((l) => /^HTTP\/[\d.]+ \d{3}\b/.test(l));
      resolve((statusLines.at(-1) ?? out.split('\n')[0] ?? '').trim());
    });
  });
}

/** Each failed requirement's reproduce line, pasted into sh: those that did not show the failing status. */
async function replaysThatMiss(o: Outcome): Promise<string[]> {
  const wrong: string[] = [];
  for (const r of o.summary?.results ?? []) {
    const expected = statusOf(r.received);
    // Failures without a status (a dropped connection) have nothing to show; every other one is replayed.
    if (r.status !== 'failed' || !expected) continue;
    if (!r.reproduce) {
      wrong.push(`${r.id}: failed with status ${expected}, and no reproduce line`);
      continue;
    }
    const shown = await replay(r.reproduce);
    if (!new RegExp(`^HTTP/[\\d.]+ ${expected}\\b`).test(shown))
      wrong.push(
        `${r.id}: expected status ${expected}, sh showed ${JSON.stringify(shown)}\n  ${r.reproduce}`,
      );
  }
  return wrong;
}

const isBlocked = (r: Result) => r.status === 'skipped' && (r.blockedBy?.length ?? 0) > 0;
const sorted = (ids: Iterable<string>) => [...ids].sort();
const gates = (id: string) => catalog.get(id)?.level !== 'MAY';

function describeRun(o: Outcome): string {
  const results = o.summary?.results ?? [];
  return [
    `${o.variant.name} (${o.variant.kind}: ${o.variant.does}) exited ${o.run.code} after ${o.run.ms} ms`,
    `  declared: ${o.variant.breaks.join(' ') || '-'}${o.variant.blocks?.length ? `; may block ${o.variant.blocks === 'every other' ? 'every other' : o.variant.blocks.join(' ')}` : ''}`,
    ...results
      .filter((r) => r.status === 'failed')
      .map((r) => `  failed ${r.id} (${r.level}): ${(r.message ?? '').split('\n')[0]}`),
    ...results
      .filter(isBlocked)
      .map((r) => `  blocked ${r.id} by ${r.blockedBy!.join(', ')}: ${(r.message ?? '').split('\n')[0]}`),
    // A declared break that did not fail: what became of it (passed, or skipped and why).
    ...results
      .filter((r) => o.variant.breaks.includes(r.id) && r.status !== 'failed' && !isBlocked(r))
      .map((r) => `  ${r.status} ${r.id} (declared broken): ${(r.message ?? '').split('\n')[0] || '-'}`),
    o.summary ? '' : `  no summary.json; output:\n${`${o.run.stdout}${o.run.stderr}`.slice(-3000)}`,
  ].join('\n');
}

/** Whether a result gates its run's verdict: by its level, or because it keeps a gating one from being judged. */
function gatingIn(summary: Summary, r: Result): boolean {
  const byLevel = (x: Result) => x.level === 'MUST' || (x.level === 'SHOULD' && summary.options.strict);
  return (
    byLevel(r) ||
    summary.results.some((x) => isBlocked(x) && byLevel(x) && (x.blockedBy ?? []).includes(r.id))
  );
}

/** What every run must be, whatever its server: judged, its verdict and its blockedBy pointing at failures. */
function expectJudged(o: Outcome, expect: ExpectStatic): void {
  expect(o.summary, `no summary.json\n${describeRun(o)}`).toBeDefined();
  const summary = o.summary!;
  if (summary.verdict === 'non-conformant') {
    expect
      .soft(
        summary.results.some((r) => r.status === 'failed' && gatingIn(summary, r)),
        `a non-conformant verdict names no failed requirement at the gating level\n${describeRun(o)}`,
      )
      .toBe(true);
  }
  const status = new Map(summary.results.map((r) => [r.id, r.status]));
  const pointless = summary.results.flatMap((r) =>
    (r.blockedBy ?? [])
      .filter((id) => status.get(id) !== 'failed')
      .map((id) => `${r.id} blocked by ${id}, which is ${status.get(id) ?? 'not in the run'}`),
  );
  expect.soft(pointless, `every id in a blockedBy names a failed requirement\n${describeRun(o)}`).toEqual([]);
}

/** What an exact oracle finds wrong with a faulty variant's run: nothing when it matches. */
function mismatch(o: Outcome): string[] {
  const declared = new Set(o.variant.breaks);
  const mayBlock = new Set(mayBlockOf(o.variant));
  return [
    ...o.variant.breaks.filter((id) => !o.failed.has(id)).map((id) => `-${id}`),
    ...[...o.failed].filter((id) => !declared.has(id)).map((id) => `+${id}`),
    ...[...o.blocked]
      .filter(([id, by]) => !mayBlock.has(id) || !by.some((b) => o.failed.has(b)))
      .map(([id, by]) => `blocked ${id} by ${by.join(',')}`),
  ];
}

/** What a run of each kind must show. */
const expectations: Record<
  Variant['kind'],
  { claim: string; check(o: Outcome, expect: ExpectStatic): Promise<void> }
> = {
  faulty: {
    claim:
      'fails exactly what it declares, blocks only what it may, and its reproduce lines show each failure',
    async check(o, expect) {
      expect.soft(mismatch(o), describeRun(o)).toEqual([]);
      for (const [id, says] of Object.entries(o.variant.says ?? {}))
        expect.soft(o.summary?.results.find((r) => r.id === id)?.message, describeRun(o)).toMatch(says);
      expect.soft(o.run.code, describeRun(o)).toBe(o.variant.breaks.some(gates) ? 1 : 0);
      expect.soft(await replaysThatMiss(o)).toEqual([]);
    },
  },
  conformant: {
    claim: 'passes in --strict mode, with nothing failed and nothing blocked',
    async check(o, expect) {
      expect.soft(sorted(o.failed), describeRun(o)).toEqual([]);
      expect.soft(sorted(o.blocked.keys()), describeRun(o)).toEqual([]);
      expect.soft(o.run.code, describeRun(o)).toBe(0);
    },
  },
  hostile: {
    claim: 'ends the run by itself with exit 1 and the affected requirements failed',
    async check(o, expect) {
      expect.soft(o.run.code, describeRun(o)).toBe(1);
      expect.soft(o.run.ms).toBeLessThan(HOSTILE_BOUND_MS);
      expect.soft([...o.failed], describeRun(o)).toEqual(expect.arrayContaining(o.variant.breaks));
    },
  },
};

// One test per variant, all at once (the slots bound the runs under way); those that mostly wait
// first, so that they wait beside the runs that take the cores rather than after them.
const inOrder = [...variants.filter(waits), ...variants.filter((v) => !waits(v))];
describe.concurrent('every variant, one test each', () => {
  test.for(inOrder.map((v) => [`${v.name} (${v.kind}) ${expectations[v.kind].claim}`, v] as const))(
    '%s',
    // The time a test waits for a slot is not its run's: each run is bounded by RUN_LIMIT_MS, each
    // replay by its own limit; this only stops a test that hangs past all of them.
    { timeout: 20 * WAITING_RUN_LIMIT_MS },
    ([, variant], { expect }) =>
      runOf(variant, async (o) => {
        expectJudged(o, expect);
        await expectations[variant.kind].check(o, expect);
      }),
  );
});

describe('the variants as a whole (what they declare; each variant test above proves its run)', () => {
  test('kill every MUST and SHOULD requirement of the catalog: each is declared broken by a faulty variant', () => {
    const declared = new Set(allVariants.filter((v) => v.kind === 'faulty').flatMap((v) => v.breaks));
    const unkilled = catalog.requirements
      .filter((r) => r.level !== 'MAY' && !declared.has(r.id))
      .map((r) => r.id);
    expect(unkilled).toEqual([]);
  });

  test('declare only requirement ids of the catalog, and unique names', () => {
    const unknown = allVariants
      .flatMap((v) => [...v.breaks, ...mayBlockOf(v), ...Object.keys(v.says ?? {})])
      .filter((id) => !catalog.get(id));
    expect(unknown).toEqual([]);
    expect(new Set(allVariants.map((v) => v.name)).size).toBe(allVariants.length);
  });

  test('declare what their kind calls for: faults something to fail, conformant ones nothing', () => {
    const wrong = allVariants.flatMap((v) => {
      const problems: string[] = [];
      if (v.kind !== 'conformant' && v.breaks.length === 0) problems.push('declares nothing to fail');
      if (v.kind === 'conformant' && v.breaks.length > 0) problems.push('is conformant but declares breaks');
      if (v.kind !== 'faulty' && v.blocks) problems.push('declares blocks, which only faulty variants judge');
      const both = (Array.isArray(v.blocks) ? v.blocks : []).filter((id) => v.breaks.includes(id));
      if (both.length) problems.push(`both fails and blocks ${both.join(', ')}`);
      if (new Set(v.breaks).size !== v.breaks.length) problems.push('names a requirement twice in breaks');
      const unbroken = Object.keys(v.says ?? {}).filter((id) => !v.breaks.includes(id));
      if (unbroken.length) problems.push(`says how ${unbroken.join(', ')} fails without declaring it broken`);
      return problems.map((p) => `${v.name} ${p}`);
    });
    expect(wrong).toEqual([]);
  });
});

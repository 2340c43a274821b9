// A run meets a deployment's rate limit as a whole (suites/harness/http/pace.ts): --rate-limit caps it from
// the start, and a deployment that refuses everything for the rate is a run that could not judge,
// never a failure of the contract. Refusals that keep their share whatever the pace (one in seven) are
// waited out request by request, in well under a minute; a quota of creates alone paces the creates
// alone, in about the time the quota needs for them; and the run says what each cost. The limiters of
// several shapes a correct server sits behind are conformant variants (test/variants/limited.ts).
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEFAULT_RUN_REQUESTS } from '../../cli/console/progress.ts';
import { build, type CliResult, failMessage, type Json, readJson, runCli } from '../helpers/cli.ts';
import { shippedSchema } from '../helpers/schemas.ts';
import { oneIn, refuseEverything, writeQuota } from '../variants/servers/limiter.ts';
import { reference } from '../variants/servers/reference.ts';
import type { Wrap } from '../variants/servers/wrap.ts';

let work = '';
const runs: Record<'paced' | 'refused' | 'shared' | 'quota', CliResult> = {} as never;
let served = 0;
/** What each request the server received said of its sender (the reachability probe's included). */
const senders: { userAgent?: string; traceparent?: string }[] = [];

/** The reference behind `wrap`, judged by default into <work>/<name>. */
async function behind(name: string, wrap: Wrap): Promise<CliResult> {
  const server = await reference({ wrap });
  try {
    const events = ['--events', path.join(work, `${name}.events.ndjson`)];
    return await runCli(['--base-url', server.url, '--report-dir', path.join(work, name), ...events], {
      timeoutMs: 300_000,
    });
  } finally {
    await server.close();
  }
}

beforeAll(async () => {
  await build();
  work = await mkdtemp(path.join(tmpdir(), 'petstore-conformance-rate-'));
  // A quota of 3 creates a second takes two minutes of waiting: it runs beside the others.
  const quota = behind('quota', writeQuota(3)).then((r) => {
    runs.quota = r;
  });
  const counting = await reference({
    // Room for the 64 KiB target and the 16 KiB header ANY-NO-5XX sends, which node:http would
    // answer 431 itself, before the wrap that counts them.
    maxHeaderSize: 256 * 1024,
    wrap: (handler) => (req, res) => {
      served++;
      senders.push({
        ...(req.headers['user-agent'] === undefined ? {} : { userAgent: req.headers['user-agent'] }),
        ...(req.headers.traceparent === undefined ? {} : { traceparent: String(req.headers.traceparent) }),
      });
      handler(req, res);
    },
  });
  try {
    runs.paced = await runCli(
      [
        '--base-url',
        counting.url,
        '--strict',
        '--seed',
        '11',
        '--rate-limit',
        '50',
        '--report-dir',
        path.join(work, 'paced'),
      ],
      { timeoutMs: 120_000 },
    );
  } finally {
    await counting.close();
  }
  // Every request refused with a Retry-After longer than a request waits: each check gives up at once.
  const refusing = await reference({
    wrap: refuseEverything({ refuse: { status: 429, retryAfter: 'long' } }),
  });
  try {
    runs.refused = await runCli(['--base-url', refusing.url, '--report-dir', path.join(work, 'refused')], {
      timeoutMs: 120_000,
    });
  } finally {
    await refusing.close();
  }
  runs.shared = await behind('shared', oneIn(7, { refuse: { status: 429, retryAfter: true } }));
  await quota;
}, 600_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('--rate-limit 50 against the reference', () => {
  test('is conformant, and says at its start how long it will take', () => {
    const r = runs.paced;
    expect(r.code, failMessage(r)).toBe(0);
    expect(r.stdout).toMatch(
      /^pace: {4}at most 50 requests a second \(--rate-limit\): about \d+ requests, at least \d+ s$/m,
    );
  });

  test('never sends more than 50 requests in any second, as exchanges.har shows them', () => {
    const har = readJson(path.join(work, 'paced', 'exchanges.har'));
    // Sent when its time in the queue (HAR's timings.blocked: here, waiting for the pace) was over.
    const starts = (har.log.entries as Json[])
      .map((e) => Date.parse(e.startedDateTime) + e.timings.blocked)
      .sort((a, b) => a - b);
    expect(starts.length).toBeGreaterThan(100);
    let most = 0;
    for (let i = 0; i < starts.length; i++) {
      let j = i;
      while (j < starts.length && starts[j]! < starts[i]! + 1_000) j++;
      most = Math.max(most, j - i);
    }
    expect(most).toBeLessThanOrEqual(50);
    // and it is not slower than it must be: the run's requests at 50 a second, with room for the rest
    const spanS = (starts.at(-1)! - starts[0]!) / 1000;
    expect(spanS).toBeLessThan(starts.length / 50 + 10);
  });

  test("summary.json's traffic is what the HAR holds and the server received; the pace it announced is a fair estimate", () => {
    const summary = readJson(path.join(work, 'paced', 'summary.json'));
    const har = readJson(path.join(work, 'paced', 'exchanges.har'));
    const entries = har.log.entries as Json[];
    const creates = entries.filter(
      (e) => e._operation === 'POST /pets' && e.response.status >= 200 && e.response.status <= 299,
    ).length;
    expect(summary.traffic).toEqual({
      requests: entries.length,
      answered: entries.length,
      refused: 0,
      creates,
    });
    // The one reachability probe before the run is the server's, not the run's.
    expect(served - 1).toBe(entries.length);
    expect(summary.options.rateLimit).toBe(50);
    expect(Math.abs(entries.length - DEFAULT_RUN_REQUESTS) / DEFAULT_RUN_REQUESTS).toBeLessThan(0.25);
  });
});

describe('every request says who sent it', () => {
  test('each carries User-Agent: petstore-conformance/<version> and a traceparent of the trace summary.json names', () => {
    const summary = readJson(path.join(work, 'paced', 'summary.json'));
    const har = readJson(path.join(work, 'paced', 'exchanges.har'));
    expect(summary.traceId).toMatch(/^[0-9a-f]{32}$/);
    const sent = senders.slice(1); // the first is the reachability probe
    expect(sent.length).toBeGreaterThan(100);
    const userAgent = `petstore-conformance/${summary.tool.version}`;
    expect(sent.filter((x) => x.userAgent !== userAgent)).toEqual([]);
    const traceparent = new RegExp(`^00-${summary.traceId}-[0-9a-f]{16}-01$`);
    expect(sent.filter((x) => !traceparent.test(x.traceparent ?? ''))).toEqual([]);
    // One span per exchange, named in its HAR entry and in the header it sent.
    const entries = har.log.entries as Json[];
    const header = (e: Json, name: string) =>
      (e.request.headers as { name: string; value: string }[]).find((h) => h.name.toLowerCase() === name)
        ?.value;
    for (const e of entries) {
      expect(e._traceId).toBe(summary.traceId);
      expect(header(e, 'traceparent')).toBe(`00-${summary.traceId}-${e._spanId}-01`);
      expect(header(e, 'user-agent')).toBe(userAgent);
    }
    expect(new Set(entries.map((e) => e._spanId)).size).toBe(entries.length);
    expect(new Set(sent.map((x) => x.traceparent)).size).toBe(sent.length);
  });
});

describe('a deployment that refuses every request for the rate', () => {
  test('is a run that could not judge (exit 2), naming the rate limit and --rate-limit, not a failure', () => {
    const r = runs.refused;
    expect(r.code, failMessage(r)).toBe(2);
    expect(failMessage(r)).toMatch(/rate limit/);
    expect(failMessage(r)).toContain('--rate-limit');
    const summary = readJson(path.join(work, 'refused', 'summary.json'));
    expect(summary.verdict).toBe('could-not-judge');
    expect(summary.error).toMatch(/^the deployment's rate limit kept \d+ gating requirements/);
    expect(summary.results.filter((x: Json) => x.status === 'failed')).toEqual([]);
    expect(summary.limits.refusals['429']).toBeGreaterThan(0);
  });
});

describe('refusals that keep their share whatever the pace: one request in seven, 429 with Retry-After: 1', () => {
  test('are not the run’s rate: CONFORMANT by default in under a minute, each refused request waiting its Retry-After', () => {
    const r = runs.shared;
    expect(r.code, failMessage(r)).toBe(0);
    const summary = readJson(path.join(work, 'shared', 'summary.json'));
    expect(summary.durationMs).toBeLessThan(60_000);
    expect(summary.limits).toMatchObject({ independent: true });
    expect(summary.limits.refusals['429']).toBeGreaterThan(0);
    expect(r.stdout).toMatch(
      /^ +the refusals kept their share whatever the pace .*each refused request waited its own Retry-After$/m,
    );
  });

  test('the events’ run-end says it as summary.json does, valid against the shipped schema', () => {
    const summary = readJson(path.join(work, 'shared', 'summary.json'));
    const lines = readFileSync(path.join(work, 'shared.events.ndjson'), 'utf8').trimEnd().split('\n');
    const events = lines.map((line) => JSON.parse(line));
    const valid = shippedSchema('events.schema.json');
    expect(events.flatMap((e) => valid(e))).toEqual([]);
    expect(events.at(-1).limits).toEqual(summary.limits);
  });

  test('traffic counts the refused requests apart from the answered ones, as the HAR holds them', () => {
    const summary = readJson(path.join(work, 'shared', 'summary.json'));
    const entries = readJson(path.join(work, 'shared', 'exchanges.har')).log.entries as Json[];
    const refused = entries.filter((e) => e.response.status === 429).length;
    expect(summary.traffic.refused).toBe(refused);
    expect(summary.traffic.answered).toBe(entries.length - refused);
    expect(summary.limits.refusals['429']).toBe(refused);
  });
});

describe('a quota of creates alone: POST, 3 a second, a bare 429', () => {
  test('paces the creates alone: CONFORMANT by default, the reads never refused', () => {
    const r = runs.quota;
    expect(r.code, failMessage(r)).toBe(0);
    const summary = readJson(path.join(work, 'quota', 'summary.json'));
    const creates = summary.limits.requests.find((k: Json) => k.request === 'POST /pets');
    expect(creates).toMatchObject({ alone: true });
    const entries = readJson(path.join(work, 'quota', 'exchanges.har')).log.entries as Json[];
    expect(entries.filter((e) => e.response.status === 429 && e.request.method !== 'POST')).toEqual([]);
  });

  test('in about the time the quota needs for the run’s creates', () => {
    const entries = readJson(path.join(work, 'quota', 'exchanges.har')).log.entries as Json[];
    const posts = entries.filter((e) => e.request.method === 'POST' && e.response.status !== 429).length;
    const starts = entries.map((e) => Date.parse(e.startedDateTime));
    const spanS = (Math.max(...starts) - Math.min(...starts)) / 1000;
    // At 3 a second the creates need posts / 3 seconds; the run may take half as long again on a busy
    // machine (1.32 once on CI), and its start. A run that paced every request at the quota, reads
    // too, would take some 700 / 3 s, beyond that bound: what this tells apart is which requests wait.
    expect(spanS).toBeLessThan((posts / 3) * 1.5 + 10);
  });

  test('says what the limit cost: in the console’s last lines, summary.md and summary.json', () => {
    const r = runs.quota;
    expect(r.stdout).toMatch(/^limits: +\d+ refusals \(429 ×\d+\) waited out, held back \d+\.\d s/m);
    expect(r.stdout).toMatch(
      /^ +POST \/pets alone: 429 ×\d+, down to [\d.]+ a second, the other requests went on at their pace$/m,
    );
    const md = readFileSync(path.join(work, 'quota', 'summary.md'), 'utf8');
    expect(md).toContain('Limits the deployment set:');
    expect(md).toMatch(/^- POST \/pets alone: 429 ×\d+/m);
  });
});

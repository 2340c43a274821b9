// A run meets a deployment's rate limit as a whole (suites/harness/http/pace.ts): --rate-limit caps it from
// the start, and a deployment that refuses everything for the rate is a run that could not judge,
// never a failure of the contract. The limiters of several shapes a correct server sits behind are
// conformant variants (test/variants/limited.ts).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEFAULT_RUN_REQUESTS } from '../../cli/console/progress.ts';
import { build, type CliResult, failMessage, type Json, readJson, runCli } from '../helpers/cli.ts';
import { refuseEverything } from '../variants/servers/limiter.ts';
import { reference } from '../variants/servers/reference.ts';

let work = '';
const runs: Record<'paced' | 'refused', CliResult> = {} as never;
let served = 0;
/** What each request the server received said of its sender (the reachability probe's included). */
const senders: { userAgent?: string; traceparent?: string }[] = [];

beforeAll(async () => {
  await build();
  work = await mkdtemp(path.join(tmpdir(), 'petstore-conformance-rate-'));
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
}, 300_000);

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
    expect(summary.traffic).toEqual({ requests: entries.length, creates });
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
  });
});

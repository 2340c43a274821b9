/**
 * summary.json: the public, stable result of a run (CONTRACT.md), for programs and for the commands
 * that read a run back (--baseline, compare, merge).
 */
import type { Config } from '../../suites/harness/config/config.ts';
import type { Excused, ExpectedOutcome } from '../record/expected.ts';
import { retriedLine } from '../record/flaky.ts';
import { limitsOf } from '../record/pace.ts';
import { type BaselineOutcome, catalogIdentity, type RunRecord } from '../record/record.ts';
import { idsNow, type RerunOutcome } from '../record/rerun.ts';
import { isBlockedResult } from '../record/rollup.ts';
import type { OperationTimes } from '../record/timings.ts';
import { trafficOf } from '../record/traffic.ts';
import type { Writer } from './writer.ts';

/** summary.json, for every run: one that could not judge says why (`error`). */
export const summaryJsonFile: Writer = {
  name: 'summary.json',
  write(record, { folder }) {
    folder?.write('summary.json', summaryJson(record));
  },
};

/** summary.json, exactly as CONTRACT.md gives it (plus expected/received on failures, options.only). */
export function summaryJson(run: RunRecord): string {
  const { config, rollUp } = run;
  const flaky = rollUp.results.filter((r) => r.flaky).length;
  const excused = new Map((run.expected?.excused ?? []).map((e) => [e.id, e]));
  const summary = {
    tool: { name: 'petstore-conformance', version: run.version },
    // Which catalog the results answer to (compare and --baseline refuse to mix two); none when it was unreadable.
    ...(rollUp.results.length === 0 ? {} : { catalog: catalogIdentity(rollUp.results) }),
    target: run.target,
    startedAt: run.startedAt.toISOString(),
    durationMs: run.durationMs,
    seed: config.seed,
    // The W3C trace every request of the run was sent in (its traceparent), to find it in the deployment's logs.
    ...(config.traceId === undefined ? {} : { traceId: config.traceId }),
    // What the run sent the deployment, as exchanges.har counts it, and the pets it left there.
    ...(run.exchanges === undefined ? {} : { traffic: trafficOf(run.exchanges) }),
    // What the deployment's limits cost the run: refusals waited out, the time, the pace, the concurrency.
    ...limitsJson(run),
    options: {
      ...selectionOptions(config),
      ...networkOptions(config),
      retries: config.retries ?? 0,
      // What a rerun needs to run the same way again (cli/across/rerun.ts); names, never the key.
      timeoutMs: config.timeoutMs,
      ...(config.apiKeyQuery === undefined
        ? { apiKeyHeader: config.apiKeyHeader }
        : { apiKeyQuery: config.apiKeyQuery }),
      targetFrom: run.targetFrom,
      ...(run.expected === undefined ? {} : { expected: run.expected.file }),
      ...(config.maxResponseTimeMs === undefined ? {} : { maxResponseTimeMs: config.maxResponseTimeMs }),
      ...(config.rateLimit === undefined ? {} : { rateLimit: config.rateLimit }),
      ...(config.concurrency === undefined ? {} : { concurrency: config.concurrency }),
      ...(config.requestIdHeader === undefined ? {} : { requestIdHeader: config.requestIdHeader }),
    },
    // The config file read, as given: its path only, never what it holds.
    ...(run.configFile === undefined ? {} : { configFile: run.configFile }),
    verdict: rollUp.verdict,
    ...(run.error === undefined ? {} : { error: run.error }),
    // Could not judge: the gating requirements left unjudged (the reason is `error`).
    ...(rollUp.notJudged.length === 0 ? {} : { notJudged: [...rollUp.notJudged] }),
    totals: { ...rollUp.totals, ...(flaky > 0 ? { flaky } : {}) },
    ...(run.baseline === undefined ? {} : { baseline: baselineJson(run.baseline) }),
    ...(run.rerun === undefined ? {} : { rerun: rerunJson(run.rerun) }),
    ...(run.expected === undefined ? {} : { expectedFailures: expectedJson(run.expected) }),
    ...(run.responseTimes === undefined || run.responseTimes.size === 0
      ? {}
      : { responseTimes: responseTimesJson(run.responseTimes, run.operations) }),
    results: rollUp.results.map((r) => ({
      id: r.id,
      level: r.level,
      title: r.title,
      status: r.status,
      ...(r.message === undefined ? {} : { message: r.message }),
      ...(isBlockedResult(r) ? { blockedBy: [...(r.blockedBy ?? [])] } : {}),
      ...(r.status === 'failed' && r.expected !== undefined ? { expected: r.expected } : {}),
      ...(r.status === 'failed' && r.received !== undefined ? { received: r.received } : {}),
      ...(r.reproduce === undefined ? {} : { reproduce: r.reproduce }),
      ...(r.flaky ? { flaky: true, retries: r.retries, retried: (r.retried ?? []).map(retriedLine) } : {}),
      ...excuseJson(excused.get(r.id)),
    })),
  };
  return `${JSON.stringify(summary, null, 2)}\n`;
}

/** summary.json's `baseline` block. */
export function baselineJson(outcome: BaselineOutcome): Record<string, unknown> {
  return {
    file: outcome.file,
    startedAt: outcome.startedAt,
    target: outcome.target,
    gate: outcome.gate,
    newFailures: [...outcome.newFailures],
    stillFailing: [...outcome.stillFailing],
    fixed: [...outcome.fixed],
  };
}

/** A result's `expectedFailure`: the entry of --expected that excuses it. */
function excuseJson(e: Excused | undefined): Record<string, unknown> {
  if (e === undefined) return {};
  return {
    expectedFailure: {
      reason: e.reason,
      ...(e.link === undefined ? {} : { link: e.link }),
      ...(e.expires === undefined ? {} : { expires: e.expires }),
    },
  };
}

/** summary.json's `expectedFailures` block: the file, its gate, what it excused, its stale entries. */
export function expectedJson(outcome: ExpectedOutcome): Record<string, unknown> {
  return {
    file: outcome.file,
    gate: outcome.gate,
    excused: outcome.excused.map((e) => e.id),
    unexcused: [...outcome.unexcused],
    stale: outcome.stale.map((s) => ({ id: s.id, why: s.why })),
  };
}

/** summary.json's `responseTimes`: per operation, its route, and the count, median, p95 and max in ms. */
export function responseTimesJson(
  times: ReadonlyMap<string, OperationTimes>,
  routes: ReadonlyMap<string, string>,
): Record<string, unknown> {
  return Object.fromEntries(
    [...times].map(([operation, t]) => [
      operation,
      { ...(routes.has(operation) ? { route: routes.get(operation) } : {}), ...t },
    ]),
  );
}

/** summary.json's `rerun` block: the run repeated, and each of its failures now. */
export function rerunJson(outcome: RerunOutcome): Record<string, unknown> {
  return {
    of: outcome.file,
    startedAt: outcome.startedAt,
    target: outcome.target,
    fixed: idsNow(outcome, 'fixed'),
    stillFailing: idsNow(outcome, 'still failing'),
    blocked: idsNow(outcome, 'blocked'),
    notChecked: idsNow(outcome, 'not checked'),
    preconditions: [...outcome.preconditions],
    requirements: outcome.items.map((i) => ({
      id: i.id,
      level: i.level,
      before: i.before,
      now: i.now,
      gating: i.gating,
      ...(i.note === undefined ? {} : { note: i.note }),
    })),
  };
}

/** The options of a run that say what it sent and judged, as summary.json and the events name them. */
export function selectionOptions(config: Config) {
  return {
    readOnly: config.readOnly,
    strict: config.strict,
    authRequired: config.authRequired,
    only: [...config.only],
    exclude: [...config.exclude],
  };
}

/** What summary.json records of the network: whether each setting was used, never its value. */
export function networkOptions(config: Pick<Config, 'network'>): {
  proxy: boolean;
  caCert: boolean;
  clientCert: boolean;
  insecure: boolean;
} {
  const { proxy, tls } = config.network ?? {};
  return {
    proxy: proxy !== undefined,
    caCert: tls?.ca !== undefined,
    clientCert: tls?.cert !== undefined,
    insecure: tls?.insecure === true,
  };
}

/** summary.json's `limits`, when the deployment limited the run (record/pace.ts). */
function limitsJson(run: RunRecord): { limits?: object } {
  const limits = limitsOf(run.pace);
  return limits === undefined ? {} : { limits };
}

/**
 * What the deployment's limits cost a run, as the worker's pace reported it (suites/harness/http/
 * pace.ts, written by pace-report.ts to the run's staging folder as each check ends): the refusals
 * waited out (429, 503), the time the run was held back, the pace it came down to, per kind of request
 * where it differs, and the concurrency the deployment's capacity brought it down to. summary.json's
 * `limits`, the console's last lines, summary.md and the events' run-end say it, in these words.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { CapacityReport, CapacitySignal } from '../../suites/harness/http/capacity.ts';
import type { PaceReport } from '../../suites/harness/http/pace.ts';

export type { PaceReport } from '../../suites/harness/http/pace.ts';

/** The CLI's end of the pace's report. */
export interface PaceInbox {
  /** The file the worker writes to (PaceReportSettings.file). */
  readonly file: string;
  /** The last report the worker wrote; undefined when it wrote none (no check ended) or the file is unreadable. */
  report(): PaceReport | undefined;
}

/** Opens a run's pace report: `file`, created empty (the worker writes it). */
export function openPaceReport(file: string): PaceInbox {
  writeFileSync(file, '');
  return {
    file,
    report() {
      try {
        const text = readFileSync(file, 'utf8');
        return text === '' ? undefined : (JSON.parse(text) as PaceReport);
      } catch {
        return undefined;
      }
    },
  };
}

/** One kind of request, as `limits` shows it. */
export interface RequestLimits {
  /** "POST /pets", "GET /pets/{id}". */
  readonly request: string;
  /** Refusals by status, waited out. */
  readonly refusals: Readonly<Record<string, number>>;
  /** This kind alone was limited: it was paced on its own, the others went on at their pace. */
  readonly alone?: true;
  readonly lowestRate?: number;
  readonly independent?: true;
  readonly answered503?: true;
}

/** summary.json's `limits`: present when the deployment limited the run. */
export interface Limits {
  /** Answers that refused a request for now, waited out and sent again, by status ("429", "503"). */
  readonly refusals: Readonly<Record<string, number>>;
  /** How long the deployment's limits held the run back, in ms. */
  readonly waitedMs: number;
  /** The lowest pace the run's requests came down to (requests a second), when a refusal cut it. */
  readonly lowestRate?: number;
  /** The refusals kept their share whatever the pace: each refused request waited its own Retry-After. */
  readonly independent?: true;
  /** Some 503s without Retry-After were the server's answers (judged by ANY-NO-5XX), not refusals. */
  readonly answered503?: true;
  /** The quota the deployment declared in its headers. */
  readonly declared?: { readonly requests: number; readonly seconds: number };
  /** Each kind of request that was refused. */
  readonly requests: readonly RequestLimits[];
  /** The concurrency the deployment's capacity brought the run down to. */
  readonly concurrency?: CapacityReport;
}

/** The limits a run met, from its pace's report; undefined when the deployment never limited it. */
export function limitsOf(report: PaceReport | undefined): Limits | undefined {
  if (!report) return undefined;
  if (report.refusals === 0 && !report.capacity && !report.declared) return undefined;
  const lane = report.lane;
  return {
    refusals: report.byStatus,
    waitedMs: report.waitedMs,
    ...(lane.lowestRate === undefined ? {} : { lowestRate: lane.lowestRate }),
    ...(lane.independent ? { independent: true as const } : {}),
    ...(lane.answered503 || report.kinds.some((k) => k.answered503) ? { answered503: true as const } : {}),
    ...(report.declared ? { declared: report.declared } : {}),
    requests: report.kinds.map((k) => ({
      request: k.kind,
      refusals: k.refusals,
      ...(k.own ? { alone: true as const } : {}),
      ...(k.lowestRate === undefined ? {} : { lowestRate: k.lowestRate }),
      ...(k.independent ? { independent: true as const } : {}),
      ...(k.answered503 ? { answered503: true as const } : {}),
    })),
    ...(report.capacity ? { concurrency: report.capacity } : {}),
  };
}

/**
 * The limits in words, a line each, for the console's last lines and summary.md: what the run met
 * and what it cost, then each kind of request limited on its own, then the concurrency.
 */
export function limitsLines(limits: Limits | undefined): string[] {
  if (!limits) return [];
  const lines: string[] = [];
  const total = Object.values(limits.refusals).reduce((a, b) => a + b, 0);
  if (total > 0 || limits.declared) {
    const parts = [
      total > 0
        ? `${total} refusal${total === 1 ? '' : 's'} (${statusCounts(limits.refusals)}) waited out`
        : '',
      `held back ${seconds(limits.waitedMs)}`,
      limits.lowestRate === undefined ? '' : `pace down to ${perSecond(limits.lowestRate)}`,
      limits.declared
        ? `declared quota ${limits.declared.requests} requests in ${limits.declared.seconds} s`
        : '',
    ].filter(Boolean);
    lines.push(parts.join(', '));
  }
  if (limits.independent)
    lines.push(
      'the refusals kept their share whatever the pace (a limit other clients share, or load shed): not the run’s rate; each refused request waited its own Retry-After',
    );
  for (const r of limits.requests.filter((k) => k.alone || k.independent))
    lines.push(
      [
        `${r.request}${r.alone ? ' alone' : ''}: ${statusCounts(r.refusals)}`,
        r.lowestRate === undefined ? '' : `down to ${r.lowestRate} a second`,
        r.alone ? 'the other requests went on at their pace' : '',
        r.independent ? 'refusals that kept their share whatever the pace, each waited alone' : '',
      ]
        .filter(Boolean)
        .join(', '),
    );
  if (limits.answered503)
    lines.push(
      '503 answers without Retry-After that slowing down did not stop were judged as answers (ANY-NO-5XX)',
    );
  if (limits.concurrency) lines.push(concurrencyLine(limits.concurrency));
  return lines;
}

const SIGNALS: Record<CapacitySignal, string> = {
  refused: 'refused',
  'not-connected': 'not made in time',
  'slow-connect': 'made only after TCP sent its SYN again',
  reset: 'reset before any answer',
};

/** "concurrency down from 128 to 2: the deployment took no more at once (120 connections made only after …)". */
export function concurrencyLine(c: CapacityReport): string {
  const what = Object.entries(c.signals)
    .map(([kind, n]) => `${n} ${SIGNALS[kind as CapacitySignal]}`)
    .join(', ');
  return c.to < c.from
    ? `concurrency down from ${c.from} to ${c.to} requests at once: the deployment took no more (connections ${what})`
    : `concurrency ${c.to} requests at once, as given (connections ${what})`;
}

function statusCounts(refusals: Readonly<Record<string, number>>): string {
  return Object.entries(refusals)
    .map(([status, n]) => `${status} ×${n}`)
    .join(', ');
}

/** "1 request a second", "9.5 requests a second". */
function perSecond(rate: number): string {
  return `${rate} request${rate === 1 ? '' : 's'} a second`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

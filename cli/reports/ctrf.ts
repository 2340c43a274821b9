/**
 * ctrf-report.json: the run in the Common Test Report Format (https://ctrf.io, specVersion 0.0.0),
 * which test dashboards and CI plugins read. Like junit.xml, one test per requirement, named
 * "ID title", its suite the operation; the level, the gating and the evidence ride in labels and
 * `extra`. For a run that judged. The run's start and stop are the record's startedAt and durationMs
 * later, as every report says; a test's start and stop are its first check's start and its last
 * check's end (record/spans.ts), within the run's.
 */
import { judgedAny, type RunRecord } from '../record/record.ts';
import { isBlockedResult } from '../record/rollup.ts';
import { lengthOf, requirementSpans, runSpan, type Span } from '../record/spans.ts';
import { operationLabel } from '../record/views.ts';
import type { Writer } from './writer.ts';

export const CTRF_FILE = 'ctrf-report.json';

export const ctrfReportFile: Writer = {
  name: CTRF_FILE,
  write(record, { folder }) {
    if (judgedAny(record)) folder?.write(CTRF_FILE, ctrfReport(record));
  },
};

export function ctrfReport(run: RunRecord): string {
  const { rollUp, config } = run;
  const { start, end } = runSpan(run);
  const spans = requirementSpans(run.checks?.outcomes ?? [], { start, end });
  const count = (status: string) => rollUp.results.filter((r) => r.status === status).length;
  const report = {
    reportFormat: 'CTRF',
    specVersion: '0.0.0',
    timestamp: new Date(end).toISOString(),
    generatedBy: 'petstore-conformance',
    results: {
      tool: { name: 'petstore-conformance', version: run.version },
      summary: {
        tests: rollUp.results.length,
        passed: count('passed'),
        failed: count('failed'),
        skipped: count('skipped'),
        pending: 0,
        other: 0,
        suites: new Set(rollUp.results.map((r) => r.operation)).size,
        start,
        stop: end,
        duration: run.durationMs,
        extra: { verdict: rollUp.verdict, blocked: rollUp.totals.blocked },
      },
      tests: rollUp.results.map((r) => ({
        testId: r.id,
        name: `${r.id} ${r.title}`,
        status: r.status,
        duration: Math.round(lengthOf(spans.get(r.id))),
        ...timesOf(spans.get(r.id)),
        suite: [operationLabel(r.operation, run.operations)],
        // CTRF's own fields for a test that passed only after a retry (--retries).
        ...(r.flaky ? { flaky: true, retries: r.retries ?? 0 } : {}),
        ...(r.message === undefined ? {} : { message: r.message }),
        ...(r.status === 'failed' && r.expected !== undefined
          ? { trace: [`expected: ${r.expected}`, `received: ${r.received ?? ''}`].join('\n') }
          : {}),
        tags: [r.level],
        labels: { requirement: r.id, level: r.level, gating: r.gating },
        extra: {
          ...(isBlockedResult(r) ? { blockedBy: [...(r.blockedBy ?? [])] } : {}),
          ...(r.reproduce === undefined ? {} : { reproduce: r.reproduce }),
        },
      })),
      environment: {
        reportName: 'petstore-conformance',
        testEnvironment: run.target,
        extra: { seed: config.seed, readOnly: config.readOnly, strict: config.strict },
      },
    },
  };
  return `${JSON.stringify(report, null, 2)}\n`;
}

/** A test's start and stop, whole milliseconds; none for a requirement whose checks did not run. */
function timesOf(span: Span | undefined): { start?: number; stop?: number } {
  return span === undefined ? {} : { start: Math.floor(span.start), stop: Math.ceil(span.end) };
}

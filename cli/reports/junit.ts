/**
 * junit.xml: for CI test reports (GitHub, GitLab, Jenkins), one <testcase> per requirement. Its
 * times are the run's: <testsuites> starts at the record's startedAt and lasts its durationMs, as
 * every report says; a <testsuite> (an operation) and a <testcase> (a requirement) last from their
 * first check's start to their last check's end (record/spans.ts), each within the one around it.
 */

import { excuseText } from '../record/expected.ts';
import { retriedLine, retriesText } from '../record/flaky.ts';
import { judgedAny, type RunRecord } from '../record/record.ts';
import type { RequirementResult } from '../record/rollup.ts';
import { cover, lengthOf, requirementSpans, runSpan } from '../record/spans.ts';
import { byOperation, operationLabel } from '../record/views.ts';
import type { Writer } from './writer.ts';

/** junit.xml, for a run that judged. */
export const junitXmlFile: Writer = {
  name: 'junit.xml',
  write(record, { folder }) {
    if (judgedAny(record)) folder?.write('junit.xml', junitXml(record));
  },
};

/**
 * JUnit XML: one <testcase> per requirement (classname = operation, name = "ID title"), a
 * <testsuite> per operation. A failure's type is the requirement's level: JUnit tells every failed
 * check, the verdict (summary.json, exit status) says which ones gate.
 */
export function junitXml(run: RunRecord): string {
  const { rollUp } = run;
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  // A failure --expected excuses is written as pytest writes an expected failure (xfail): skipped,
  // with the reason, so that a CI test report agrees with the exit status.
  const excused = new Map((run.expected?.excused ?? []).map((e) => [e.id, e]));
  const isFailure = (r: RequirementResult) => r.status === 'failed' && !excused.has(r.id);
  const isSkip = (r: RequirementResult) => r.status === 'skipped' || excused.has(r.id);
  const whole = runSpan(run);
  const spans = requirementSpans(run.checks?.outcomes ?? [], whole);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="petstore-conformance" tests="${rollUp.results.length}" failures="${rollUp.results.filter(isFailure).length}" errors="0" skipped="${rollUp.results.filter(isSkip).length}" time="${seconds(run.durationMs)}" timestamp="${run.startedAt.toISOString()}">`,
  ];
  for (const [operation, results] of byOperation(rollUp.results)) {
    const failures = results.filter(isFailure).length;
    const skipped = results.filter(isSkip).length;
    const span = cover(results.map((r) => spans.get(r.id)));
    lines.push(
      `  <testsuite name="${xml(operationLabel(operation, run.operations))}" tests="${results.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${seconds(lengthOf(span))}" timestamp="${new Date(span?.start ?? whole.start).toISOString()}">`,
    );
    if (operation === rollUp.results[0]?.operation) {
      lines.push('    <properties>');
      for (const [name, value] of Object.entries(runProperties(run))) {
        lines.push(`      <property name="${xml(name)}" value="${xml(value)}"/>`);
      }
      lines.push('    </properties>');
    }
    for (const r of results) {
      const open = `    <testcase classname="${xml(operation)}" name="${xml(`${r.id} ${r.title}`)}" time="${seconds(lengthOf(spans.get(r.id)))}"`;
      const excuse = excused.get(r.id);
      if (excuse !== undefined) {
        const what = r.message ?? (r.status === 'failed' ? 'failed' : 'blocked');
        lines.push(
          `${open}>`,
          `      <skipped type="expected" message="${xml(`expected to fail: ${excuseText(excuse)} (${what})`)}"/>`,
          '    </testcase>',
        );
      } else if (r.status === 'passed' && r.flaky) {
        // Passed only after requests were sent again (--retries): as Maven Surefire writes a test
        // that passed on a rerun, one <flakyFailure> per attempt that failed.
        lines.push(`${open}>`);
        for (const attempt of r.retried ?? []) {
          const line = retriedLine(attempt);
          lines.push(
            `      <flakyFailure message="${xml(line)}" type="transport"><stackTrace>${xmlText(`${line}\n${retriesText(r.retries ?? 0)} in all; sent again with --retries`)}</stackTrace></flakyFailure>`,
          );
        }
        lines.push('    </testcase>');
      } else if (r.status === 'passed') {
        lines.push(`${open}/>`);
      } else if (r.status === 'skipped') {
        lines.push(`${open}>`, `      <skipped message="${xml(r.message ?? '')}"/>`, '    </testcase>');
      } else {
        const body = [
          `${r.id} (${r.level}) ${r.title}`,
          r.message ?? '',
          ...(r.expected === undefined ? [] : [`expected: ${r.expected}`]),
          ...(r.received === undefined ? [] : [`received: ${r.received}`]),
          ...(r.reproduce === undefined ? [] : [`reproduce: ${r.reproduce}`]),
          `gating: ${r.gating ? 'yes' : `no (${r.level} level${r.level === 'SHOULD' ? ', without --strict' : ''})`}`,
        ].join('\n');
        lines.push(
          `${open}>`,
          `      <failure message="${xml(r.message ?? 'failed')}" type="${r.level}">${xmlText(body)}</failure>`,
          '    </testcase>',
        );
      }
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>', '');
  return lines.join('\n');
}

function runProperties(run: RunRecord): Record<string, string> {
  return {
    target: run.target,
    seed: String(run.config.seed),
    verdict: run.rollUp.verdict,
    version: run.version,
    readOnly: String(run.config.readOnly),
    strict: String(run.config.strict),
    authRequired: String(run.config.authRequired),
    only: run.config.only.join(','),
    exclude: run.config.exclude.join(','),
    retries: String(run.config.retries ?? 0),
  };
}

/** XML attribute escaping (line breaks kept as character references); see xmlText. */
export function xml(value: string): string {
  return xmlText(value).replace(/"/g, '&quot;').replace(/'/g, '&apos;').replace(/\r?\n/g, '&#10;');
}

/** XML text escaping; the control characters XML 1.0 forbids are dropped. */
export function xmlText(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(FORBIDDEN_IN_XML, '');
}

/** The characters XML 1.0 does not allow (C0 controls except tab, line feed, carriage return). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching the control characters is the point
const FORBIDDEN_IN_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

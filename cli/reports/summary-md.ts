/**
 * summary.md: the verdict, the totals, each failure with its curl line and every requirement in a
 * table, for a CI job's summary page ($GITHUB_STEP_SUMMARY) or a merge-request comment.
 */

import { mdCell, mdCode, plural } from '../console/text.ts';
import { type ExpectedOutcome, excuseText } from '../record/expected.ts';
import { retriedLine, retriesText } from '../record/flaky.ts';
import { limitsLines, limitsOf } from '../record/pace.ts';
import { type BaselineOutcome, judgedAny, type RunRecord } from '../record/record.ts';
import type { RerunOutcome } from '../record/rerun.ts';
import { isBlockedResult, type RequirementResult } from '../record/rollup.ts';
import type { OperationTimes } from '../record/timings.ts';
import { trafficOf, trafficText } from '../record/traffic.ts';
import { byCause, inFixOrder, optionsText, UNJUDGED_CAUSE } from '../record/views.ts';
import type { Writer } from './writer.ts';

/** summary.md, for every run: one that could not judge says why. */
export const summaryMdFile: Writer = {
  name: 'summary.md',
  write(record, { folder }) {
    folder?.write('summary.md', summaryMarkdown(record, folder.shown));
  },
};

/** summary.md: for $GITHUB_STEP_SUMMARY, a GitLab artifact, a pull-request comment. */
export function summaryMarkdown(run: RunRecord, reportDir: string): string {
  const { rollUp, config } = run;
  const conformant = rollUp.verdict === 'conformant';
  // From the top: a failure that keeps others from being judged before those it explains.
  const failed = inFixOrder(rollUp.results);
  if (run.error !== undefined && !judgedAny(run)) {
    return [
      '## petstore-conformance: ⚠️ could not judge',
      '',
      `The run stopped before it could judge \`${run.target}\`: ${mdCell(run.error)}`,
      '',
      `No requirement was checked; the verdict is could-not-judge (exit 2). Fix the cause and run again (seed \`${config.seed}\`, petstore-conformance ${run.version}).`,
      '',
    ].join('\n');
  }
  const heading =
    rollUp.verdict === 'could-not-judge'
      ? '⚠️ could not judge'
      : conformant
        ? '✅ conformant'
        : '❌ non-conformant';
  const out: string[] = [
    `## petstore-conformance: ${heading}`,
    '',
    ...(run.error === undefined ? [] : unjudgedMarkdown(run.error, rollUp.notJudged)),
    `Target \`${run.target}\` · seed \`${config.seed}\` · ${(run.durationMs / 1000).toFixed(1)} s · petstore-conformance ${run.version}${optionsText(config) ? ` · ${optionsText(config)}` : ''}`,
    '',
    ...(run.exchanges === undefined
      ? []
      : [
          `Traffic: ${trafficText(trafficOf(run.exchanges))} (each tagged \`petstore-conformance ${config.runId}\`)${config.traceId === undefined ? '' : ` · trace \`${config.traceId}\``}`,
          '',
        ]),
    ...limitsMarkdown(run),
    '| passed | failed | blocked | skipped |',
    '|---:|---:|---:|---:|',
    `| ${rollUp.totals.passed} | ${rollUp.totals.failed} | ${rollUp.totals.blocked} | ${rollUp.totals.skipped - rollUp.totals.blocked} |`,
    '',
    ...(run.baseline === undefined ? [] : baselineMarkdown(run.baseline)),
    ...(run.rerun === undefined ? [] : rerunMarkdown(run.rerun)),
    ...(run.expected === undefined ? [] : expectedMarkdown(run.expected)),
  ];
  const causes = byCause(rollUp.results);
  const excused = new Map((run.expected?.excused ?? []).map((e) => [e.id, e]));
  if (failed.length > 0) {
    out.push('### Failures', '');
    for (const r of failed) {
      const excuse = excused.get(r.id);
      out.push(
        `#### ${r.gating && !excuse ? '❌' : '⚠️'} \`${r.id}\` (${r.level}${excuse ? ', expected' : r.gating ? '' : ', not gating'}): ${mdCell(r.title)}`,
        '',
      );
      if (excuse) out.push(`- expected deviation: ${mdCell(excuseText(excuse))}`);
      if (r.expected !== undefined) out.push(`- expected: ${mdCode(r.expected)}`);
      if (r.received !== undefined) out.push(`- received: ${mdCode(r.received)}`);
      if (r.expected === undefined && r.received === undefined) out.push(`- ${mdCell(r.message ?? '')}`);
      if (r.reproduce !== undefined) out.push('', '```sh', r.reproduce, '```');
      const dependents = causes.get(r.id) ?? [];
      if (dependents.length > 0) {
        out.push(
          '',
          `Blocks ${dependents.length} more, not judged until this is fixed: ${dependents.map((d) => `\`${d.id}\` (${d.level})`).join(', ')}`,
        );
      }
      out.push('');
    }
    out.push(
      `Reproduce the whole run with \`--seed ${config.seed}\`; every report is in \`${reportDir}\`.`,
      '',
    );
  }
  const flaky = rollUp.results.filter((r) => r.flaky);
  if (flaky.length > 0) {
    out.push('### Flaky: passed only after a request was sent again (`--retries`)', '');
    for (const r of flaky) {
      const [first] = r.retried ?? [];
      out.push(
        `- \`${r.id}\` (${r.level}): ${retriesText(r.retries ?? 0)}${first ? `; first: ${mdCode(retriedLine(first))}` : ''}`,
      );
    }
    out.push('');
  }
  const orphans = causes.get(UNJUDGED_CAUSE) ?? [];
  if (orphans.length > 0) {
    out.push('### Blocked by requirements that were not judged', '');
    for (const r of orphans) out.push(`- \`${r.id}\` (${r.level}): ${mdCell(r.message ?? '')}`);
    out.push('');
  }
  if (run.responseTimes !== undefined && run.responseTimes.size > 0) {
    out.push(...responseTimesMarkdown(run.responseTimes, run.operations, config.maxResponseTimeMs));
  }
  out.push(
    '<details><summary>All requirements</summary>',
    '',
    '| id | level | status | title |',
    '|---|---|---|---|',
    ...rollUp.results.map(
      (r) =>
        `| \`${r.id}\` | ${r.level} | ${statusMark(r)} ${statusWord(r)}${r.flaky ? ` (flaky: ${retriesText(r.retries ?? 0)})` : ''}${r.status === 'skipped' && r.message ? ` (${mdCell(r.message.replace(/^not judged: /, ''))})` : ''} | ${mdCell(r.title)} |`,
    ),
    '',
    '</details>',
    '',
  );
  return out.join('\n');
}

/**
 * summary.md's paragraph of a run that could not judge every requirement: why, and the gating
 * requirements it left unjudged; what it did judge follows as in any run.
 */
export function unjudgedMarkdown(reason: string, notJudged: readonly string[]): string[] {
  return [
    `The run could not judge every requirement (exit 2): ${mdCell(reason)}`,
    '',
    ...(notJudged.length === 0
      ? []
      : [
          `Not judged, at the gating level: ${notJudged.map((id) => `\`${id}\``).join(', ')}. What it judged is below.`,
          '',
        ]),
  ];
}

/** A result's status as the table says it: blocked and not judged are skips of their own. */
function statusWord(r: RequirementResult): string {
  if (isBlockedResult(r)) return 'blocked';
  return r.notJudged === undefined ? r.status : 'not judged';
}

export function statusMark(r: RequirementResult): string {
  if (r.status === 'passed') return '✅';
  if (isBlockedResult(r)) return '🚧';
  if (r.notJudged !== undefined) return '⚠️';
  if (r.status === 'skipped') return '⏭️';
  return r.gating ? '❌' : '⚠️';
}

/** summary.md's baseline section. */
export function baselineMarkdown(outcome: BaselineOutcome): string[] {
  const ids = (list: readonly string[]) => (list.length ? list.map((id) => `\`${id}\``).join(', ') : 'none');
  return [
    `### Baseline: ${outcome.gate === 'passed' ? '✅ no new failure' : `❌ ${plural(outcome.newFailures.length, 'new failure')}`}`,
    '',
    `Against \`${outcome.file}\` (the run of ${outcome.startedAt} on \`${outcome.target}\`); the exit status fails only on new failures.`,
    '',
    '| | requirements |',
    '|---|---|',
    `| new failures | ${ids(outcome.newFailures)} |`,
    `| still failing | ${ids(outcome.stillFailing)} |`,
    `| fixed | ${ids(outcome.fixed)} |`,
    '',
  ];
}

/** summary.md's response times: per operation, the answers timed and their median, p95 and max. */
export function responseTimesMarkdown(
  times: ReadonlyMap<string, OperationTimes>,
  routes: ReadonlyMap<string, string>,
  budgetMs: number | undefined,
): string[] {
  const ms = (n: number) => `${n} ms`;
  return [
    `### Response times${budgetMs === undefined ? '' : ` (budget ${budgetMs} ms, --max-response-time)`}`,
    '',
    'From each request sent to the last byte of its answer, as the suite measured them.',
    '',
    '| operation | answers | median | p95 | max |',
    '|---|---:|---:|---:|---:|',
    ...[...times].map(
      ([operation, t]) =>
        `| ${routes.has(operation) ? `\`${routes.get(operation)}\` (${operation})` : operation} | ${t.count} | ${ms(t.medianMs)} | ${ms(t.p95Ms)} | ${ms(t.maxMs)}${budgetMs !== undefined && t.maxMs > budgetMs ? ' ⚠️' : ''} |`,
    ),
    '',
  ];
}

/** summary.md's section of --expected: what it excused, its stale entries, the gate. */
export function expectedMarkdown(outcome: ExpectedOutcome): string[] {
  const out = [
    `### Expected deviations: ${outcome.gate === 'passed' ? '✅ gate passed' : '❌ gate failed'}`,
    '',
    `From \`${outcome.file}\`; the exit status follows this gate.${outcome.unexcused.length > 0 ? ` Not excused: ${outcome.unexcused.map((id) => `\`${id}\``).join(', ')}.` : ''}`,
    '',
  ];
  if (outcome.excused.length > 0) {
    out.push('| expected | reason |', '|---|---|');
    for (const e of outcome.excused) out.push(`| \`${e.id}\` | ${mdCell(excuseText(e))} |`);
    out.push('');
  }
  if (outcome.stale.length > 0) {
    out.push('| stale entry | why |', '|---|---|');
    for (const s of outcome.stale) out.push(`| \`${s.id}\` | ${mdCell(s.why)} |`);
    out.push('');
  }
  return out;
}

/** summary.md's rerun section: each failure of the earlier run, now. */
export function rerunMarkdown(outcome: RerunOutcome): string[] {
  const gating = outcome.items.filter((i) => i.gating).length;
  const fixed = outcome.items.filter((i) => i.now === 'fixed').length;
  const mark = { fixed: '✅', 'still failing': '❌', blocked: '🚧', 'not checked': '⏭️' } as const;
  return [
    `### Rerun: ${gating === 0 ? `✅ ${fixed} of ${outcome.items.length} fixed` : `❌ ${plural(gating, 'gating requirement')} still failing or blocked`}`,
    '',
    `Of \`${outcome.file}\` (the run of ${outcome.startedAt} on \`${outcome.target}\`): the requirements it failed or left blocked${outcome.preconditions.length > 0 ? `, with what blocked them (${outcome.preconditions.map((id) => `\`${id}\``).join(', ')})` : ''}.`,
    '',
    '| requirement | level | was | now |',
    '|---|---|---|---|',
    ...outcome.items.map(
      (i) =>
        `| \`${i.id}\` | ${i.level} | ${i.before} | ${mark[i.now]} ${i.now}${i.note ? ` (${mdCell(i.note)})` : ''} |`,
    ),
    '',
  ];
}

/** What the deployment's limits cost the run, a bullet each (record/pace.ts); nothing when it met none. */
function limitsMarkdown(run: RunRecord): string[] {
  const lines = limitsLines(limitsOf(run.pace));
  return lines.length === 0
    ? []
    : ['Limits the deployment set:', '', ...lines.map((l) => `- ${mdCell(l)}`), ''];
}

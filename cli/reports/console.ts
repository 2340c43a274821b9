/**
 * The console's part of a run's record, after the checks: the requirements by operation, each
 * failure with its evidence and what it blocks, the verdict and where the reports are; the
 * baseline's gate; or why the run could not judge.
 */

import { clipTo, type Paint, wrapList } from '../console/terminal.ts';
import { NAME } from '../record/command.ts';
import { type Excused, type ExpectedOutcome, excuseText } from '../record/expected.ts';
import { retriedLine, retriesText } from '../record/flaky.ts';
import { limitsLines, limitsOf } from '../record/pace.ts';
import { type BaselineOutcome, judgedAny, type RunRecord } from '../record/record.ts';
import { checkedText, type RerunItem, type RerunOutcome } from '../record/rerun.ts';
import { EXCLUDED, isBlockedResult, NOT_SELECTED, type RequirementResult } from '../record/rollup.ts';
import { trafficOf, trafficText } from '../record/traffic.ts';
import {
  byCause,
  byOperation,
  failedChecksText,
  inFixOrder,
  operationLabel,
  UNJUDGED_CAUSE,
} from '../record/views.ts';
import type { Writer } from './writer.ts';

/**
 * The end of the run on the console: the requirements, the failures, the verdict, the reports
 * written and the baseline's gate; for a run that could not judge, why, on stderr.
 */
export const endOfRun: Writer = {
  name: 'the console',
  write(record, { console, folder }) {
    // Judged little or nothing (stopped before its checks, or most checks met one cause, a key not
    // given): why, in one line, and nothing else; the reports hold the rest.
    if (record.error !== undefined && !judgedMostly(record)) {
      for (const line of record.problems ?? []) console.err(line);
      const reason =
        record.internalError === undefined ? record.error : `internal error: ${record.internalError}`;
      console.err(`${NAME}: could not judge: ${reason}`);
      return;
    }
    const { p, width } = console;
    for (const line of endLines(record, folder?.shown ?? '', folder?.written ?? [], p, width))
      console.out(line);
    if (record.baseline)
      for (const line of baselineLines(record.baseline, p, record.expected === undefined)) console.out(line);
    if (record.expected) for (const line of expectedLines(record.expected, p)) console.out(line);
    if (record.rerun) for (const line of rerunLines(record.rerun, p)) console.out(line);
    // Judged in part: what it judged above, and last, why not the rest.
    if (record.error !== undefined) console.err(`${NAME}: could not judge: ${record.error}`);
  },
};

/**
 * Whether a run judged at least as many requirements (passed, failed or blocked) as it left unjudged:
 * its table then says more than the one cause it could not judge the rest for.
 */
function judgedMostly(record: RunRecord): boolean {
  if (!judgedAny(record)) return false;
  const results = record.rollUp.results;
  const judged = results.filter((r) => r.status !== 'skipped' || isBlockedResult(r)).length;
  const unjudged = results.filter((r) => r.notJudged !== undefined).length;
  return judged > 0 && judged >= unjudged;
}

/**
 * The end of the run: the table by operation, the failures, the verdict and where the reports are.
 * A rerun gives no verdict here: it checked only the earlier run's failures, and its own lines
 * (rerunLines) end with what it found of them.
 */
export function endLines(
  run: RunRecord,
  reportDir: string,
  reportFiles: readonly string[],
  p: Paint,
  width = 100,
): string[] {
  const { rollUp, config } = run;
  const excused = new Map((run.expected?.excused ?? []).map((e) => [e.id, e]));
  const out: string[] = ['', p.bold('Requirements'), ''];
  // Requirements left out by --only or --exclude are counted, not listed: the reports still list every one.
  const leftOut = (r: RequirementResult, why: string) => r.status === 'skipped' && r.message === why;
  const shown = rollUp.results.filter((r) => !leftOut(r, NOT_SELECTED) && !leftOut(r, EXCLUDED));
  const notSelected = rollUp.results.filter((r) => leftOut(r, NOT_SELECTED)).length;
  const excluded = rollUp.results.filter((r) => leftOut(r, EXCLUDED)).length;
  const idWidth = Math.max(...shown.map((r) => r.id.length));
  for (const [operation, results] of byOperation(shown)) {
    out.push(p.bold(operationLabel(operation, run.operations)));
    for (const r of results) {
      const line = `  ${r.id.padEnd(idWidth)}  ${r.level.padEnd(6)}  `;
      const reason =
        r.status === 'skipped' && r.message && !isBlockedResult(r)
          ? p.dim(` ${clipTo(r.message.replace(/^not judged: /, ''), Math.max(20, width - line.length - 9))}`)
          : '';
      out.push(`${line}${statusText(r, p, excused.get(r.id))}${reason}`);
    }
    out.push('');
  }
  if (notSelected > 0)
    out.push(
      p.dim(
        run.rerun === undefined
          ? `${notSelected} more requirements ${NOT_SELECTED}`
          : `${notSelected} more requirements not checked again: ${run.rerun.file} did not fail them`,
      ),
      '',
    );
  if (excluded > 0) out.push(p.dim(`${excluded} more requirements ${EXCLUDED}`), '');

  // From the top: a failure that keeps others from being judged before those it explains.
  const failed = inFixOrder(rollUp.results);
  const causes = byCause(rollUp.results);
  if (failed.length > 0) {
    out.push(p.bold(`Failures (${failed.length}), each with what it blocks`), '');
    for (const r of failed) {
      const excuse = excused.get(r.id);
      const note = excuse ? 'expected' : r.gating ? undefined : 'not gating';
      const level = note === undefined ? r.level : `${r.level}, ${p.yellow(note)}`;
      const checksText = failedChecksText(r);
      const countText = checksText === undefined ? '' : ` (${checksText})`;
      const count = countText === '' ? '' : p.dim(countText);
      const levelText = note === undefined ? r.level : `${r.level}, ${note}`;
      const room = width - r.id.length - levelText.length - countText.length - 6;
      out.push(
        `${r.gating && !excuse ? p.red('✗') : p.yellow('!')} ${p.bold(r.id)} (${level}) ${clipTo(r.title, Math.max(20, room))}${count}`,
      );
      out.push(...evidenceLines(r, width));
      if (excuse !== undefined)
        out.push(`    ${p.yellow('deviation:')} ${clipTo(excuseText(excuse), width - 15)}`);
      const dependents = causes.get(r.id) ?? [];
      if (dependents.length > 0) {
        out.push(
          ...wrapList(
            `    blocks:    `,
            dependents.map((d) => `${d.id} (${d.level})`),
            width,
          ),
        );
      }
      out.push('');
    }
  }
  const orphans = causes.get(UNJUDGED_CAUSE) ?? [];
  if (orphans.length > 0) {
    out.push(p.bold(`Blocked, by requirements that were not judged (${orphans.length})`), '');
    for (const r of orphans) {
      out.push(`${p.yellow('◌')} ${p.bold(r.id)} (${r.level}) ${clipTo(r.title, width - r.id.length - 14)}`);
      out.push(`    ${clipTo(r.message ?? '', width - 4)}`);
      out.push('');
    }
  }

  const flaky = rollUp.results.filter((r) => r.flaky);
  if (flaky.length > 0) {
    out.push(p.bold(`Flaky (${flaky.length}): passed only after a request was sent again (--retries)`), '');
    for (const r of flaky) {
      out.push(`${p.yellow('~')} ${p.bold(r.id)} (${r.level}) ${retriesText(r.retries ?? 0)}`);
      const [first] = r.retried ?? [];
      if (first) out.push(`    ${clipTo(retriedLine(first), width - 4)}`);
    }
    out.push('');
  }

  for (const warning of rollUp.suiteWarnings) out.push(p.yellow(`warning: ${warning}`));
  const { passed, failed: nFailed, skipped, blocked } = rollUp.totals;
  const unjudged = rollUp.results.filter((r) => r.notJudged !== undefined).length;
  const verdictWord = VERDICT_WORDS[rollUp.verdict];
  const verdict =
    rollUp.verdict === 'conformant'
      ? p.green(p.bold(verdictWord))
      : rollUp.verdict === 'could-not-judge'
        ? p.yellow(p.bold(verdictWord))
        : p.red(p.bold(verdictWord));
  const gatingFailures = failed.filter((r) => r.gating).length;
  const gatingBlocked = rollUp.results.filter((r) => isBlockedResult(r) && r.gating).length;
  const gateNote =
    rollUp.verdict === 'could-not-judge'
      ? ` (${rollUp.notJudged.length} gating requirement${rollUp.notJudged.length === 1 ? '' : 's'} not judged)`
      : rollUp.verdict === 'conformant'
        ? nFailed > 0
          ? ` (${nFailed} non-gating failure${nFailed === 1 ? '' : 's'}${config.strict ? '' : '; --strict makes SHOULD failures gate'})`
          : ''
        : ` (${[
            gatingFailures > 0 ? `${gatingFailures} gating failure${gatingFailures === 1 ? '' : 's'}` : '',
            gatingBlocked > 0
              ? `${gatingBlocked} gating requirement${gatingBlocked === 1 ? '' : 's'} blocked`
              : '',
          ]
            .filter(Boolean)
            .join(', ')})`;
  const flakyNote = flaky.length > 0 ? ` (${flaky.length} flaky)` : '';
  const notJudgedNote = unjudged > 0 ? `, ${unjudged} not judged` : '';
  const counts = `${passed} passed${flakyNote}, ${nFailed} failed, ${blocked} blocked${notJudgedNote}, ${skipped - blocked - unjudged} skipped of ${rollUp.results.length} requirements`;
  // One line when it fits the width, else the verdict above the counts.
  const oneLine = `${verdict}${gateNote}: ${counts}`;
  const plainLength = `${verdictWord}${gateNote}: ${counts}`.length;
  out.push(
    ...(run.rerun !== undefined ? [] : plainLength <= width ? [oneLine] : [`${verdict}${gateNote}`, counts]),
    `seed ${config.seed} · ${(run.durationMs / 1000).toFixed(1)} s · target ${run.target}`,
    ...(run.exchanges === undefined
      ? []
      : [
          `traffic: ${trafficText(trafficOf(run.exchanges))}${config.traceId === undefined ? '' : ` · trace ${config.traceId}`}`,
        ]),
    ...limitsLines(limitsOf(run.pace)).map((line, i) => `${i === 0 ? 'limits: ' : '        '} ${line}`),
    `reports: ${reportDir} (${reportFiles.join(', ')})`,
  );
  return out;
}

/** The verdict as the console's last lines say it. */
const VERDICT_WORDS = {
  conformant: 'CONFORMANT',
  'non-conformant': 'NON-CONFORMANT',
  'could-not-judge': 'COULD NOT JUDGE',
} as const;

function statusText(r: RequirementResult, p: Paint, excused?: Excused): string {
  if (excused !== undefined) return p.yellow(`${isBlockedResult(r) ? 'blocked' : 'failed'} (expected)`);
  if (r.status === 'passed' && r.flaky)
    return `${p.green('passed')} ${p.yellow(`(flaky: ${retriesText(r.retries ?? 0)})`)}`;
  if (r.status === 'passed') return p.green('passed');
  if (isBlockedResult(r)) return p.yellow(`blocked by ${(r.blockedBy ?? []).join(', ')}`);
  if (r.notJudged !== undefined) return p.yellow('not judged');
  if (r.status === 'skipped') return p.dim('skipped');
  return r.gating ? p.red('FAILED') : p.yellow('failed (not gating)');
}

/** expected / received (cut to the width: summary.json has them whole) and reproduce (never cut). */
function evidenceLines(r: RequirementResult, width: number): string[] {
  const lines: string[] = [];
  if (r.expected !== undefined || r.received !== undefined) {
    if (r.expected !== undefined) lines.push(`    expected:  ${clipTo(r.expected, width - 15)}`);
    if (r.received !== undefined) lines.push(`    received:  ${clipTo(r.received, width - 15)}`);
  } else {
    lines.push(`    ${clipTo(r.message ?? 'failed', width - 4)}`);
  }
  // A generated sequence's reproduce is an sh script: its lines under the first one.
  if (r.reproduce !== undefined)
    lines.push(`    reproduce: ${r.reproduce.replaceAll('\n', '\n               ')}`);
  return lines;
}

/** The console's baseline lines, after the verdict; its gate line unless --expected has the last word. */
export function baselineLines(outcome: BaselineOutcome, p: Paint, withGate = true): string[] {
  const out = [
    '',
    p.bold(`Baseline ${outcome.file}`) + p.dim(` (run of ${outcome.startedAt}, ${outcome.target})`),
  ];
  const list = (label: string, ids: readonly string[], paint: (s: string) => string) => {
    if (ids.length > 0) out.push(`  ${label.padEnd(15)}${paint(ids.join(', '))}`);
  };
  list('new failures:', outcome.newFailures, p.red);
  list('still failing:', outcome.stillFailing, p.yellow);
  list('fixed:', outcome.fixed, p.green);
  if (!withGate) return out;
  out.push(
    outcome.gate === 'passed'
      ? `${p.green(p.bold('GATE PASSED'))}: no gating requirement fails that the baseline did not (${count(outcome.stillFailing.length, 'known failure')})`
      : `${p.red(p.bold('GATE FAILED'))}: ${count(outcome.newFailures.length, 'gating requirement')} failing that the baseline did not: ${outcome.newFailures.join(', ')}`,
  );
  return out;
}

/** The console's lines of --expected, after the verdict: what it excused, its stale entries, the gate. */
export function expectedLines(outcome: ExpectedOutcome, p: Paint): string[] {
  const out = ['', p.bold(`Expected deviations ${outcome.file}`)];
  for (const e of outcome.excused) out.push(`  ${p.yellow('expected:')} ${p.bold(e.id)}: ${excuseText(e)}`);
  for (const s of outcome.stale) out.push(`  ${p.yellow('stale:')}    ${p.bold(s.id)}: ${s.why}`);
  const excusedGating = outcome.excused.filter((e) => e.gating).length;
  const staleCount = `${outcome.stale.length} stale ${outcome.stale.length === 1 ? 'entry' : 'entries'}`;
  const stale = outcome.stale.length > 0 ? `; ${staleCount}` : '';
  out.push(
    outcome.gate === 'passed'
      ? `${p.green(p.bold('GATE PASSED'))}: no gating failure left that is not expected (${excusedGating} expected)${stale}`
      : outcome.unexcused.length > 0
        ? `${p.red(p.bold('GATE FAILED'))}: ${count(outcome.unexcused.length, 'gating requirement')} failing or blocked that no entry excuses: ${outcome.unexcused.join(', ')}${stale}`
        : `${p.red(p.bold('GATE FAILED'))}: ${staleCount} under --strict: remove or renew them`,
  );
  return out;
}

/**
 * The console's rerun lines, last: each earlier failure, fixed or not, and what the rerun checked
 * ("1 requirement checked: fixed"), red when a gating one still fails or is blocked (exit 1).
 */
export function rerunLines(outcome: RerunOutcome, p: Paint): string[] {
  const out = [
    '',
    p.bold(`Rerun of ${outcome.file}`) + p.dim(` (run of ${outcome.startedAt}, ${outcome.target})`),
  ];
  const mark: Record<RerunItem['now'], (s: string) => string> = {
    fixed: (s) => p.green(`✓ ${s}`),
    'still failing': (s) => p.red(`✗ ${s}`),
    blocked: (s) => p.yellow(`◌ ${s}`),
    'not checked': (s) => p.dim(`- ${s}`),
  };
  const idWidth = Math.max(...outcome.items.map((i) => i.id.length));
  for (const i of outcome.items) {
    const note = i.note === undefined ? '' : p.dim(` (${i.note})`);
    out.push(
      `  ${mark[i.now](i.id.padEnd(idWidth))}  ${i.level.padEnd(6)}  was ${i.before.padEnd(7)}  now ${i.now}${note}`,
    );
  }
  const gating = outcome.items.filter((i) => i.gating);
  const left = outcome.items.filter((i) => i.now === 'still failing' || i.now === 'blocked');
  const text = checkedText(outcome);
  out.push(
    gating.length > 0
      ? p.red(p.bold(text))
      : left.length > 0
        ? `${p.bold(text)} ${p.yellow(`(${left.map((i) => i.id).join(', ')}: not gating)`)}`
        : p.green(p.bold(text)),
  );
  return out;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/**
 * What the run prints. All of it goes through the run's redactor (see main.ts), never straight to
 * process.stdout.
 */

import type { Requirement } from '../spec/catalog.ts';
import type { Config } from '../suites/harness/config.ts';
import {
  byCause,
  byOperation,
  operationLabel,
  optionsText,
  type RunRecord,
  UNJUDGED_CAUSE,
} from './reports.ts';
import {
  EXCLUDED,
  isBlockedResult,
  NOT_SELECTED,
  type RequirementResult,
  type TestOutcome,
} from './rollup.ts';

export interface Paint {
  green(s: string): string;
  red(s: string): string;
  yellow(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
}

/**
 * Whether to colour a stream, as the NO_COLOR (no-color.org) and FORCE_COLOR conventions say:
 * NO_COLOR set to anything but '' turns colours off, whatever else is set; FORCE_COLOR=0 or false
 * turns them off; FORCE_COLOR=1, 2, 3, true or '' (set, empty) turns them on, on a pipe too (a CI
 * log that renders them); otherwise colours go to a terminal that is not TERM=dumb.
 */
export function colourOn(
  stream: { isTTY?: boolean },
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) {
    const value = force.trim().toLowerCase();
    if (value === '0' || value === 'false') return false;
    if (value === '' || value === 'true' || /^[1-3]$/.test(value)) return true;
  }
  return Boolean(stream.isTTY) && env.TERM !== 'dumb';
}

/** Colours as colourOn() decides for the stream. */
export function paintFor(
  stream: { isTTY?: boolean },
  env: Readonly<Record<string, string | undefined>>,
): Paint {
  const on = colourOn(stream, env);
  const wrap = (open: number, close: number) => (s: string) =>
    on ? `\u001b[${open}m${s}\u001b[${close}m` : s;
  return {
    green: wrap(32, 39),
    red: wrap(31, 39),
    yellow: wrap(33, 39),
    dim: wrap(2, 22),
    bold: wrap(1, 22),
  };
}

/** The lines printed before the suite starts. */
export function startLines(
  version: string,
  config: Config,
  targetFrom: string,
  selected: number,
  total: number,
  p: Paint,
): string[] {
  const key = config.apiKey
    ? `API key: set, sent in ${config.apiKeyQuery ? `query parameter ${config.apiKeyQuery}` : `header ${config.apiKeyHeader}`}`
    : 'API key: none';
  const options = optionsText(config);
  return [
    p.bold(`petstore-conformance ${version}`),
    `target:  ${config.baseUrl} ${p.dim(`(${targetFrom})`)}`,
    `seed:    ${config.seed} ${p.dim('(reuse with --seed to reproduce)')}`,
    `${key} · timeout ${config.timeoutMs} ms per request${options ? ` · ${options}` : ''}`,
    selected === total ? `checking ${total} requirements…` : `checking ${selected} of ${total} requirements…`,
    '',
  ];
}

/**
 * Progress by requirement: one line when every check of a requirement has finished, counted against
 * the requirements selected, a total known before the first check runs. Provisional: the roll-up
 * decides (a 5xx seen elsewhere still fails ANY-NO-5XX).
 */
export class Progress {
  private readonly expected = new Map<string, number>();
  private readonly finished = new Map<string, TestOutcome[]>();
  private done = 0;

  constructor(
    private readonly selected: readonly Requirement[],
    private readonly p: Paint,
    private readonly width = 100,
  ) {}

  /** A suite file's tests were collected: how many checks each requirement has. */
  collected(requirementIds: readonly (string | undefined)[]): void {
    for (const id of requirementIds) if (id) this.expected.set(id, (this.expected.get(id) ?? 0) + 1);
  }

  /** A check finished; returns the line to print when it was its requirement's last. */
  outcome(o: TestOutcome): string | undefined {
    const r = this.selected.find((x) => x.id === o.requirementId);
    if (!r) return undefined;
    const list = [...(this.finished.get(r.id) ?? []), o];
    this.finished.set(r.id, list);
    if (list.length !== this.expected.get(r.id)) return undefined;
    this.done += 1;
    const total = String(this.selected.length);
    const counter = this.p.dim(`[${String(this.done).padStart(total.length)}/${total}]`);
    const { p } = this;
    const failed = list.filter((t) => t.state === 'failed').length;
    const blocked = list.filter((t) => t.blockedBy !== undefined);
    const head = `${r.id} ${r.title}`;
    const room = this.width - total.length * 2 - 6;
    if (failed > 0) return `${counter} ${p.red('✗')} ${clipTo(head, room)}`;
    if (blocked.length > 0) {
      const by = [...new Set(blocked.flatMap((t) => t.blockedBy ?? []))].join(', ');
      return `${counter} ${p.yellow('◌')} ${clipTo(`${r.id} blocked by ${by}`, room)}`;
    }
    if (list.some((t) => t.state === 'passed')) return `${counter} ${p.green('✓')} ${clipTo(head, room)}`;
    const why = [...new Set(list.map((t) => t.note ?? 'skipped'))].join('; ');
    return `${counter} ${p.dim(`- ${clipTo(`${r.id} skipped: ${why}`, room)}`)}`;
  }
}

/** Items joined by ", " after `head`, wrapped to `width`, later lines indented as far as the first item. */
export function wrapList(head: string, items: readonly string[], width: number): string[] {
  const lines: string[] = [];
  let line = head;
  for (const [i, item] of items.entries()) {
    const piece = `${item}${i < items.length - 1 ? ',' : ''}`;
    if (line.length > head.length && line.length + 1 + piece.length > width) {
      lines.push(line);
      line = `${' '.repeat(head.length)}${piece}`;
    } else {
      line = line.length > head.length ? `${line} ${piece}` : `${line}${piece}`;
    }
  }
  lines.push(line);
  return lines;
}

/** The text cut to `width` characters, with "…" where cut. */
export function clipTo(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, Math.max(1, width - 1))}…`;
}

/** The end of the run: the table by operation, the failures, the verdict and where the reports are. */
export function endLines(
  run: RunRecord,
  reportDir: string,
  reportFiles: readonly string[],
  p: Paint,
  width = 100,
): string[] {
  const { rollUp, config } = run;
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
          ? p.dim(` ${clipTo(r.message, Math.max(20, width - line.length - 9))}`)
          : '';
      out.push(`${line}${statusText(r, p)}${reason}`);
    }
    out.push('');
  }
  if (notSelected > 0) out.push(p.dim(`${notSelected} more requirements ${NOT_SELECTED}`), '');
  if (excluded > 0) out.push(p.dim(`${excluded} more requirements ${EXCLUDED}`), '');

  const failed = rollUp.results.filter((r) => r.status === 'failed');
  const causes = byCause(rollUp.results);
  if (failed.length > 0) {
    out.push(p.bold(`Failures (${failed.length}), each with what it blocks`), '');
    for (const r of failed) {
      const level = r.gating ? r.level : `${r.level}, ${p.yellow('not gating')}`;
      const checks = r.tests.passed + r.tests.failed + r.tests.skipped;
      const count = checks > 1 ? p.dim(` (${r.tests.failed} of ${checks} checks failed)`) : '';
      const countText = checks > 1 ? ` (${r.tests.failed} of ${checks} checks failed)` : '';
      const levelText = r.gating ? r.level : `${r.level}, not gating`;
      const room = width - r.id.length - levelText.length - countText.length - 6;
      out.push(
        `${p.red(r.gating ? '✗' : '!')} ${p.bold(r.id)} (${level}) ${clipTo(r.title, Math.max(20, room))}${count}`,
      );
      out.push(...evidenceLines(r, width));
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

  for (const warning of rollUp.suiteWarnings) out.push(p.yellow(`warning: ${warning}`));
  const { passed, failed: nFailed, skipped, blocked } = rollUp.totals;
  const verdict =
    rollUp.verdict === 'conformant' ? p.green(p.bold('CONFORMANT')) : p.red(p.bold('NON-CONFORMANT'));
  const gatingFailures = failed.filter((r) => r.gating).length;
  const gatingBlocked = rollUp.results.filter((r) => isBlockedResult(r) && r.gating).length;
  const gateNote =
    rollUp.verdict === 'conformant'
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
  const counts = `${passed} passed, ${nFailed} failed, ${blocked} blocked, ${skipped - blocked} skipped of ${rollUp.results.length} requirements`;
  // One line when it fits the width, else the verdict above the counts.
  const oneLine = `${verdict}${gateNote}: ${counts}`;
  const plainLength =
    `${rollUp.verdict === 'conformant' ? 'CONFORMANT' : 'NON-CONFORMANT'}${gateNote}: ${counts}`.length;
  out.push(
    ...(plainLength <= width ? [oneLine] : [`${verdict}${gateNote}`, counts]),
    `seed ${config.seed} · ${(run.durationMs / 1000).toFixed(1)} s · target ${run.target}`,
    `reports: ${reportDir} (${reportFiles.join(', ')})`,
  );
  return out;
}

function statusText(r: RequirementResult, p: Paint): string {
  if (r.status === 'passed') return p.green('passed');
  if (isBlockedResult(r)) return p.yellow(`blocked by ${(r.blockedBy ?? []).join(', ')}`);
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

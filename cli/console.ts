/**
 * What the run prints. All of it goes through the run's redactor (see main.ts), never straight to
 * process.stdout.
 */
import type { Config } from '../suites/harness/config.ts';
import { byOperation, operationLabel, optionsText, type RunRecord } from './reports.ts';
import { EXCLUDED, NOT_SELECTED, type RequirementResult, type TestOutcome } from './rollup.ts';

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

/** One progress line per finished test; none for tests --only or --exclude left out (they are many, and say nothing). */
export function progressLine(
  outcome: TestOutcome,
  done: number,
  collected: number,
  p: Paint,
): string | undefined {
  if (outcome.state === 'skipped' && (outcome.note === NOT_SELECTED || outcome.note === EXCLUDED))
    return undefined;
  const counter = p.dim(`[${String(done).padStart(String(collected).length)}/${collected}]`);
  if (outcome.state === 'passed') return `${counter} ${p.green('✓')} ${outcome.name}`;
  if (outcome.state === 'skipped')
    return `${counter} ${p.dim(`- ${outcome.name} (skipped: ${outcome.note ?? 'no reason given'})`)}`;
  return `${counter} ${p.red('✗')} ${outcome.name}`;
}

/** The end of the run: the table by operation, the failures, the verdict and where the reports are. */
export function endLines(
  run: RunRecord,
  reportDir: string,
  reportFiles: readonly string[],
  p: Paint,
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
      const reason = r.status === 'skipped' && r.message ? p.dim(` ${r.message}`) : '';
      out.push(`  ${r.id.padEnd(idWidth)}  ${r.level.padEnd(6)}  ${statusText(r, p)}${reason}`);
    }
    out.push('');
  }
  if (notSelected > 0) out.push(p.dim(`${notSelected} more requirements ${NOT_SELECTED}`), '');
  if (excluded > 0) out.push(p.dim(`${excluded} more requirements ${EXCLUDED}`), '');

  const failed = rollUp.results.filter((r) => r.status === 'failed');
  if (failed.length > 0) {
    out.push(p.bold(`Failures (${failed.length})`), '');
    for (const r of failed) {
      const level = r.gating ? r.level : `${r.level}, ${p.yellow('not gating')}`;
      const checks = r.tests.passed + r.tests.failed + r.tests.skipped;
      const count = checks > 1 ? p.dim(` (${r.tests.failed} of ${checks} checks failed)`) : '';
      out.push(`${p.red(r.gating ? '✗' : '!')} ${p.bold(r.id)} (${level}) ${r.title}${count}`);
      if (r.expected !== undefined || r.received !== undefined) {
        if (r.expected !== undefined) out.push(`    expected:  ${r.expected}`);
        if (r.received !== undefined) out.push(`    received:  ${r.received}`);
      } else {
        out.push(`    ${r.message ?? 'failed'}`);
      }
      if (r.reproduce !== undefined) out.push(`    reproduce: ${r.reproduce}`);
      out.push('');
    }
  }

  for (const warning of rollUp.suiteWarnings) out.push(p.yellow(`warning: ${warning}`));
  const { passed, failed: nFailed, skipped } = rollUp.totals;
  const verdict =
    rollUp.verdict === 'conformant' ? p.green(p.bold('CONFORMANT')) : p.red(p.bold('NON-CONFORMANT'));
  const gatingFailures = failed.filter((r) => r.gating).length;
  const gateNote =
    rollUp.verdict === 'conformant'
      ? nFailed > 0
        ? ` (${nFailed} non-gating failure${nFailed === 1 ? '' : 's'}${config.strict ? '' : '; --strict makes SHOULD failures gate'})`
        : ''
      : ` (${gatingFailures} gating failure${gatingFailures === 1 ? '' : 's'})`;
  out.push(
    `${verdict}${gateNote}: ${passed} passed, ${nFailed} failed, ${skipped} skipped of ${rollUp.results.length} requirements`,
    `seed ${config.seed} · ${(run.durationMs / 1000).toFixed(1)} s · target ${run.target}`,
    `reports: ${reportDir} (${reportFiles.join(', ')})`,
  );
  return out;
}

function statusText(r: RequirementResult, p: Paint): string {
  if (r.status === 'passed') return p.green('passed');
  if (r.status === 'skipped') return p.dim('skipped');
  return r.gating ? p.red('FAILED') : p.yellow('failed (not gating)');
}

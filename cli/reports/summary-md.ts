/**
 * The report documents of a run: summary.json (the public contract), JUnit XML and the Markdown
 * summary. Built as text here; written (and redacted) in one place, write.ts.
 */
import type { Config } from '../../suites/harness/config.ts';
import { type BaselineOutcome, baselineJson, baselineMarkdown } from '../across/baseline.ts';
import { catalogIdentity } from '../across/summary-file.ts';
import { isBlockedResult, type RequirementResult, type RollUp } from '../record/rollup.ts';
import { networkOptions } from '../run/network.ts';

export interface RunRecord {
  readonly version: string;
  /** The base URL checked. */
  readonly target: string;
  /** How the target was chosen: "bundled reference implementation", "--target staging", … */
  readonly targetFrom: string;
  readonly startedAt: Date;
  readonly durationMs: number;
  readonly config: Config;
  readonly rollUp: RollUp;
  /** operationId → "GET /pets". */
  readonly operations: ReadonlyMap<string, string>;
  /** The run could not judge (exit 2): why, in one line. */
  readonly error?: string;
  /** --baseline: which gating failures are new, still there, fixed. */
  readonly baseline?: BaselineOutcome;
}

/** summary.json, exactly as CONTRACT.md gives it (plus expected/received on failures, options.only). */
export function summaryJson(run: RunRecord): string {
  const { config, rollUp } = run;
  const summary = {
    tool: { name: 'petstore-conformance', version: run.version },
    // Which catalog the results answer to (compare and --baseline refuse to mix two); none when it was unreadable.
    ...(rollUp.results.length === 0 ? {} : { catalog: catalogIdentity(rollUp.results) }),
    target: run.target,
    startedAt: run.startedAt.toISOString(),
    durationMs: run.durationMs,
    seed: config.seed,
    options: {
      readOnly: config.readOnly,
      strict: config.strict,
      authRequired: config.authRequired,
      only: [...config.only],
      exclude: [...config.exclude],
      ...networkOptions(config),
    },
    verdict: rollUp.verdict,
    ...(run.error === undefined ? {} : { error: run.error }),
    totals: { ...rollUp.totals },
    ...(run.baseline === undefined ? {} : { baseline: baselineJson(run.baseline) }),
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
    })),
  };
  return `${JSON.stringify(summary, null, 2)}\n`;
}

/** The key byCause() files blocked requirements under when no failed requirement explains them. */
export const UNJUDGED_CAUSE = '';

/**
 * Blocked requirements by the failed requirement that is their cause, following chains (blocked by a
 * requirement that is itself blocked). A requirement blocked only by requirements that were not
 * judged (not selected, skipped) is filed under UNJUDGED_CAUSE.
 */
export function byCause(results: readonly RequirementResult[]): Map<string, RequirementResult[]> {
  const byId = new Map(results.map((r) => [r.id, r]));
  const roots = (r: RequirementResult, seen: Set<string>): string[] =>
    (r.blockedBy ?? []).flatMap((id) => {
      const blocker = byId.get(id);
      if (!blocker || seen.has(id)) return [];
      if (blocker.status === 'failed') return [id];
      return isBlockedResult(blocker) ? roots(blocker, new Set([...seen, id])) : [];
    });
  const causes = new Map<string, RequirementResult[]>();
  for (const r of results.filter(isBlockedResult)) {
    const found = [...new Set(roots(r, new Set([r.id])))];
    for (const cause of found.length > 0 ? found : [UNJUDGED_CAUSE]) {
      causes.set(cause, [...(causes.get(cause) ?? []), r]);
    }
  }
  return causes;
}

/** The operation a requirement belongs to, as a heading: "GET /pets (listPets)" or "any operation". */
export function operationLabel(operation: string, operations: ReadonlyMap<string, string>): string {
  if (operation === 'any') return 'any operation';
  const route = operations.get(operation);
  return route ? `${route} (${operation})` : operation;
}

/** Results grouped by operation, groups in the order the catalog first names them. */
export function byOperation(results: readonly RequirementResult[]): Map<string, RequirementResult[]> {
  const groups = new Map<string, RequirementResult[]>();
  for (const r of results) {
    const list = groups.get(r.operation) ?? [];
    list.push(r);
    groups.set(r.operation, list);
  }
  return groups;
}

/**
 * JUnit XML: one <testcase> per requirement (classname = operation, name = "ID title"), a
 * <testsuite> per operation. A failure's type is the requirement's level: JUnit tells every failed
 * check, the verdict (summary.json, exit status) says which ones gate.
 */
export function junitXml(run: RunRecord): string {
  const { rollUp } = run;
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="petstore-conformance" tests="${rollUp.results.length}" failures="${rollUp.totals.failed}" errors="0" skipped="${rollUp.totals.skipped}" time="${seconds(run.durationMs)}" timestamp="${run.startedAt.toISOString()}">`,
  ];
  for (const [operation, results] of byOperation(rollUp.results)) {
    const failures = results.filter((r) => r.status === 'failed').length;
    const skipped = results.filter((r) => r.status === 'skipped').length;
    const time = results.reduce((sum, r) => sum + r.durationMs, 0);
    lines.push(
      `  <testsuite name="${xml(operationLabel(operation, run.operations))}" tests="${results.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${seconds(time)}" timestamp="${run.startedAt.toISOString()}">`,
    );
    if (operation === rollUp.results[0]?.operation) {
      lines.push('    <properties>');
      for (const [name, value] of Object.entries(runProperties(run))) {
        lines.push(`      <property name="${xml(name)}" value="${xml(value)}"/>`);
      }
      lines.push('    </properties>');
    }
    for (const r of results) {
      const open = `    <testcase classname="${xml(operation)}" name="${xml(`${r.id} ${r.title}`)}" time="${seconds(r.durationMs)}"`;
      if (r.status === 'passed') {
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

/** summary.md: for $GITHUB_STEP_SUMMARY, a GitLab artifact, a pull-request comment. */
export function summaryMarkdown(run: RunRecord, reportDir: string): string {
  const { rollUp, config } = run;
  const conformant = rollUp.verdict === 'conformant';
  const failed = rollUp.results.filter((r) => r.status === 'failed');
  if (run.error !== undefined) {
    return [
      '## petstore-conformance: ⚠️ could not judge',
      '',
      `The run stopped before it could judge \`${run.target}\`: ${md(run.error)}`,
      '',
      `No requirement was checked; the verdict counts as non-conformant (exit 2). Fix the cause and run again (seed \`${config.seed}\`, petstore-conformance ${run.version}).`,
      '',
    ].join('\n');
  }
  const out: string[] = [
    `## petstore-conformance: ${conformant ? '✅ conformant' : '❌ non-conformant'}`,
    '',
    `Target \`${run.target}\` · seed \`${config.seed}\` · ${(run.durationMs / 1000).toFixed(1)} s · petstore-conformance ${run.version}${optionsText(config) ? ` · ${optionsText(config)}` : ''}`,
    '',
    '| passed | failed | blocked | skipped |',
    '|---:|---:|---:|---:|',
    `| ${rollUp.totals.passed} | ${rollUp.totals.failed} | ${rollUp.totals.blocked} | ${rollUp.totals.skipped - rollUp.totals.blocked} |`,
    '',
    ...(run.baseline === undefined ? [] : baselineMarkdown(run.baseline)),
  ];
  const causes = byCause(rollUp.results);
  if (failed.length > 0) {
    out.push('### Failures', '');
    for (const r of failed) {
      out.push(
        `#### ${r.gating ? '❌' : '⚠️'} \`${r.id}\` (${r.level}${r.gating ? '' : ', not gating'}): ${md(r.title)}`,
        '',
      );
      if (r.expected !== undefined) out.push(`- expected: ${code(r.expected)}`);
      if (r.received !== undefined) out.push(`- received: ${code(r.received)}`);
      if (r.expected === undefined && r.received === undefined) out.push(`- ${md(r.message ?? '')}`);
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
  const orphans = causes.get(UNJUDGED_CAUSE) ?? [];
  if (orphans.length > 0) {
    out.push('### Blocked by requirements that were not judged', '');
    for (const r of orphans) out.push(`- \`${r.id}\` (${r.level}): ${md(r.message ?? '')}`);
    out.push('');
  }
  out.push(
    '<details><summary>All requirements</summary>',
    '',
    '| id | level | status | title |',
    '|---|---|---|---|',
    ...rollUp.results.map(
      (r) =>
        `| \`${r.id}\` | ${r.level} | ${statusMark(r)} ${isBlockedResult(r) ? 'blocked' : r.status}${r.status === 'skipped' && r.message ? ` (${md(r.message)})` : ''} | ${md(r.title)} |`,
    ),
    '',
    '</details>',
    '',
  );
  return out.join('\n');
}

export function statusMark(r: RequirementResult): string {
  if (r.status === 'passed') return '✅';
  if (isBlockedResult(r)) return '🚧';
  if (r.status === 'skipped') return '⏭️';
  return r.gating ? '❌' : '⚠️';
}

export function optionsText(config: Config): string {
  return [
    config.readOnly ? '--read-only' : '',
    config.strict ? '--strict' : '',
    config.authRequired ? '--auth-required' : '',
    config.only.length ? `--only ${config.only.join(',')}` : '',
    config.exclude.length ? `--exclude ${config.exclude.join(',')}` : '',
    config.network?.tls?.insecure ? '--insecure' : '',
  ]
    .filter(Boolean)
    .join(' ');
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

/** Markdown table cell text: pipes escaped, line breaks folded. */
function md(value: string): string {
  return value.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** Inline code that survives backticks in the value. */
function code(value: string): string {
  const text = md(value);
  const fence = text.includes('`') ? '``' : '`';
  return `${fence}${fence === '``' ? ' ' : ''}${text}${fence === '``' ? ' ' : ''}${fence}`;
}

/**
 * What the Allure report says of the run as a whole, from its record: the report's name (the
 * verdict), its first screen (environment.properties: the verdict, counts per requirement, the seed,
 * the gating level), the overview's attachments (the verdict with every failure, what the service
 * document leaves unspecified), a requirement's roll-up message, and what changed since the previous
 * report. Pure text; allure-results.ts writes it through allure-js-commons, html.ts names the report.
 */
import { readFileSync } from 'node:fs';
import type { Catalog } from '../../catalog/catalog.ts';
import { retriedLine, retriesText } from '../record/flaky.ts';
import type { RunRecord } from '../record/record.ts';
import { isBlockedResult, type RequirementResult } from '../record/rollup.ts';
import { failedChecksText, optionsText } from '../record/views.ts';

/** The catalog as the overview quotes it. */
export type OverviewCatalog = Pick<Catalog, 'requirements' | 'unspecified'>;

/**
 * The status of each requirement in the last run Allure's history file holds (read before this
 * run's report appends to it), by requirement id; undefined when there is no history yet. Each
 * line of the file is a run: { testResults: { [historyId]: { status, labels } } }, a result per
 * check (and per requirement the roll-up failed beyond its checks): a requirement failed when any
 * of its results failed, else passed when any passed.
 */
export function previousStatuses(historyFile: string): Map<string, string> | undefined {
  let text: string;
  try {
    text = readFileSync(historyFile, 'utf8');
  } catch {
    return undefined;
  }
  const last = text.trimEnd().split('\n').at(-1);
  if (!last) return undefined;
  try {
    const point = JSON.parse(last) as {
      testResults?: Record<string, { status?: string; labels?: { name: string; value: string }[] }>;
    };
    const statuses = new Map<string, string>();
    for (const item of Object.values(point.testResults ?? {})) {
      const id = item.labels?.find((l) => l.name === 'requirement')?.value;
      if (id === undefined || item.status === undefined) continue;
      const before = statuses.get(id);
      if (before === undefined || RANK.indexOf(item.status) < RANK.indexOf(before))
        statuses.set(id, item.status);
    }
    return statuses;
  } catch {
    return undefined;
  }
}

/** Allure's statuses, the one that decides a requirement first. */
const RANK = ['failed', 'broken', 'passed', 'skipped', 'unknown'];

/** What changed since the previous run: requirements that fail now and did not, and those fixed. */
export function changes(
  record: RunRecord,
  previous: ReadonlyMap<string, string> | undefined,
): { newlyFailed: string[]; fixed: string[] } | undefined {
  if (previous === undefined) return undefined;
  const newlyFailed: string[] = [];
  const fixed: string[] = [];
  for (const r of record.rollUp.results) {
    const before = previous.get(r.id);
    if (r.status === 'failed' && before !== 'failed') newlyFailed.push(r.id);
    if (r.status === 'passed' && before === 'failed') fixed.push(r.id);
  }
  return { newlyFailed, fixed };
}

/** "1 newly failed, 24 fixed", "no requirement changed", "no earlier run in this folder". */
export function changesLine(diff: ReturnType<typeof changes>): string {
  if (diff === undefined) return 'no earlier report in this folder';
  if (diff.newlyFailed.length === 0 && diff.fixed.length === 0) return 'no requirement newly failed or fixed';
  return `${diff.newlyFailed.length} newly failed, ${diff.fixed.length} fixed`;
}

/** What failed, how to reproduce it and whether it gates; or why the requirement was not checked. */
export function requirementMessage(r: RequirementResult): string {
  if (r.status === 'passed' && r.flaky) {
    return [
      `flaky: passed only after ${retriesText(r.retries ?? 0)} (--retries): the transport failed before an answer`,
      ...(r.retried ?? []).map(retriedLine),
    ].join('\n');
  }
  if (r.status === 'passed') return '';
  // A blocked requirement's message is the roll-up's, which names what blocks it.
  if (isBlockedResult(r)) return r.message ?? `blocked by ${(r.blockedBy ?? []).join(', ')}`;
  if (r.status === 'skipped') return r.message ?? 'skipped';
  const lines = [
    `${failedChecksText(r) ?? 'failed'} · ${
      r.gating
        ? `gating: this ${r.level} failure makes the run non-conformant`
        : r.level === 'SHOULD'
          ? 'not gating: a SHOULD failure decides the verdict only with --strict'
          : 'not gating: a MAY requirement is a notice'
    }`,
  ];
  if (r.expected !== undefined || r.received !== undefined) {
    if (r.expected !== undefined) lines.push(`expected:  ${r.expected}`);
    if (r.received !== undefined) lines.push(`received:  ${r.received}`);
  } else {
    lines.push(r.message ?? 'failed');
  }
  if (r.reproduce !== undefined) lines.push(`reproduce: ${r.reproduce}`);
  return lines.join('\n');
}

/** Counts per requirement as in summary.json, blocked counted apart from the other skips. */
export function requirementCounts(record: RunRecord): {
  passed: number;
  failed: number;
  blocked: number;
  skipped: number;
  total: number;
} {
  const results = record.rollUp.results;
  const blocked = results.filter(isBlockedResult).length;
  return {
    passed: results.filter((r) => r.status === 'passed').length,
    failed: results.filter((r) => r.status === 'failed').length,
    blocked,
    skipped: results.filter((r) => r.status === 'skipped').length - blocked,
    total: results.length,
  };
}

/**
 * "1 MUST failed", "1 MUST and 2 SHOULD failed", "2 MUST failed, 1 MUST blocked": the gating
 * requirements that failed, then those blocked, by level.
 */
export function gatingFailures(record: RunRecord): string | undefined {
  const byLevel = (picked: readonly RequirementResult[]) =>
    (['MUST', 'SHOULD'] as const)
      .map((level) => [level, picked.filter((r) => r.level === level).length] as const)
      .filter(([, n]) => n > 0)
      .map(([level, n]) => `${n} ${level}`)
      .join(' and ');
  const gating = record.rollUp.results.filter((r) => r.gating);
  const failed = gating.filter((r) => r.status === 'failed');
  const blocked = gating.filter(isBlockedResult);
  const parts = [
    ...(failed.length > 0 ? [`${byLevel(failed)} failed`] : []),
    ...(blocked.length > 0 ? [`${byLevel(blocked)} blocked`] : []),
  ];
  return parts.length > 0 ? parts.join(', ') : undefined;
}

/** Which levels decide the verdict. */
export function gatingLevel(record: RunRecord): string {
  return record.config.strict ? 'MUST and SHOULD (--strict)' : 'MUST (SHOULD gates only with --strict)';
}

/** The target as the report's name shows it: without scheme, credentials or trailing slash. */
export function targetName(record: RunRecord): string {
  if (record.targetFrom.startsWith('bundled reference implementation'))
    return 'bundled reference implementation';
  try {
    const url = new URL(record.target);
    return `${url.host}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return record.target;
  }
}

/** "NON-CONFORMANT · 2 MUST failed · staging.pets.example.com/v1": the report's name and title. */
export function reportName(record: RunRecord): string {
  const conformant = record.rollUp.verdict === 'conformant';
  const gating = gatingFailures(record);
  const detail = conformant
    ? `no ${record.config.strict ? 'MUST or SHOULD' : 'MUST'} failed`
    : (gating ?? record.error ?? 'not judged');
  return `${conformant ? 'CONFORMANT' : 'NON-CONFORMANT'} · ${detail} · ${targetName(record)}`;
}

/** "38 passed · 1 failed · 2 blocked · 1 skipped of 42 requirements". */
export function countsLine(record: RunRecord): string {
  const c = requirementCounts(record);
  return `${c.passed} passed · ${c.failed} failed · ${c.blocked} blocked · ${c.skipped} skipped of ${c.total} requirements`;
}

/**
 * The report's metadata, the key/value list of the first screen (environment.properties): eight
 * entries show before "Show more", two to a row, so the verdict, the counts per requirement, the
 * seed and the gating level come first. Written once the run is judged (allure-results.ts).
 */
export function environmentInfo(
  record: RunRecord,
  previous?: ReadonlyMap<string, string>,
): Record<string, string> {
  const failed = record.rollUp.results.filter((r) => r.status === 'failed');
  const gating = failed.filter((r) => r.gating).map((r) => r.id);
  const notGating = failed.filter((r) => !r.gating).map((r) => r.id);
  const c = requirementCounts(record);
  return {
    verdict: reportName(record).split(' · ').slice(0, 2).join(' · '),
    'vs last report': changesLine(changes(record, previous)),
    failed: `${c.failed} of ${c.total} requirements${c.failed > 0 ? ` (${gating.length} gating)` : ''}`,
    passed: String(c.passed),
    blocked: String(c.blocked),
    skipped: String(c.skipped),
    seed: String(record.config.seed),
    'gating level': gatingLevel(record),
    target: record.target,
    'gating failures': gating.join(', ') || 'none',
    'not gating failures': notGating.join(', ') || 'none',
    options: optionsText(record.config) || '(none)',
    started: `${record.startedAt.toISOString()} (${(record.durationMs / 1000).toFixed(1)} s)`,
    'target from': record.targetFrom,
    'api key': record.config.apiKey ? 'set (masked in every report)' : 'none',
    'petstore-conformance': `${record.version} (Node ${process.version})`,
  };
}

/** The overview attachment: the verdict, the counts, every failure with its curl line, as the console shows them. */
export function overviewText(record: RunRecord, previous?: ReadonlyMap<string, string>): string {
  const c = requirementCounts(record);
  const failed = record.rollUp.results.filter((r) => r.status === 'failed');
  const blocked = record.rollUp.results.filter(isBlockedResult);
  const out = [
    reportName(record),
    '',
    `requirements: ${c.total} · passed ${c.passed} · failed ${c.failed} · blocked ${c.blocked} · skipped ${c.skipped}`,
    `target:       ${record.target}`,
    `seed:         ${record.config.seed} (the same inputs again: --seed ${record.config.seed})`,
    `gating level: ${gatingLevel(record)}`,
    `options:      ${optionsText(record.config) || '(none)'}`,
    `run:          ${record.startedAt.toISOString()}, ${(record.durationMs / 1000).toFixed(1)} s, petstore-conformance ${record.version}`,
  ];
  const diff = changes(record, previous);
  out.push(`since the previous report: ${changesLine(diff)}`);
  if (diff?.newlyFailed.length) out.push(...wrap(`newly failed: ${diff.newlyFailed.join(', ')}`, '  '));
  if (diff?.fixed.length) out.push(...wrap(`fixed:        ${diff.fixed.join(', ')}`, '  '));
  if (failed.length > 0) {
    out.push('', `Failures (${failed.length})`);
    for (const r of failed) {
      out.push(
        '',
        `${r.gating ? '✗' : '!'} ${r.id} (${r.level}${r.gating ? '' : ', not gating'}) ${r.title}`,
      );
      for (const line of requirementMessage(r).split('\n')) out.push(`    ${line}`);
    }
  }
  if (blocked.length > 0) {
    out.push('', `Blocked (${blocked.length})`);
    for (const r of blocked)
      out.push('', `- ${r.id} (${r.level}) ${r.title}`, `    ${requirementMessage(r)}`);
  }
  return `${out.join('\n')}\n`;
}

/** What the service document leaves unspecified, what the suite tolerates there, and where it applies. */
export function unspecifiedText(catalog: OverviewCatalog): string {
  const out = [
    'Where the service document is silent, and what the suite tolerates',
    'None of these becomes a MUST: the suite accepts what is listed as tolerated.',
  ];
  for (const u of catalog.unspecified) {
    const ids = catalog.requirements.filter((r) => r.unspecified === u.topic).map((r) => r.id);
    out.push(
      '',
      `${u.topic} (spec/service.md, "${u.section}")`,
      ...wrap(`the document: ${u.text.trim()}`, '    '),
      ...wrap(`tolerated:    ${u.tolerated.trim()}`, '    '),
      ...(ids.length > 0 ? wrap(`checked by:   ${ids.join(', ')}`, '    ') : []),
    );
  }
  return `${out.join('\n')}\n`;
}

/** Lines of at most `width` characters (words kept whole), each after `indent`, continuation lines aligned. */
function wrap(text: string, indent: string, width = 100): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.replace(/\s+/g, ' ').split(' ')) {
    if (line && indent.length + line.length + 1 + word.length > width) {
      lines.push(`${indent}${line}`);
      line = `${' '.repeat(14)}${word}`;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(`${indent}${line}`);
  return lines;
}

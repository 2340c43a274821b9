/**
 * The Allure results of a run, one per requirement. allure-vitest writes one result per check (a
 * requirement can have several: [limit=101], [limit=2^31]…); Allure counts, charts, categorises and
 * keeps history per result, so read as they come every number of the report would be per check. The
 * CLI therefore rewrites the staging folder, before it is copied through the redactor, into:
 *
 * - one result per catalog requirement, in the roll-up's status (summary.json's), named
 *   "ID (LEVEL) title", labelled with its operation, level and gating, described by the quoted
 *   sentence of the service document, linked to the RFCs behind it, with a history id of its own;
 * - its checks as its steps, each with its own status, its message (expected / received /
 *   reproduce) without stack frames of the harness, and the request and response attachments;
 * - environment.properties (the report's metadata: verdict, counts, target, seed, gating level),
 *   executor.json, and a globals file whose attachments are the run's overview: the verdict with
 *   every failure, and what the service document leaves unspecified with what the suite tolerates.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Catalog, Requirement } from '../../catalog/catalog.ts';
import { rfcLinks } from '../../suites/harness/allure.ts';
import { excuseText } from '../record/expected.ts';
import { retriedLine, retriesText } from '../record/flaky.ts';
import { ALLURE_RESULTS, type AllureFiles, type RunRecord } from '../record/record.ts';
import { isBlockedResult, type RequirementResult, type Status, type TestOutcome } from '../record/rollup.ts';
import { failedChecksText, operationLabel, optionsText } from '../record/views.ts';
import { HISTORY_FILE } from './folder.ts';
import type { Writer } from './writer.ts';

/**
 * allure-results/, for a run that judged: what the Allure reporter staged, rewritten into one
 * result per requirement (see the top of this file), written into the report folder redacted.
 */
export const allureResults: Writer = {
  name: 'allure-results/',
  async write(record, { folder }) {
    const { checks } = record;
    if (record.error !== undefined || checks === undefined || folder === undefined) {
      // Attachments written ahead while the checks ran (allureAttachments) go with the results.
      await folder?.discard(ALLURE_RESULTS);
      return;
    }
    prepareAllureResults(checks.allureResults, {
      record,
      catalog: checks.catalog,
      outcomes: checks.outcomes,
      previous: previousStatuses(path.join(folder.dir, HISTORY_FILE)),
    });
    await folder.writeAll(checks.allureResults, ALLURE_RESULTS);
  },
};

/** The parts of an Allure 2 result file this module reads and writes. */
export interface AllureStep {
  name: string;
  status?: string;
  statusDetails?: { message?: string; trace?: string; flaky?: boolean; known?: boolean };
  stage?: string;
  steps?: AllureStep[];
  attachments?: { name: string; source: string; type?: string }[];
  parameters?: { name: string; value: string }[];
  start?: number;
  stop?: number;
}

export interface AllureResult extends AllureStep {
  uuid: string;
  historyId?: string;
  testCaseId?: string;
  fullName?: string;
  description?: string;
  labels: { name: string; value: string }[];
  links: { name?: string; url: string; type?: string }[];
}

export interface AllureRun {
  readonly record: RunRecord;
  readonly catalog: Pick<Catalog, 'requirements' | 'unspecified'>;
  /** The vitest outcomes: they give each check its skip reason. */
  readonly outcomes: readonly TestOutcome[];
  /** Requirement id → status in the previous run with history in this report folder (see previousStatuses). */
  readonly previous?: ReadonlyMap<string, string>;
}

const SEVERITY = { MUST: 'critical', SHOULD: 'normal', MAY: 'minor' } as const;

/**
 * Rewrites the results allure-vitest staged (file name → bytes) into the report's results, in
 * place (see the top of this file). A run whose reporter wrote nothing (cut short before any check
 * ended) is still reported.
 */
export function prepareAllureResults(files: AllureFiles, run: AllureRun): void {
  const checks: AllureResult[] = [];
  for (const [name, content] of files) {
    if (!name.endsWith('-result.json')) continue;
    try {
      checks.push(JSON.parse(content.toString('utf8')) as AllureResult);
    } catch {
      // A result the reporter could not finish writing: its check is still in the roll-up.
    }
    files.delete(name);
  }
  const { results, files: added } = requirementResults(checks, run);
  for (const result of results) files.set(`${result.uuid}-result.json`, Buffer.from(JSON.stringify(result)));
  for (const file of added) files.set(file.name, Buffer.from(file.content));
}

/** The report's results from the checks' results: pure, for the tests. */
export function requirementResults(
  checks: readonly AllureResult[],
  run: AllureRun,
): { results: AllureResult[]; files: { name: string; content: string }[] } {
  const { record, catalog } = run;
  const byId = new Map<string, AllureResult[]>();
  for (const check of checks) {
    const id = check.labels?.find((l) => l.name === 'requirement')?.value;
    if (id === undefined) continue;
    byId.set(id, [...(byId.get(id) ?? []), check]);
  }
  const outcomes = new Map(run.outcomes.map((o) => [o.name, o]));
  const requirements = new Map(catalog.requirements.map((r) => [r.id, r]));
  const runStart = record.startedAt.getTime();
  const excused = new Map((record.expected?.excused ?? []).map((e) => [e.id, e]));

  const order = treeOrder(record);
  const results = order.map((result, position): AllureResult => {
    const r = requirements.get(result.id);
    const steps = (byId.get(result.id) ?? [])
      .sort((a, b) => (a.start ?? 0) - (b.start ?? 0))
      .map((check) => checkStep(check, result, outcomes.get(check.name)));
    const first = Math.min(...steps.map((s) => s.start ?? Number.POSITIVE_INFINITY));
    const last = Math.max(...steps.map((s) => s.stop ?? Number.NEGATIVE_INFINITY));
    const duration = Number.isFinite(first) && Number.isFinite(last) ? Math.max(0, last - first) : 0;
    // Allure orders its tree by start time. The checks of a run start in no fixed order, so each
    // requirement starts at the run's start plus its position in the tree (milliseconds): the tree
    // reads in the same order every run. Its checks (its steps) keep the times they really ran.
    const start = runStart + position;
    const excuse = excused.get(result.id);
    return {
      uuid: randomUUID(),
      historyId: historyIdOf(result.id),
      testCaseId: historyIdOf(result.id),
      name: `${result.id} (${result.level}) ${result.title}`,
      fullName: `petstore-conformance: ${result.id}`,
      status: result.status,
      // A flaky pass keeps its status; Allure marks it with its flaky flag. An expected failure
      // (--expected) stays failed, marked known, its reason first and its ticket linked.
      statusDetails: {
        message: `${excuse ? `expected to fail: ${excuseText(excuse)}\n` : ''}${requirementMessage(result)}`,
        ...(result.flaky ? { flaky: true } : {}),
        ...(excuse ? { known: true } : {}),
      },
      stage: 'finished',
      description: r ? describe(r, record, catalog) : result.title,
      steps,
      attachments: [],
      parameters: [],
      labels: labelsOf(result, r, record),
      links: [
        ...(r ? rfcLinks(r.rationale ?? '').map((l) => ({ ...l, type: 'link' })) : []),
        ...(excuse?.link ? [{ name: 'expected deviation', url: excuse.link, type: 'issue' }] : []),
      ],
      start,
      stop: start + duration,
    };
  });

  const overview = randomUUID();
  const unspecified = randomUUID();
  const attachment = (uuid: string, name: string) => ({
    name,
    source: `${uuid}-attachment.txt`,
    type: 'text/plain',
    timestamp: runStart,
  });
  const files = [
    { name: 'environment.properties', content: environmentProperties(record, run.previous) },
    { name: `${overview}-attachment.txt`, content: overviewText(record, run.previous) },
    { name: `${unspecified}-attachment.txt`, content: unspecifiedText(catalog) },
    {
      name: `${randomUUID()}-globals.json`,
      content: JSON.stringify({
        attachments: [
          attachment(overview, 'Verdict and failures'),
          attachment(unspecified, 'Where the service document is silent: what the suite tolerates'),
        ],
        errors: record.rollUp.suiteWarnings.map((message) => ({ message, timestamp: runStart })),
      }),
    },
  ];
  return { results, files };
}

/**
 * The status of each requirement in the last run Allure's history file holds (read before this
 * run's report appends to it), by requirement id; undefined when there is no history yet. Each
 * line of the file is a run: { testResults: { [historyId]: { status, labels } } }.
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
      if (id !== undefined && item.status !== undefined) statuses.set(id, item.status);
    }
    return statuses;
  } catch {
    return undefined;
  }
}

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

/** A requirement's history id: the same from run to run, so that Allure's history follows it. */
export function historyIdOf(id: string): string {
  return createHash('md5').update(`petstore-conformance requirement ${id}`).digest('hex');
}

/**
 * Whether a skipped requirement was blocked by the failure of another: summary.json's blockedBy,
 * or, from a roll-up without it, a skip whose reason is the checks' "blocked by …" note.
 */
export function isBlocked(r: RequirementResult): boolean {
  return r.status === 'skipped' && ((r.blockedBy?.length ?? 0) > 0 || /^blocked by /.test(r.message ?? ''));
}

/**
 * The requirements in the order the tree shows them: by operation as spec/openapi.yaml lists them,
 * then any operation and its topics (auth, version), each in catalog order.
 */
export function treeOrder(record: RunRecord): RequirementResult[] {
  const rank = new Map<string, number>();
  for (const operation of record.operations.keys())
    rank.set(operationLabel(operation, record.operations), rank.size);
  rank.set('any operation', rank.size);
  for (const r of record.rollUp.results) {
    const group = operationGroup(r, record);
    if (!rank.has(group)) rank.set(group, rank.size);
  }
  const groupOf = (r: RequirementResult) => rank.get(operationGroup(r, record)) ?? rank.size;
  return record.rollUp.results
    .map((r, index) => ({ r, index }))
    .sort((a, b) => groupOf(a.r) - groupOf(b.r) || a.index - b.index)
    .map(({ r }) => r);
}

/**
 * The tree's first level: the operation ("GET /pets (listPets)"); requirements of any operation
 * are split by the topic their id starts with ("auth (any operation)"), ANY-* staying "any operation".
 */
export function operationGroup(r: Pick<RequirementResult, 'id' | 'operation'>, record: RunRecord): string {
  if (r.operation !== 'any') return operationLabel(r.operation, record.operations);
  const topic = r.id.split('-')[0]?.toLowerCase() ?? 'any';
  return topic === 'any' ? 'any operation' : `${topic} (any operation)`;
}

function labelsOf(
  result: RequirementResult,
  r: Requirement | undefined,
  record: RunRecord,
): AllureResult['labels'] {
  const labels = [
    { name: 'operation', value: operationGroup(result, record) },
    { name: 'requirement', value: result.id },
    { name: 'level', value: result.level },
    { name: 'severity', value: SEVERITY[result.level] },
  ];
  if (r) labels.push({ name: 'basis', value: r.basis });
  if (result.status === 'failed') {
    // Whether this failure decides the verdict: the categories sort failures by it.
    labels.push({ name: 'gating', value: result.gating ? 'yes' : 'no' });
    labels.push({ name: 'tag', value: result.gating ? 'gating' : 'not gating' });
  }
  if (isBlocked(result)) labels.push({ name: 'tag', value: 'blocked' });
  return labels;
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
  if (r.status === 'skipped') {
    if (isBlocked(r) && !r.message?.startsWith('blocked by ')) {
      return `blocked by ${r.blockedBy?.join(', ')}${r.message ? `: ${r.message}` : ''}`;
    }
    return r.message ?? 'skipped';
  }
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

/** The catalog entry as the requirement's description (Markdown): the quote, its source, the reasoning. */
function describe(r: Requirement, record: RunRecord, catalog: AllureRun['catalog']): string {
  const basis = {
    quoted: 'quoted: the document says it',
    derived: 'derived: it follows from the document and HTTP',
    unspecified: 'unspecified: the document is silent; the suite checks a tolerant reading',
  }[r.basis];
  const lines = [
    `**${r.id}** · ${r.level} · ${operationGroup(r, record)}`,
    '',
    r.title,
    '',
    `> ${r.source.text.trim().split('\n').join('\n> ')}`,
    '',
    `spec/service.md, section "${r.source.section}" · basis ${basis}`,
  ];
  if (r.rationale) lines.push('', r.rationale);
  const topic = r.unspecified ? catalog.unspecified.find((u) => u.topic === r.unspecified) : undefined;
  if (topic)
    lines.push('', `**Tolerated where the document is silent** (${topic.topic}): ${topic.tolerated}`);
  return lines.join('\n');
}

/** One check as a step of its requirement: status, message without stack frames, its exchanges. */
function checkStep(
  check: AllureResult,
  requirement: RequirementResult,
  outcome: TestOutcome | undefined,
): AllureStep {
  const caseLabel =
    check.parameters?.find((p) => p.name === 'case')?.value ?? /\[(.+)\]$/.exec(check.name)?.[1];
  const status: Status | string = outcome?.state ?? check.status ?? 'unknown';
  const message =
    status === 'skipped'
      ? (outcome?.note ?? check.statusDetails?.message ?? 'skipped')
      : check.statusDetails?.message;
  const trace = suiteFrames(check.statusDetails?.trace);
  return {
    name: caseLabel
      ? `check [${caseLabel}]`
      : requirement.tests.passed + requirement.tests.failed + requirement.tests.skipped > 1
        ? check.name
        : 'check',
    status,
    statusDetails: {
      ...(message ? { message } : {}),
      ...(trace ? { trace } : {}),
    },
    stage: 'finished',
    steps: check.steps ?? [],
    attachments: check.attachments ?? [],
    parameters: [],
    ...(check.start === undefined ? {} : { start: check.start }),
    ...(check.stop === undefined ? {} : { stop: check.stop }),
  };
}

/**
 * The stack frames worth showing of a failed check: those of its suite file (suites/list/list.test.ts),
 * relative to the package. Frames of the harness, vitest and Node say nothing about the server.
 */
export function suiteFrames(trace: string | undefined): string | undefined {
  if (!trace) return undefined;
  const frames = trace
    .split('\n')
    .filter((line) => /^\s+at /.test(line))
    .map((line) => /(?:^|[\s(/])(suites\/(?!harness\/)[^\s()]+\.test\.[cm]?[jt]s:\d+:\d+)/.exec(line)?.[1])
    .filter((frame): frame is string => frame !== undefined);
  return frames.length > 0 ? frames.map((f) => `at ${f}`).join('\n') : undefined;
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
  const blocked = results.filter(isBlocked).length;
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
 * The report's metadata, the key/value list of the first screen: eight entries show before "Show
 * more", two to a row, so the verdict, the counts per requirement, the seed and the gating level
 * come first.
 */
export function environmentProperties(record: RunRecord, previous?: ReadonlyMap<string, string>): string {
  const failed = record.rollUp.results.filter((r) => r.status === 'failed');
  const gating = failed.filter((r) => r.gating).map((r) => r.id);
  const notGating = failed.filter((r) => !r.gating).map((r) => r.id);
  const c = requirementCounts(record);
  const entries: [string, string][] = [
    ['verdict', reportName(record).split(' · ').slice(0, 2).join(' · ')],
    ['vs last report', changesLine(changes(record, previous))],
    ['failed', `${c.failed} of ${c.total} requirements${c.failed > 0 ? ` (${gating.length} gating)` : ''}`],
    ['passed', String(c.passed)],
    ['blocked', String(c.blocked)],
    ['skipped', String(c.skipped)],
    ['seed', String(record.config.seed)],
    ['gating level', gatingLevel(record)],
    ['target', record.target],
    ['gating failures', gating.join(', ') || 'none'],
    ['not gating failures', notGating.join(', ') || 'none'],
    ['options', optionsText(record.config) || '(none)'],
    ['started', `${record.startedAt.toISOString()} (${(record.durationMs / 1000).toFixed(1)} s)`],
    ['target from', record.targetFrom],
    ['api key', record.config.apiKey ? 'set (masked in every report)' : 'none'],
    ['petstore-conformance', `${record.version} (Node ${process.version})`],
  ];
  return `${entries.map(([k, v]) => `${propertiesText(k).replace(/[ :=]/g, '\\$&')}=${propertiesText(v)}`).join('\n')}\n`;
}

/** Text for a .properties line: backslashes escaped, line breaks folded, non-ASCII as \uXXXX. */
function propertiesText(value: string): string {
  return value
    .replace(/\\/g, '\\\\')
    .replace(/\r?\n/g, ' ')
    .replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The overview attachment: the verdict, the counts, every failure with its curl line, as the console shows them. */
export function overviewText(record: RunRecord, previous?: ReadonlyMap<string, string>): string {
  const c = requirementCounts(record);
  const failed = record.rollUp.results.filter((r) => r.status === 'failed');
  const blocked = record.rollUp.results.filter(isBlocked);
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
export function unspecifiedText(catalog: AllureRun['catalog']): string {
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

/**
 * The Allure results of a run (allure-results/), written by the CLI from the run's record with
 * allure-js-commons' public types and the files its writer would write, one per requirement:
 * Allure counts, charts, categorises and keeps history per result, so each requirement is one.
 *
 * - one result per catalog requirement, in the roll-up's status (summary.json's), named
 *   "ID (LEVEL) title", labelled with its operation, level, severity and gating, described by the
 *   quoted sentence of the service document, linked to the RFCs behind it, with a history id of its
 *   own;
 * - its checks (record.checks.outcomes) as its steps, each with its own status, its message
 *   (expected / received / reproduce) and the frames of its suite file, its notes, and its last
 *   exchanges attached: a failed check's request and response of each, a passed check's together;
 * - environment.properties (the report's metadata: verdict, counts, target, seed, gating level)
 *   and a globals file whose attachments are the run's overview: the verdict with every failure,
 *   and what the service document leaves unspecified with what the suite tolerates.
 *
 * Times agree with the record: a requirement is judged over the whole run (ANY-NO-5XX and the
 * model's findings take every check's answers), so its result spans the run, from its start to
 * record.durationMs later, and the report's duration is the console's; its checks keep the times they
 * ran. Allure orders its tree by start: each requirement starts a millisecond after the one before it
 * in the tree (treeOrder), so that the tree reads in the same order every run.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  Status as AllureStatus,
  type Attachment,
  type Globals,
  type Label,
  type Link,
  Stage,
  type StatusDetails,
  type StepResult,
  type TestResult,
} from 'allure-js-commons';
import { type Writer as AllureWriter, md5, stringifyEnvInfo } from 'allure-js-commons/sdk/reporter';
import type { Catalog, Requirement } from '../../catalog/catalog.ts';
import {
  type ExchangeRecord,
  formatRequest,
  formatResponse,
  requestTitle,
  responseTitle,
} from '../../suites/harness/evidence/exchange.ts';
import { excuseText } from '../record/expected.ts';
import { retriedLine, retriesText } from '../record/flaky.ts';
import { ALLURE_RESULTS, type CheckOutcome, type RunRecord } from '../record/record.ts';
import { isBlockedResult, type RequirementResult, type Status } from '../record/rollup.ts';
import { failedChecksText, operationLabel, optionsText } from '../record/views.ts';
import { HISTORY_FILE, type ReportFolder } from './folder.ts';
import type { Writer } from './writer.ts';

/** allure-results/, for a run that judged: one result per requirement (see the top of this file). */
export const allureResults: Writer = {
  name: 'allure-results/',
  write(record, { folder }) {
    const { checks } = record;
    if (checks === undefined || folder === undefined) return;
    const previous = previousStatuses(path.join(folder.dir, HISTORY_FILE));
    const run = {
      record,
      catalog: checks.catalog,
      outcomes: checks.outcomes,
      ...(previous ? { previous } : {}),
    };
    writeResults(run, new ResultsWriter(folder));
  },
};

/** What the results are made of: the record, its checks, and the previous report's statuses. */
export interface AllureRun {
  readonly record: RunRecord;
  readonly catalog: Pick<Catalog, 'requirements' | 'unspecified'>;
  readonly outcomes: readonly CheckOutcome[];
  /** Requirement id → status in the previous run with history in this report folder (see previousStatuses). */
  readonly previous?: ReadonlyMap<string, string>;
}

/** What allure-results/ holds, as allure-js-commons' types, before it is written: pure, for the tests. */
export interface AllureOutput {
  readonly results: TestResult[];
  /** Attachment file name (`<uuid>-attachment.txt`) → its text. */
  readonly attachments: Map<string, string>;
  /** environment.properties, as its writer takes it: the report's metadata, in the order shown. */
  readonly environment: Record<string, string>;
  /** The globals file: the overview attachments and the suite's warnings. */
  readonly globals: { readonly name: string; readonly content: Globals };
}

/**
 * The parts of allure-js-commons' Writer the CLI uses, writing what its FileSystemWriter writes
 * (the same file names, the same bytes) into the report folder's allure-results/ instead, through
 * the folder's redactor, each file written once.
 */
export class ResultsWriter
  implements Pick<AllureWriter, 'writeResult' | 'writeAttachment' | 'writeEnvironmentInfo' | 'writeGlobals'>
{
  constructor(private readonly folder: ReportFolder) {}

  writeResult(result: TestResult): void {
    this.folder.writeIn(ALLURE_RESULTS, `${result.uuid}-result.json`, JSON.stringify(result));
  }

  writeAttachment(distFileName: string, content: Buffer): void {
    this.folder.writeIn(ALLURE_RESULTS, distFileName, content);
  }

  writeEnvironmentInfo(info: Record<string, string>): void {
    this.folder.writeIn(ALLURE_RESULTS, 'environment.properties', stringifyEnvInfo(info));
  }

  writeGlobals(distFileName: string, info: Globals): void {
    this.folder.writeIn(ALLURE_RESULTS, distFileName, JSON.stringify(info));
  }
}

function writeResults(run: AllureRun, writer: ResultsWriter): void {
  const files = allureFiles(run);
  for (const [name, text] of files.attachments) writer.writeAttachment(name, Buffer.from(text, 'utf8'));
  for (const result of files.results) writer.writeResult(result);
  writer.writeEnvironmentInfo(files.environment);
  writer.writeGlobals(files.globals.name, files.globals.content);
}

/** The labels' severity of each level. */
const SEVERITY = { MUST: 'critical', SHOULD: 'normal', MAY: 'minor' } as const;

const STATUS: Readonly<Record<Status, AllureStatus>> = {
  passed: AllureStatus.PASSED,
  failed: AllureStatus.FAILED,
  skipped: AllureStatus.SKIPPED,
};

/**
 * Allure's status details: allure-js-commons' type, and the flags of Allure's result format it does
 * not name (its reporters set them; Allure's reader reads them): a flaky pass, a known failure.
 */
type Details = StatusDetails & { flaky?: boolean; known?: boolean };

/** The results, attachments, environment and globals of a run (see the top of this file). */
export function allureFiles(run: AllureRun): AllureOutput {
  const { record, catalog } = run;
  const checksOf = new Map<string, CheckOutcome[]>();
  for (const o of run.outcomes) {
    if (o.requirementId === undefined) continue;
    checksOf.set(o.requirementId, [...(checksOf.get(o.requirementId) ?? []), o]);
  }
  const requirements = new Map(catalog.requirements.map((r) => [r.id, r]));
  const runStart = record.startedAt.getTime();
  const runEnd = runStart + record.durationMs;
  const excused = new Map((record.expected?.excused ?? []).map((e) => [e.id, e]));
  const attachments = new Map<string, string>();
  const attach = (name: string, text: string): Attachment => {
    const source = `${randomUUID()}-attachment.txt`;
    attachments.set(source, text);
    return { name, source, type: 'text/plain' };
  };

  const results = treeOrder(record).map((result, position): TestResult => {
    const r = requirements.get(result.id);
    const checks = [...(checksOf.get(result.id) ?? [])].sort(
      (a, b) => (a.startedAt ?? 0) - (b.startedAt ?? 0) || (a.declared ?? 0) - (b.declared ?? 0),
    );
    const steps = checks.map((check) => checkStep(check, checks.length, attach));
    const start = runStart + position;
    const excuse = excused.get(result.id);
    // A flaky pass keeps its status; Allure marks it with its flaky flag. An expected failure
    // (--expected) stays failed, marked known, its reason first and its ticket linked.
    const details: Details = {
      message: `${excuse ? `expected to fail: ${excuseText(excuse)}\n` : ''}${requirementMessage(result)}`,
      ...(result.flaky ? { flaky: true } : {}),
      ...(excuse ? { known: true } : {}),
    };
    return {
      uuid: randomUUID(),
      historyId: historyIdOf(result.id),
      testCaseId: historyIdOf(result.id),
      name: `${result.id} (${result.level}) ${result.title}`,
      fullName: `petstore-conformance: ${result.id}`,
      status: STATUS[result.status],
      statusDetails: details,
      stage: Stage.FINISHED,
      description: r ? describe(r, record, catalog) : result.title,
      steps,
      attachments: [],
      parameters: [],
      labels: labelsOf(result, r, record),
      links: [
        ...(r ? rfcLinks(r.rationale ?? '').map((l): Link => ({ ...l, type: 'link' })) : []),
        ...(excuse?.link ? [{ name: 'expected deviation', url: excuse.link, type: 'issue' }] : []),
      ],
      start,
      stop: Math.max(start, runEnd),
    };
  });

  const global = (name: string, text: string) => ({ ...attach(name, text), timestamp: runStart });
  return {
    results,
    environment: environmentInfo(record, run.previous),
    globals: {
      name: `${randomUUID()}-globals.json`,
      content: {
        attachments: [
          global('Verdict and failures', overviewText(record, run.previous)),
          global('Where the service document is silent: what the suite tolerates', unspecifiedText(catalog)),
        ],
        errors: record.rollUp.suiteWarnings.map((message) => ({ message, timestamp: runStart })),
      },
    },
    attachments,
  };
}

/** https links for every "RFC 9110 §15.5" a text cites. */
export function rfcLinks(text: string): { url: string; name: string }[] {
  const links = new Map<string, string>();
  for (const m of text.matchAll(/RFC (\d{3,5})(?: §([\d.]+\d))?/g)) {
    const [name, rfc, section] = m;
    links.set(name, `https://www.rfc-editor.org/rfc/rfc${rfc}.html${section ? `#section-${section}` : ''}`);
  }
  return [...links].map(([name, url]) => ({ name, url }));
}

/**
 * One check as a step of its requirement: its status, its message (a failure's, or why it was
 * skipped), the frames of its suite file, its notes as passed steps, and its last exchanges, at the
 * times it ran.
 */
function checkStep(
  check: CheckOutcome,
  checks: number,
  attach: (name: string, text: string) => Attachment,
): StepResult {
  const message =
    check.state === 'skipped'
      ? (check.note ?? 'skipped')
      : check.failures.map((f) => f.message).join('\n\n') || undefined;
  const start = check.startedAt;
  const end = start === undefined ? undefined : start + check.durationMs;
  const at = end === undefined ? {} : { start: end, stop: end };
  const notes = (check.notes ?? []).map(
    (note): StepResult => ({
      name: note,
      status: AllureStatus.PASSED,
      statusDetails: {},
      stage: Stage.FINISHED,
      steps: [],
      attachments: [],
      parameters: [],
      ...at,
    }),
  );
  // An attachment in a step of its own, named as it is (as allure-js-commons' wrapInStep does).
  const wrapped = (attachment: Attachment): StepResult => ({
    name: attachment.name,
    statusDetails: {},
    stage: Stage.FINISHED,
    steps: [],
    attachments: [attachment],
    parameters: [],
    ...at,
  });
  const evidence = evidenceAttachments(check.evidence ?? [], check.state === 'passed', attach).map(wrapped);
  return {
    name: check.caseLabel ? `check [${check.caseLabel}]` : checks > 1 ? check.name : 'check',
    status: STATUS[check.state],
    statusDetails: {
      ...(message ? { message } : {}),
      ...(check.trace ? { trace: check.trace } : {}),
    },
    stage: Stage.FINISHED,
    steps: [...notes, ...evidence],
    attachments: [],
    parameters: [],
    ...(start === undefined || end === undefined ? {} : { start, stop: end }),
  };
}

/**
 * A check's exchanges as attachments, in the order sent, that read as HTTP (exchange.ts: request
 * line or status line, headers, the body as it came, its size). A failed or blocked check's request
 * and response are an attachment each; a passed check's exchanges are one attachment (`together`),
 * each request above its response: a passed run writes a third of the files it would otherwise.
 */
export function evidenceAttachments(
  exchanges: readonly ExchangeRecord[],
  together: boolean,
  attach: (name: string, text: string) => Attachment,
): Attachment[] {
  if (exchanges.length === 0) return [];
  if (together) {
    const titles = exchanges.map((x) => `${requestTitle(x)} → ${responseTitle(x)}`);
    const name =
      exchanges.length > 1
        ? `last ${exchanges.length} exchanges: ${titles.join('; ')}`
        : `exchange: ${titles[0]}`;
    const text = exchanges
      .map((x, i) => {
        const heading = exchanges.length > 1 ? `── ${i + 1}/${exchanges.length} ──\n` : '';
        return `${heading}${formatRequest(x)}\n\n${formatResponse(x)}`;
      })
      .join('\n\n');
    return [attach(name, text)];
  }
  return exchanges.flatMap((x, i) => {
    const n = exchanges.length > 1 ? ` ${i + 1}/${exchanges.length}` : '';
    return [
      attach(`request${n}: ${requestTitle(x)}`, formatRequest(x)),
      attach(`response${n}: ${responseTitle(x)}`, formatResponse(x)),
    ];
  });
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
  return md5(`petstore-conformance requirement ${id}`);
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

/** The labels of a requirement's result, made here once: the tree, the categories and the filters read them. */
function labelsOf(result: RequirementResult, r: Requirement | undefined, record: RunRecord): Label[] {
  const labels: Label[] = [
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
  if (isBlockedResult(result)) labels.push({ name: 'tag', value: 'blocked' });
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
 * seed and the gating level come first. Written once, by the CLI, through allure-js-commons'
 * stringifyEnvInfo.
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

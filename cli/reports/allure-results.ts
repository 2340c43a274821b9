/**
 * allure-results/: allure-vitest's reporter writes a result per check while the run goes
 * (suites/harness/requirement/report.ts says what each holds). Once the run is judged, this writer
 * adds what only the record knows, through allure-js-commons' ReporterRuntime and its file writer
 * (the SDK its README documents for integrations), never by writing Allure's format itself:
 *
 * - environment.properties: the report's first screen (allure-overview.ts environmentInfo);
 * - the globals: the overview's attachments (the verdict with every failure, what the service
 *   document leaves unspecified) and the suite's warnings as global errors;
 * - a result for each requirement whose verdict its checks' results cannot say (verdictsBeyondChecks):
 *   one the roll-up failed while none of its checks did (ANY-NO-5XX fails on any check's 5xx, the
 *   model's findings fail the requirement they break, a check blocked on suspicion can turn out to
 *   be its own requirement's fault), one passed only after retries (Allure's flaky flag), one
 *   excused by --expected (Allure's known flag, the ticket linked). A test's result cannot be
 *   changed from another test (allure-framework/allure-java#1108, allure2#2595), nor a result made
 *   of several tests (allure-framework/allure2#1031): this one result says the requirement's verdict
 *   where its checks cannot, in the requirement's place in the tree.
 *
 * Nothing here is masked again: every text was masked where it entered the run.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Stage, Status, type StatusDetails } from 'allure-js-commons';
import type { RuntimeMessage } from 'allure-js-commons/sdk';
import { createDefaultWriter, md5, ReporterRuntime } from 'allure-js-commons/sdk/reporter';
import { excuseText } from '../record/expected.ts';
import { ALLURE_RESULTS, judgedAny, type RunRecord } from '../record/record.ts';
import type { RequirementResult } from '../record/rollup.ts';
import { operationLabel } from '../record/views.ts';
import {
  environmentInfo,
  overviewText,
  previousStatuses,
  requirementMessage,
  unspecifiedText,
} from './allure-overview.ts';
import { HISTORY_FILE } from './folder.ts';
import type { Writer } from './writer.ts';

/** Allure's severity of each level, as the checks' results carry it. */
const SEVERITY = { MUST: 'critical', SHOULD: 'normal', MAY: 'minor' } as const;

/**
 * allure-results/ of a run that got as far as its checks; what a run that judged anything (a
 * could-not-judge run too: record.ts judgedAny) adds to it.
 */
export const allureResults: Writer = {
  name: 'allure-results/',
  write(record, { folder }) {
    if (folder === undefined) return;
    const dir = path.join(folder.dir, ALLURE_RESULTS);
    if (judgedAny(record) && record.checks !== undefined) {
      const previous = previousStatuses(path.join(folder.dir, HISTORY_FILE));
      const runtime = new ReporterRuntime({
        writer: createDefaultWriter({ resultsDir: dir }),
        environmentInfo: environmentInfo(record, previous),
      });
      runtime.writeEnvironmentInfo();
      runtime.applyGlobalRuntimeMessages(globalMessages(record, previous));
      for (const result of verdictsBeyondChecks(record)) writeVerdict(runtime, result, record);
    }
    if (existsSync(dir)) folder.adopt(`${ALLURE_RESULTS}/`);
  },
};

/** The overview's attachments and the suite's warnings, as the runtime API's global messages would carry them. */
function globalMessages(record: RunRecord, previous?: ReadonlyMap<string, string>): RuntimeMessage[] {
  const attachment = (name: string, text: string): RuntimeMessage => ({
    type: 'global_attachment_content',
    data: {
      name,
      content: Buffer.from(text).toString('base64'),
      encoding: 'base64',
      contentType: 'text/plain',
    },
  });
  return [
    attachment('Verdict and failures', overviewText(record, previous)),
    ...(record.checks
      ? [
          attachment(
            'Where the service document is silent: what the suite tolerates',
            unspecifiedText(record.checks.catalog),
          ),
        ]
      : []),
    ...record.rollUp.suiteWarnings.map(
      (message): RuntimeMessage => ({ type: 'global_error', data: { message } }),
    ),
  ];
}

/**
 * The requirements whose verdict their checks' results cannot say: failed while none of their own
 * checks failed (what failed them was seen by other checks, or a check blocked on suspicion was the
 * requirement's own fault), passed only after retries, or excused by --expected.
 */
export function verdictsBeyondChecks(record: RunRecord): RequirementResult[] {
  const failedChecks = new Set(
    (record.checks?.outcomes ?? []).filter((o) => o.state === 'failed').map((o) => o.requirementId),
  );
  const excused = new Set((record.expected?.excused ?? []).map((e) => e.id));
  return record.rollUp.results.filter(
    (r) =>
      (r.status === 'failed' && !failedChecks.has(r.id)) ||
      (r.status === 'passed' && r.flaky === true) ||
      excused.has(r.id),
  );
}

/**
 * Allure's status details: allure-js-commons' type, and the flags of Allure's result format it does
 * not name (its integrations set them; Allure reads them): a flaky pass, a known failure.
 */
type Details = StatusDetails & { flaky?: boolean; known?: boolean };

const STATUS = { passed: Status.PASSED, failed: Status.FAILED, skipped: Status.SKIPPED } as const;

/** One requirement's verdict as a result, labelled as its checks are, at the run's end. */
function writeVerdict(runtime: ReporterRuntime, r: RequirementResult, record: RunRecord): void {
  const at = record.startedAt.getTime() + record.durationMs;
  const excuse = record.expected?.excused.find((e) => e.id === r.id);
  const details: Details = {
    message: `${excuse ? `expected to fail: ${excuseText(excuse)}\n` : ''}${requirementMessage(r)}`,
    ...(r.flaky ? { flaky: true } : {}),
    ...(excuse ? { known: true } : {}),
  };
  const uuid = runtime.startTest({
    name: `${r.id} (${r.level}) ${r.title}: the run's verdict`,
    fullName: `petstore-conformance: ${r.id} (verdict)`,
    historyId: md5(`petstore-conformance verdict ${r.id}`),
    start: at,
  });
  runtime.updateTest(uuid, (result) => {
    result.status = STATUS[r.status];
    result.stage = Stage.FINISHED;
    result.statusDetails = details;
    if (excuse?.link) result.links.push({ name: 'expected deviation', url: excuse.link, type: 'issue' });
    result.labels.push(
      { name: 'operation', value: operationGroup(r, record) },
      { name: 'requirement', value: r.id },
      { name: 'story', value: `${r.id} (${r.level}) ${r.title}` },
      { name: 'level', value: r.level },
      { name: 'severity', value: SEVERITY[r.level] },
      { name: 'gating', value: r.gating ? 'yes' : 'no' },
    );
  });
  runtime.stopTest(uuid, { stop: at });
  runtime.writeTest(uuid);
}

/** The tree's first level, as the checks' results name it (suites/harness/requirement/report.ts). */
function operationGroup(r: RequirementResult, record: RunRecord): string {
  if (r.operation !== 'any') return operationLabel(r.operation, record.operations);
  const topic = r.id.split('-')[0]?.toLowerCase() ?? 'any';
  return topic === 'any' ? 'any operation' : `${topic} (any operation)`;
}

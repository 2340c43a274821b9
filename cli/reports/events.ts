/**
 * --events <file>: the run as it happens, one JSON object a line (NDJSON), for CI dashboards and
 * editor plugins. Every event has a `type`: run-start, check-start, check-end, requirement, run-end
 * (schemas/events.schema.json says each field; docs/reports.md shows them). The first line is
 * run-start, the last run-end, for every run that got past its options, judged or not. No event
 * carries a secret: the options say whether a key is set, never what it is, and what a check says of
 * an answer was masked where the answer entered the run (suites/harness/evidence/redact.ts); nothing else is
 * rewritten. run-start's `startedAt` and run-end's `durationMs` are the record's, as every report says.
 *
 * The checks' events are written live by the run (run/run.ts); the record's end, the requirements'
 * verdicts and run-end, by the writer below, last of all writers.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type { Level } from '../../catalog/catalog.ts';
import { keyCarrier } from '../../suites/harness/config/config.ts';
import { fileErrorReason, oneLine, UsageError } from '../record/errors.ts';
import { limitsOf } from '../record/pace.ts';
import { type CatalogIdentity, catalogIdentity, exitOf, type RunRecord } from '../record/record.ts';
import { EXCLUDED, NOT_SELECTED, type TestOutcome } from '../record/rollup.ts';
import { networkOptions, selectionOptions } from './summary-json.ts';
import type { RunEvents, Writer } from './writer.ts';

/** The version of the events' shape: fields are only ever added within it. */
export const EVENTS_VERSION = 1;

/** What a run-start event says of the run, besides its time. */
export interface RunStartInfo {
  readonly version: string;
  /** When the run started: the record's startedAt. */
  readonly startedAt: Date;
  /** The base URL checked (the bundled reference's, once started). */
  readonly target: string;
  readonly targetFrom: string;
  readonly config: RunRecord['config'];
  /** The catalog the run judges by (record/record.ts catalogIdentity). */
  readonly catalog: CatalogIdentity;
  /** Requirements the run checks (after --only and --exclude). */
  readonly selected: number;
  readonly html: boolean;
  readonly har: boolean;
  readonly configFile?: string;
}

/** A check as the events name it. */
export interface CheckInfo {
  readonly requirement: string | undefined;
  readonly level: Level | undefined;
  /** The test's name: "LIST-LIMIT-OVER-MAX a limit above 100 is rejected … [limit=101]". */
  readonly check: string;
  /** The suite file, relative to the package root. */
  readonly file: string;
}

/** Where the events go, and what has been written. */
export class EventStream implements RunEvents {
  private started = false;
  private ended = false;

  private constructor(
    private readonly sink: (line: string) => void,
    private readonly close: () => void,
  ) {}

  /**
   * The stream of a run, opened now: `-` for `stdout`, else the file, created or emptied. A file
   * that cannot be written is a usage error (exit 2), before any request is sent.
   */
  static open(file: string, stdout: (text: string) => void): EventStream {
    if (file === '-') return new EventStream(stdout, () => undefined);
    let fd: number;
    try {
      fd = openSync(file, 'w');
    } catch (error) {
      throw new UsageError(
        `--events ${file}: cannot write it (${fileErrorReason(error, 'its folder does not exist')})`,
      );
    }
    return new EventStream(
      (line) => writeSync(fd, line),
      () => closeSync(fd),
    );
  }

  /** The run starts: its target, seed, catalog and options. Once per run. */
  runStart(info: RunStartInfo): void {
    if (this.started) return;
    this.started = true;
    const { config } = info;
    this.emit({
      type: 'run-start',
      v: EVENTS_VERSION,
      tool: { name: 'petstore-conformance', version: info.version },
      startedAt: info.startedAt.toISOString(),
      target: info.target,
      targetFrom: info.targetFrom,
      seed: config.seed,
      runId: config.runId,
      ...(config.traceId === undefined ? {} : { traceId: config.traceId }),
      catalog: info.catalog,
      selected: info.selected,
      options: {
        ...selectionOptions(config),
        timeoutMs: config.timeoutMs,
        apiKey: config.apiKey !== undefined,
        apiKeyIn: keyCarrier(config),
        html: info.html,
        har: info.har,
        ...networkOptions(config),
      },
      ...(info.configFile === undefined ? {} : { configFile: info.configFile }),
    });
  }

  /** A check starts. */
  checkStart(check: CheckInfo): void {
    this.emit({ type: 'check-start', ...checkFields(check) });
  }

  /** A check ended: passed, failed or skipped, with why. */
  checkEnd(check: CheckInfo, outcome: TestOutcome): void {
    const first = outcome.failures[0];
    const message =
      outcome.state === 'skipped'
        ? (outcome.note ?? first?.message)
        : outcome.state === 'failed'
          ? first?.message
          : undefined;
    this.emit({
      type: 'check-end',
      ...checkFields(check),
      status: outcome.state,
      durationMs: outcome.durationMs,
      ...(message === undefined ? {} : { message: clip(oneLine(message)) }),
      ...(outcome.blockedBy === undefined ? {} : { blockedBy: [...outcome.blockedBy] }),
    });
  }

  /** The record's end: run-start if the run stopped before it, each requirement's verdict, run-end. */
  end(record: RunRecord, info: Pick<RunStartInfo, 'html' | 'har'>): void {
    if (this.ended) return;
    this.runStart({
      version: record.version,
      startedAt: record.startedAt,
      target: record.target,
      targetFrom: record.targetFrom,
      config: record.config,
      catalog: catalogIdentity(record.rollUp.results),
      selected: record.rollUp.results.filter((r) => r.message !== NOT_SELECTED && r.message !== EXCLUDED)
        .length,
      ...info,
      ...(record.configFile === undefined ? {} : { configFile: record.configFile }),
    });
    for (const r of record.rollUp.results) {
      this.emit({
        type: 'requirement',
        requirement: r.id,
        level: r.level,
        title: r.title,
        status: r.status,
        gating: r.gating,
        ...(r.message === undefined ? {} : { message: clip(oneLine(r.message)) }),
        ...(r.blockedBy === undefined || r.status !== 'skipped' ? {} : { blockedBy: [...r.blockedBy] }),
      });
    }
    this.emit({
      type: 'run-end',
      verdict: record.rollUp.verdict,
      totals: { ...record.rollUp.totals },
      exitStatus: exitOf(record),
      durationMs: record.durationMs,
      ...(record.error === undefined ? {} : { error: record.error }),
      ...(record.rollUp.notJudged.length === 0 ? {} : { notJudged: [...record.rollUp.notJudged] }),
      ...(record.baseline === undefined ? {} : { baselineGate: record.baseline.gate }),
      ...limitsEvent(record),
    });
    this.ended = true;
    this.close();
  }

  private emit(event: { type: string; [field: string]: unknown }): void {
    if (this.ended) return;
    const { type, ...rest } = event;
    this.sink(`${JSON.stringify({ type, time: new Date().toISOString(), ...rest })}\n`);
  }
}

/** The events' end, from the record: last of the writers (reports/writers.ts), so that run-end is the last line. */
export const eventsEnd: Writer = {
  name: 'the events',
  write(record, { events, html, har }) {
    events?.end(record, { html, har: har !== false });
  },
};

function checkFields(check: CheckInfo): Record<string, unknown> {
  return {
    ...(check.requirement === undefined ? {} : { requirement: check.requirement }),
    ...(check.level === undefined ? {} : { level: check.level }),
    check: check.check,
    file: check.file,
  };
}

/** Messages are one line, at most 500 characters. */
function clip(text: string): string {
  return text.length > 500 ? `${text.slice(0, 499)}…` : text;
}

/** run-end's `limits`, as summary.json's, when the deployment limited the run (record/pace.ts). */
function limitsEvent(record: RunRecord): { limits?: object } {
  const limits = limitsOf(record.pace);
  return limits === undefined ? {} : { limits };
}

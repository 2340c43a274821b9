/**
 * The record of a run: what every output of it is written from (reports/writers.ts), judged or
 * not. A run that could not judge is a record too (cannotJudgeRecord), with its reason in `error`.
 */
import { createHash } from 'node:crypto';
import { type Catalog, type Level, loadCatalog, type Requirement } from '../../catalog/catalog.ts';
import type { Config } from '../../suites/harness/config/config.ts';
import { EXIT } from './command.ts';
import type { LoggedExchange } from './exchanges.ts';
import type { ExpectedOutcome } from './expected.ts';
import type { PaceReport } from './pace.ts';
import type { RerunOutcome } from './rerun.ts';
import type { RollUp, TestOutcome } from './rollup.ts';
import type { OperationTimes } from './timings.ts';

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
  /** Could not judge: what the console says before the reason, one problem a line (the suite broke). */
  readonly problems?: readonly string[];
  /** Could not judge because this tool failed: the error's stack, for the console only. */
  readonly internalError?: string;
  /** --baseline: which gating failures are new, still there, fixed. */
  readonly baseline?: BaselineOutcome;
  /** The rerun subcommand: each failure of the earlier run, fixed, still failing or blocked. */
  readonly rerun?: RerunOutcome;
  /** --expected: the failures it excuses, its stale entries; its gate decides the exit status. */
  readonly expected?: ExpectedOutcome;
  /** A run that judged: how fast each operation answered (operationId, or "other", → times). */
  readonly responseTimes?: ReadonlyMap<string, OperationTimes>;
  /** A run that judged: what its checks left, for the outputs that show each check. */
  readonly checks?: ChecksLeft;
  /**
   * The run's exchange log (record/exchanges.ts), oldest first, judged or not: taken once when the
   * checks ended. Absent when the run stopped before its checks.
   */
  readonly exchanges?: readonly LoggedExchange[];
  /**
   * What the deployment's limits cost the run, as its pace reported it (record/pace.ts): taken once
   * when the checks ended. Absent when the run stopped before its checks.
   */
  readonly pace?: PaceReport;
  /** The config file the run read, as the user would type it. */
  readonly configFile?: string;
}

/** What the checks of a run left besides the roll-up: each check as the reports show it. */
export interface ChecksLeft {
  /** Every check's outcome, in the order they finished (a requirement may have several). */
  readonly outcomes: readonly CheckOutcome[];
  /** The catalog the checks answered to: the outputs quote its sources. */
  readonly catalog: Pick<Catalog, 'requirements' | 'unspecified'>;
}

/**
 * A check as the record keeps it: its outcome (what the roll-up judges), and when it started, read
 * by the CLI's reporter (run/collector.ts) through vitest's public API. What the Allure results show
 * of it the harness records itself, through allure-js-commons (suites/harness/requirement/report.ts).
 */
export interface CheckOutcome extends TestOutcome {
  /** When it started, in ms since the epoch (vitest's TestCase.diagnostic()); absent when it never ran. */
  readonly startedAt?: number;
}

/**
 * Whether the run's checks ran and were judged, every requirement or not (could not judge some: a
 * rate limit, a key not given, a full store; `error` says why): its reports then show what it judged.
 * A run stopped before its checks, or whose suite broke, has only its reason to report.
 */
export function judgedAny(record: Pick<RunRecord, 'checks' | 'error'>): boolean {
  return record.error === undefined || record.checks !== undefined;
}

/** The report folder's sub-folder of Allure results. */
export const ALLURE_RESULTS = 'allure-results';

/**
 * The exit status of a run (CONTRACT.md): 2 when it could not judge; else the gate of its expected
 * deviations (which takes the baseline into account), its baseline's gate, or its verdict.
 */
export function exitOf(record: Pick<RunRecord, 'error' | 'baseline' | 'rollUp' | 'expected'>): number {
  if (record.error !== undefined) return EXIT.cannotJudge;
  const passed = record.expected
    ? record.expected.gate === 'passed'
    : record.baseline
      ? record.baseline.gate === 'passed'
      : record.rollUp.verdict === 'conformant';
  return passed ? EXIT.conformant : EXIT.nonConformant;
}

/** The baseline block of a run: summary.json's `baseline`, summary.md's and the console's lines. */
export interface BaselineOutcome {
  /** The baseline's path as given. */
  readonly file: string;
  /** When the baseline run started, and what it checked. */
  readonly startedAt: string;
  readonly target: string;
  /** passed: no new gating failure, the run exits 0 whatever its verdict; failed: exit 1. */
  readonly gate: 'passed' | 'failed';
  /** Gating requirements bad now that were not bad in the baseline: these fail the run. */
  readonly newFailures: readonly string[];
  /** Gating requirements bad now that were bad in the baseline too: known, they do not fail the run. */
  readonly stillFailing: readonly string[];
  /** Requirements bad at the gating level in the baseline that pass now. */
  readonly fixed: readonly string[];
}

/** Which catalog a run was judged against: a hash of its ids and levels, and how many there are. */
export interface CatalogIdentity {
  /** "sha256:" and the first 16 hex digits of the SHA-256 of the sorted "ID LEVEL" lines. */
  readonly hash: string;
  readonly requirements: number;
}

/**
 * The identity of a catalog. Ids and levels only: a reworded title or quote does not change what a
 * result means, a new, retired or re-levelled requirement does. Order does not matter.
 */
export function catalogIdentity(
  requirements: readonly { readonly id: string; readonly level: Level }[],
): CatalogIdentity {
  const lines = requirements.map((r) => `${r.id} ${r.level}\n`).sort();
  const digest = createHash('sha256').update(lines.join('')).digest('hex');
  return { hash: `sha256:${digest.slice(0, 16)}`, requirements: requirements.length };
}

/**
 * The record of a run that could not judge anything (exit 2 after the options parsed): summary.json
 * says "could-not-judge" with the reason in `error` and every requirement skipped "could not judge: …".
 */
export function cannotJudgeRecord(input: {
  readonly version: string;
  readonly target: string;
  readonly targetFrom: string;
  readonly startedAt: Date;
  readonly config: Config;
  readonly reason: string;
  readonly problems?: readonly string[];
  readonly internalError?: string;
  /** The catalog, when the run got as far as reading it. */
  readonly requirements?: readonly Requirement[];
  readonly exchanges?: readonly LoggedExchange[];
  readonly pace?: PaceReport;
  readonly configFile?: string;
}): RunRecord {
  return {
    version: input.version,
    target: input.target,
    targetFrom: input.targetFrom,
    startedAt: input.startedAt,
    durationMs: Date.now() - input.startedAt.getTime(),
    config: input.config,
    rollUp: cannotJudgeRollUp(input.requirements ?? catalogOrNothing(), input.reason),
    operations: new Map(),
    error: input.reason,
    ...(input.problems === undefined ? {} : { problems: input.problems }),
    ...(input.internalError === undefined ? {} : { internalError: input.internalError }),
    ...(input.exchanges === undefined ? {} : { exchanges: input.exchanges }),
    ...(input.pace === undefined ? {} : { pace: input.pace }),
    ...(input.configFile === undefined ? {} : { configFile: input.configFile }),
  };
}

/**
 * The roll-up of a run that could not judge: every requirement skipped with the reason, totals zero,
 * and the verdict could-not-judge, which no gate reads as conformant.
 */
function cannotJudgeRollUp(requirements: readonly Requirement[], reason: string): RollUp {
  return {
    results: requirements.map((r) => ({
      id: r.id,
      level: r.level,
      title: r.title,
      operation: r.operation,
      status: 'skipped',
      message: `could not judge: ${reason}`,
      gating: false,
      tests: { passed: 0, failed: 0, skipped: 0 },
      durationMs: 0,
    })),
    verdict: 'could-not-judge',
    rateLimited: [],
    notJudged: [],
    totals: { passed: 0, failed: 0, skipped: 0, blocked: 0 },
    unjudged: [],
    suiteWarnings: [],
  };
}

/** The catalog's requirements, or none when the catalog itself is invalid (the reason says so). */
function catalogOrNothing(): readonly Requirement[] {
  try {
    return loadCatalog().requirements;
  } catch {
    return [];
  }
}

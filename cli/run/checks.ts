/**
 * Stage 4 of a run: the checks. The suites run under vitest (suites.ts) against the open target;
 * every check's outcome, and what the reports show of it, comes back through the CLI's reporter
 * (collector.ts), every exchange through the exchange log.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Config } from '../../suites/harness/config/config.ts';
import { EXCHANGE_LOG_KEY, type ExchangeLogSettings } from '../../suites/harness/evidence/exchange-log.ts';
import { PACE_REPORT_KEY } from '../../suites/harness/http/pace-report.ts';
import { type ExchangeLogInbox, openExchangeLog } from '../record/exchanges.ts';
import { openPaceReport, type PaceInbox } from '../record/pace.ts';
import type { CheckOutcome } from '../record/record.ts';
import type { Dependencies } from './dependencies.ts';
import type { Plan } from './plan.ts';
import type { RunSuitesOptions, runSuites, SuiteEvents, SuiteRun } from './suites.ts';

export interface Checked {
  /** Every test's outcome; when the deadline cut the run, selected requirements no test reported on fail. */
  readonly outcomes: readonly CheckOutcome[];
  readonly suiteRun: SuiteRun;
}

/**
 * The exchange log the worker appends to, in a staging folder of its own: gone after dispose() or
 * when the run is interrupted.
 */
export interface Staging {
  /** Where the worker appends the exchange log (suites/harness/evidence/exchange-log.ts, cli/record/exchanges.ts). */
  readonly exchangeLog: ExchangeLogInbox;
  /** Where the worker writes what the deployment's limits cost the run (suites/harness/http/pace-report.ts). */
  readonly paceReport: PaceInbox;
  dispose(): void;
}

/**
 * A staging folder in the system's temporary folder. However the process ends (a run stopped by a
 * second Ctrl-C included, run/interrupt.ts), it leaves no staging folder behind.
 */
export function openStaging(): Staging {
  const dir = mkdtempSync(path.join(tmpdir(), 'petstore-conformance-'));
  // Retried: the worker may still be writing to it as a stopped run removes it.
  const remove = () => rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  process.on('exit', remove);
  const exchangeLog = openExchangeLog(path.join(dir, 'exchanges.jsonl'));
  const paceReport = openPaceReport(path.join(dir, 'pace.json'));
  return {
    exchangeLog,
    paceReport,
    dispose() {
      process.off('exit', remove);
      remove();
    },
  };
}

export interface RunChecksInput {
  readonly plan: Plan;
  readonly config: Config;
  readonly deps: Dependencies;
  readonly runSuites: typeof runSuites;
  readonly staging: Staging;
  /** Progress: a suite file's tests were collected, a test finished. */
  readonly events?: SuiteEvents;
  /** Where allure-vitest writes the checks' Allure results (the report folder's allure-results/). */
  readonly allureResultsDir?: string;
  /** Where vitest's messages go, masked (run/outputs.ts). */
  readonly output?: RunSuitesOptions['output'];
  /** Bytes of each body the exchange log keeps (0: sizes only). */
  readonly logBodyBytes: number;
  /** Aborted when the run is interrupted: the checks are cancelled. */
  readonly stop?: AbortSignal;
}

/** Runs the suites once; never rejects for what the server does. */
export async function runChecks(input: RunChecksInput): Promise<Checked> {
  const { plan, config, deps } = input;
  const options = deps.suiteVitestOptions(config, plan.spec.openapi);
  const exchangeLog: ExchangeLogSettings = {
    file: input.staging.exchangeLog.file,
    bodyBytes: input.logBodyBytes,
    operations: [...plan.spec.operations].map(([operationId, route]) => {
      const [method = '', template = ''] = route.split(' ');
      return { method, path: template, operationId };
    }),
  };
  options.provide = {
    ...options.provide,
    [EXCHANGE_LOG_KEY]: exchangeLog,
    [PACE_REPORT_KEY]: { file: input.staging.paceReport.file },
  };
  const suiteRun = await input.runSuites(options, {
    root: deps.root(),
    ...(deps.startupMs === undefined ? {} : { startupMs: deps.startupMs }),
    ...(input.events ? { events: input.events } : {}),
    ...(input.stop ? { stop: input.stop } : {}),
    ...(input.allureResultsDir === undefined ? {} : { allureResultsDir: input.allureResultsDir }),
    ...(input.output ? { output: input.output } : {}),
  });
  const outcomes: CheckOutcome[] = [...suiteRun.outcomes];
  if (suiteRun.deadlineHit) {
    const reported = new Set(outcomes.map((o) => o.requirementId));
    for (const r of plan.selected) {
      if (reported.has(r.id)) continue;
      outcomes.push({
        requirementId: r.id,
        name: `${r.id} ${r.title}`,
        file: '(not started)',
        state: 'failed',
        failures: [
          { message: 'not checked: the run reached its deadline first (the server kept it waiting)' },
        ],
        durationMs: 0,
      });
    }
  }
  return { outcomes, suiteRun };
}

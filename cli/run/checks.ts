/**
 * Stage 4 of a run: the checks. The suites run under vitest (run.ts) against the open target; the
 * Allure reporter writes into a private staging folder that publish copies through the redactor.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Config } from '../../suites/harness/config.ts';
import { EXCHANGE_LOG_KEY, type ExchangeLogSettings } from '../../suites/harness/exchange-log.ts';
import { type ExchangeLogInbox, openExchangeLog } from '../record/exchanges.ts';
import type { AllureFiles } from '../record/record.ts';
import type { TestOutcome } from '../record/rollup.ts';
import type { CollectorEvents } from './collector.ts';
import type { Dependencies } from './dependencies.ts';
import type { Plan } from './plan.ts';
import type { runSuites, SuiteRun } from './suites.ts';

export interface Checked {
  /** Every test's outcome; when the deadline cut the run, selected requirements no test reported on fail. */
  readonly outcomes: readonly TestOutcome[];
  readonly suiteRun: SuiteRun;
}

/**
 * The exchange log the worker appends to, and the Allure results held in memory; the Allure reporter's
 * private folder is gone after dispose() or when the run is interrupted.
 */
export interface Staging {
  /** What the Allure reporter wrote, by file name (filled when the checks end). */
  readonly allureResults: AllureFiles;
  /** The Allure reporter's own folder, written into only if its results cannot be held in memory (suites.ts). */
  readonly allureResultsDir: string;
  /** Where the worker appends the exchange log (suites/harness/exchange-log.ts, cli/record/exchanges.ts). */
  readonly exchangeLog: ExchangeLogInbox;
  dispose(): void;
}

/**
 * A staging folder in the system's temporary folder. However the process ends (a run stopped by a
 * second Ctrl-C included, run/interrupt.ts), it leaves no staging folder behind.
 */
export function openStaging(): Staging {
  const dir = mkdtempSync(path.join(tmpdir(), 'petstore-conformance-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  process.on('exit', remove);
  const exchangeLog = openExchangeLog(path.join(dir, 'exchanges.jsonl'));
  return {
    allureResults: new Map(),
    allureResultsDir: path.join(dir, 'allure-results'),
    exchangeLog,
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
  readonly events?: CollectorEvents;
  /** Bytes of each body the exchange log keeps (0: sizes only). */
  readonly logBodyBytes: number;
  /** What each test staged of the Allure results, once it has finished (see RunSuitesOptions). */
  readonly onAllureStaged?: (files: ReadonlyMap<string, Buffer>) => void;
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
  options.provide = { ...options.provide, [EXCHANGE_LOG_KEY]: exchangeLog };
  const suiteRun = await input.runSuites(options, {
    root: deps.root(),
    allureResults: input.staging.allureResults,
    allureResultsDir: input.staging.allureResultsDir,
    ...(input.onAllureStaged ? { onAllureStaged: input.onAllureStaged } : {}),
    environmentInfo: environmentInfo(config, deps.version()),
    ...(deps.startupMs === undefined ? {} : { startupMs: deps.startupMs }),
    ...(input.events ? { events: input.events } : {}),
    ...(input.stop ? { stop: input.stop } : {}),
  });
  const outcomes: TestOutcome[] = [...suiteRun.outcomes];
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

/** Shown on the Allure report's environment panel: the configuration, secrets reduced to set/none. */
function environmentInfo(config: Config, version: string): Record<string, string> {
  return {
    target: config.baseUrl,
    seed: String(config.seed),
    'petstore-conformance': version,
    readOnly: String(config.readOnly),
    strict: String(config.strict),
    authRequired: String(config.authRequired),
    only: config.only.join(',') || '(all)',
    exclude: config.exclude.join(',') || '(none)',
    apiKey: config.apiKey ? 'set' : 'none',
    retries: String(config.retries ?? 0),
    node: process.version,
  };
}

import { logStep } from 'allure-js-commons';
import { inject, type TestContext, test } from 'vitest';
import type { Need, Requirement } from '../../../catalog/catalog.ts';
import { selectionSkipReason } from '../../../catalog/select.ts';
import { type Config, REQUIREMENTS_KEY } from '../config/config.ts';
import { freshId, newPet, type PetInput, runConfig } from '../config/run.ts';
import { type Contract, loadContract } from '../contract/contract.ts';
import { EXCHANGE_LOG_KEY, exchangeSink } from '../evidence/exchange-log.ts';
import { redact } from '../evidence/redact.ts';
import { testTimeoutFor } from '../http/budget.ts';
import { Client } from '../http/client.ts';
import { runPace } from '../http/pace.ts';
import { PACE_REPORT_KEY, paceReportSink } from '../http/pace-report.ts';
import { type Model, runModel } from '../model/model.ts';
import { CheckBudget } from './check-budget.ts';
import { firstLook, keyRefused, PREFIX_ID, requireTheApi } from './first-look.ts';
import './meta.ts';
import { roomRefusedIn } from './not-judged.ts';
import { endingOf, recordWhatItSaw, SkipCheck } from './outcome.ts';
import { reportEnding, reportRequirement } from './report.ts';
import { NO_5XX, secondOpinion } from './second-opinion.ts';
import { recordStores } from './stores.ts';

/** What a check receives. */
export interface CheckContext {
  /** A client of its own (exchange log per test), bounded by config.timeoutMs and the test's signal. */
  readonly api: Client;
  readonly config: Config;
  readonly contract: Contract;
  readonly requirement: Requirement;
  /** What the run created, refused and saw (model.ts): every answer of `api` is held against it. */
  readonly model: Model;
  /** Skips for a reason the data gives (e.g. "the list is empty, so there is no pet to show"). */
  skip(reason: string): never;
  /** Records an observation the reports show (e.g. the status /store/orders answered). */
  note(message: string): Promise<void>;
  /** A fresh valid pet of this run (new id, run tag), with `fields` set. */
  newPet(fields?: Partial<PetInput>): PetInput;
  /** A pet id no other run has used (see run.ts). */
  freshId(hint?: bigint): bigint;
}

export type Check = (ctx: CheckContext) => Promise<void>;

/** Rows of a table each carry a `case` label, shown in the test's name: "[limit=101]". */
export interface Row {
  readonly case: string;
  /** What this row needs beyond the requirement's needs (e.g. a POST row of a read-only check). */
  readonly needs?: readonly Need[];
  /**
   * The check leads its phase (its file): its chain of exchanges is the phase's longest, so the checks
   * declared after it start once it has asked for its first requests (or ended; at most LEAD_MS).
   */
  readonly leads?: boolean;
}

/**
 * The checks that lead (Row.leads), as they were declared. The pace serves the requests of the
 * checks begun first first (client.ts); a check that leads begins before the others and asks before
 * them, so that a deployment far away serves its first requests with the first connections, not
 * after the other checks' hundreds: the phase waits for its longest chain, not for that chain queued.
 */
const leaders: Promise<void>[] = [];
/** How long a check waits for those that lead, at most. */
const LEAD_MS = 1_000;

/** Resolves once each of `those` has asked for its first requests or ended, or after LEAD_MS. */
async function afterLeaders(those: readonly Promise<void>[]): Promise<void> {
  if (those.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(those),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, LEAD_MS);
    }),
  ]);
  clearTimeout(timer);
}

// The catalog as suiteVitestOptions() hands it over, read once in the main process; outside such a
// run (the harness's own tests) it is read from spec/ here. Either way the YAML is not parsed per worker.
const catalog = new Map(
  (inject(REQUIREMENTS_KEY) ?? (await import('../../../catalog/catalog.ts')).loadCatalog().requirements).map(
    (r) => [r.id, r],
  ),
);

/** Where every exchange is written (the CLI's runs); none under suites/vitest.config.ts. */
const exchangeLog = inject(EXCHANGE_LOG_KEY);

/** Where what the deployment's limits cost the run is written as each check ends (the CLI's runs). */
const paceReport = paceReportSink(inject(PACE_REPORT_KEY));

/** The catalog entry of an id; throws for an id the catalog does not have. */
export function requirementOf(id: string): Requirement {
  const r = catalog.get(id);
  if (!r)
    throw new Error(
      `requirement(): unknown id ${id}: it is not in spec/requirements.yaml (or it is retired)`,
    );
  return r;
}

/** The test's name: "LIST-LIMIT-OVER-MAX a limit above 100 is rejected with a 4xx status [limit=101]". */
export function testName(r: Requirement, caseLabel?: string): string {
  return caseLabel === undefined ? `${r.id} ${r.title}` : `${r.id} ${r.title} [${caseLabel}]`;
}

/** Why a requirement is not checked under a config, or undefined when it is. The reasons are stable. */
export function skipReason(
  r: Requirement,
  config: Config,
  extraNeeds: readonly Need[] = [],
): string | undefined {
  const leftOut = selectionSkipReason(r.id, config);
  if (leftOut !== undefined) return leftOut;
  for (const need of [...r.needs, ...extraNeeds]) {
    if (need === 'write' && config.readOnly) return '--read-only: needs writes';
    if (need === 'key' && !config.apiKey) return 'needs --api-key';
    if (need === 'auth-required' && !config.authRequired) return 'needs --auth-required';
    if (need === 'max-response-time' && config.maxResponseTimeMs === undefined)
      return 'needs --max-response-time';
  }
  return undefined;
}

/**
 * One test of requirement `r` (a row of its table, when it has one): skipped with a stable reason
 * when the run does not allow it; otherwise the check runs within its budget beside the run's first
 * look, and ends as outcome.ts says. No timeout of vitest's: a check's time budget is its own
 * (CheckBudget), which does not count the time the run waits for the deployment's rate limit.
 */
function define(r: Requirement, row: Row | undefined, check: Check): void {
  const caseLabel = row?.case;
  const meta = { requirementId: r.id, requirementLevel: r.level, ...(caseLabel ? { case: caseLabel } : {}) };
  // A check that leads is let go of once it has asked (the rest of its first asks a turn later) or ended.
  let asked = () => {};
  const ahead = row?.leads ? [] : [...leaders];
  if (row?.leads) leaders.push(new Promise<void>((resolve) => (asked = () => setImmediate(resolve))));
  test.concurrent(testName(r, caseLabel), { meta, timeout: 0 }, async (ctx: TestContext) => {
    ctx.onTestFinished(asked);
    await afterLeaders(ahead);
    const config = runConfig();
    await reportRequirement(r, caseLabel, config, await loadContract());
    const reason = skipReason(r, config, row?.needs);
    if (reason) ctx.skip(reason);
    // The run's first look goes out as the first check starts; each check reads it when it ends.
    if (r.id !== PREFIX_ID) void firstLook(config, exchangeLog);
    const { context, api, budget, aside } = await openCheck(r, caseLabel, config, ctx, asked);
    let thrown: unknown;
    let noApi = false;
    try {
      await budget.race(
        (async () => {
          try {
            // Without a key, a first look answered 401 or 403 ends the check at once, its requests
            // abandoned: nothing it would send could be judged (first-look.ts keyRefused).
            const refused = keyRefused(r, config, exchangeLog).catch((err: unknown) => {
              budget.abort(err);
              throw err;
            });
            await Promise.race([check(context), refused]);
          } finally {
            // Whatever the check found, a first look that says the API is not there, or the key is
            // not let through, blocks it (thrown from `finally`, that replaces what the check threw).
            await requireTheApi(r, config, exchangeLog).catch((err: unknown) => {
              noApi = true;
              throw err;
            });
          }
        })(),
        () => api.exchanges.at(-1),
      );
    } catch (err) {
      thrown = err;
    } finally {
      budget.end();
      paceReport?.write(runPace(config).report());
    }
    const { cause, keptNothing } = noApi
      ? { cause: thrown, keptNothing: false }
      : await causeOf(r, thrown, ctx.task.meta, context.model, api, aside);
    const ending = endingOf(cause, r, ctx.task.meta, ctx.signal.aborted);
    recordWhatItSaw(ctx.task.meta, api, noApi || keptNothing);
    await reportEnding(cause, ending, ctx.task.meta, api);
    if (ending.kind === 'skipped') ctx.skip(ending.reason);
    if (ending.kind === 'failed') throw ending.error;
  });
}

/**
 * What a check that threw `thrown` (undefined: it passed) is to be judged by, once the deployment's
 * own causes are set apart: a 5xx it failed or was blocked on, sent again, is ANY-NO-5XX's alone when
 * answered otherwise then (second-opinion.ts); a deployment that takes no more pets leaves the check
 * not judged, keeping nothing it saw (`keptNothing`: the refusals are the store's, not faults); and
 * what it saw of more than one store behind the address goes to the roll-up, which names it once.
 */
async function causeOf(
  r: Requirement,
  thrown: unknown,
  meta: TestContext['task']['meta'],
  model: Model,
  api: Client,
  aside: () => Client,
): Promise<{ cause: unknown; keptNothing: boolean }> {
  let cause = thrown;
  if (r.id !== NO_5XX && !r.id.startsWith('AUTH-')) {
    const opinion = await secondOpinion(aside, cause);
    cause = opinion.thrown;
    if (opinion.comeAndGo) meta.comeAndGo = opinion.comeAndGo;
  }
  const roomless = roomRefusedIn(model, api.exchanges);
  if (roomless) cause = roomless;
  recordStores(meta, model, cause);
  return { cause, keptNothing: roomless !== undefined };
}

/** What a check of `r` is handed: its client (its own exchange log, held to the run's model), its budget. */
async function openCheck(
  r: Requirement,
  caseLabel: string | undefined,
  config: Config,
  ctx: TestContext,
  onAsk: () => void,
): Promise<{ context: CheckContext; api: Client; budget: CheckBudget; aside: () => Client }> {
  const log = exchangeSink(exchangeLog, config.baseUrl, { requirement: r.id, check: testName(r, caseLabel) });
  const model = await runModel(config);
  const budget = new CheckBudget(
    ctx.signal,
    testTimeoutFor(config.timeoutMs, config.retries),
    runPace(config),
  );
  const api = new Client(config, { signal: budget.signal, model, onAsk, ...(log ? { log } : {}) });
  const context: CheckContext = {
    api,
    config,
    contract: await loadContract(),
    requirement: r,
    model,
    // A check's note or reason to skip may quote an answer: masked as the server's text. A note is
    // a step of the check's Allure result (report.ts).
    skip: (why) => {
      throw new SkipCheck(redact(why));
    },
    note: async (message) => logStep(redact(message)),
    newPet: (fields) => newPet(config, fields),
    freshId,
  };
  // A client for what the harness sends of its own after the check (second-opinion.ts): logged and
  // held to the model as the check's, its exchanges kept apart from the check's evidence.
  const aside = () => new Client(config, { signal: budget.signal, model, ...(log ? { log } : {}) });
  return { context, api, budget, aside };
}

/**
 * Declares the test of one requirement (STYLE point 4). It refuses an id the catalog does not have,
 * is named `${id} ${title}`, carries the id in task.meta.requirementId (every report files it by it), and
 * skips with a stable reason when the run does not allow it: "not selected by --only",
 * "excluded by --exclude", "--read-only: needs writes", "needs --api-key", "needs --auth-required",
 * "needs --max-response-time". Tests run concurrently.
 */
export function requirement(id: string, check: Check): void {
  define(requirementOf(id), undefined, check);
}

/**
 * One test per row of a literal table, each named `${id} ${title} [${row.case}]`, checking the same
 * requirement with other values (STYLE point 14).
 */
requirement.each = <R extends Row>(
  id: string,
  rows: readonly R[],
  check: (ctx: CheckContext, row: R) => Promise<void>,
): void => {
  const r = requirementOf(id);
  for (const row of rows) define(r, row, (ctx) => check(ctx, row));
};

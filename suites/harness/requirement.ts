import { inject, type TestContext, test } from 'vitest';
import type { Level, Need, Requirement } from '../../catalog/catalog.ts';
import { selectionSkipReason } from '../../catalog/select.ts';
import { blocked, isBlocked } from './blocked.ts';
import { testTimeoutFor } from './budget.ts';
import { type ApiResponse, Client, type ServerErrorSeen, type SlowAnswer } from './client.ts';
import { type Config, keyCarrier, REQUIREMENTS_KEY } from './config.ts';
import { type Contract, loadContract } from './contract.ts';
import {
  ConformanceError,
  HTTP_MESSAGE_ID,
  isBrokenMessage,
  isConformanceError,
  isRateLimited,
} from './errors.ts';
import type { ExchangeRecord } from './exchange.ts';
import { EXCHANGE_LOG_KEY, exchangeSink } from './exchange-log.ts';
import { type Finding, type Model, runModel } from './model.ts';
import { type Pace, runPace } from './pace.ts';
import { redact } from './redact.ts';
import type { RetriedRequest } from './retry.ts';
import { freshId, newPet, type PetInput, runConfig } from './run.ts';

declare module 'vitest' {
  interface TaskMeta {
    /** The catalog id of the requirement a test checks (exactly one per test). */
    requirementId?: string;
    requirementLevel?: Level;
    /** The row of a table the test checks ("limit=101"), when it checks one. */
    case?: string;
    /**
     * The test's last exchanges, masked (a failed test's last FAILED_EVIDENCE, a passed one's
     * PASSED_EVIDENCE): the CLI's Allure results attach them (cli/reports/allure.ts).
     */
    evidence?: ExchangeRecord[];
    /** What the test observed beside its verdict (CheckContext.note), masked: steps in the Allure results. */
    notes?: string[];
    /** The HTTP requests the test sent (429 retries not counted). */
    exchangeCount?: number;
    /** The first 5xx answers the test received (ANY-NO-5XX fails on them, whatever the test checks). */
    serverErrors?: ServerErrorSeen[];
    /**
     * Answers the test received that break another requirement's rule, as the run's model sees them
     * (model.ts): the roll-up fails the requirement each names, not this test.
     */
    findings?: Finding[];
    /** The attempts sent again because the transport failed (--retries): the test passed flaky with any. */
    retried?: RetriedRequest[];
    /** How many attempts were sent again (retried keeps the first MAX_RETRIED_KEPT). */
    retryCount?: number;
    /** The first answers slower than --max-response-time (ANY-RESPONSE-TIME fails on them), and their count. */
    slowAnswers?: SlowAnswer[];
    slowCount?: number;
    /**
     * The test was not judged: the deployment's rate limit kept one of its requests from an answer
     * longer than a run waits (RateLimited); its skip note says which request and how.
     */
    rateLimited?: { message: string; reproduce: string; paceRate?: number };
    /** The test was not judged: these requirements' failures block it (its skip note says how). */
    blockedBy?: string[];
    /** What a blocked test needed, what came back, and the curl line (masked). */
    blockedEvidence?: { expected: string; received: string; reproduce: string };
    /** A blocked test that fails itself unless one of blockedBy fails: what it then says (blocked.ts suspected). */
    blockedOwnFault?: string;
    /**
     * The check itself broke (an exception that is not an HTTP expectation: a bug of the suite, not
     * the server's fault); the CLI then cannot judge (exit 2). "TypeError: x is undefined".
     */
    suiteError?: string;
  }
}

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
}

// The catalog as suiteVitestOptions() hands it over, read once in the main process; outside such a
// run (the harness's own tests) it is read from spec/ here. Either way the YAML is not parsed per worker.
const catalog = new Map(
  (inject(REQUIREMENTS_KEY) ?? (await import('../../catalog/catalog.ts')).loadCatalog().requirements).map(
    (r) => [r.id, r],
  ),
);

/** Where every exchange is written (the CLI's runs); none under suites/vitest.config.ts. */
const exchangeLog = inject(EXCHANGE_LOG_KEY);

/** The check that sends the first look, as the exchange log names it. */
const FIRST_LOOK = 'first look: GET /pets, once before the checks (VERSION-V1-PREFIX, AUTH-KEY-ACCEPTED)';

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

/** How many of a check's last exchanges it keeps for the reports (TaskMeta.evidence): a failed check's, a passed check's. */
export const FAILED_EVIDENCE = 10;
export const PASSED_EVIDENCE = 2;

/** Retried attempts a test keeps as evidence (the rest are counted). */
const MAX_RETRIED_KEPT = 5;

/** The requirement that judges whether the API is served under the base URL at all. */
const PREFIX_ID = 'VERSION-V1-PREFIX';
/** The requirement that judges whether a request carrying the configured key is let through. */
const KEY_ID = 'AUTH-KEY-ACCEPTED';
/** Checks that send requests without the key, or with a wrong one, on purpose. */
const KEYLESS = new Set(['AUTH-MISSING-KEY-REFUSED', 'AUTH-WRONG-KEY-REFUSED']);

/**
 * GET {base}/pets, once per run and base URL, sent as the first check starts: a 404 there means the
 * API is not served under the base URL (a wrong prefix), and a 401 or 403 that the key is not let
 * through. Every other check, when it ends, is then blocked by VERSION-V1-PREFIX or AUTH-KEY-ACCEPTED
 * instead of failing (or passing) on its own 404s or 401s. Any other answer, or none, lets the checks
 * judge for themselves.
 */
function firstLook(config: Config): Promise<ApiResponse | undefined> {
  const key = Symbol.for('petstore-conformance.first-look');
  const holder = globalThis as { [key]?: Map<string, Promise<ApiResponse | undefined>> };
  holder[key] ??= new Map();
  const looks = holder[key];
  let look = looks.get(config.baseUrl);
  if (!look) {
    const log = exchangeSink(exchangeLog, config.baseUrl, { requirement: PREFIX_ID, check: FIRST_LOOK });
    look = new Client(config, log ? { log } : {})
      .get('/pets')
      .then((res) => res)
      .catch(() => undefined);
    looks.set(config.baseUrl, look);
  }
  return look;
}

/** Blocks the check when the first look says the API is not there, or the key is not let through. */
async function requireTheApi(r: Requirement, config: Config): Promise<void> {
  if (r.id === PREFIX_ID) return;
  const res = await firstLook(config);
  if (res?.status === 404) {
    blocked(
      [PREFIX_ID],
      res,
      `the API served under ${config.baseUrl}`,
      `GET /pets answered 404: nothing is served under ${config.baseUrl}`,
    );
  }
  if ((res?.status === 401 || res?.status === 403) && !KEYLESS.has(r.id)) {
    const where = keyCarrier(config);
    blocked(
      [KEY_ID],
      res,
      'a request carrying the configured key let through',
      config.apiKey
        ? `GET /pets answered ${res.status} to a request carrying the key in ${where}`
        : `GET /pets answered ${res.status}: the deployment asks for a key, and none was given (--api-key)`,
    );
  }
}

function define(r: Requirement, row: Row | undefined, check: Check): void {
  const caseLabel = row?.case;
  const meta = { requirementId: r.id, requirementLevel: r.level, ...(caseLabel ? { case: caseLabel } : {}) };
  // No timeout of vitest's: a check's time budget is its own (CheckBudget), which does not count the
  // time the run waits for the deployment's rate limit.
  test.concurrent(testName(r, caseLabel), { meta, timeout: 0 }, async (ctx: TestContext) => {
    const config = runConfig();
    const reason = skipReason(r, config, row?.needs);
    if (reason) ctx.skip(reason);
    // The run's first look (once a run) goes out as the first check starts. No check waits for its
    // answer before sending: each runs beside it, and the answer is read when the check ends, so a
    // deployment far away is not waited for one round trip more (requireTheApi below).
    if (r.id !== PREFIX_ID) void firstLook(config);
    const log = exchangeSink(exchangeLog, config.baseUrl, {
      requirement: r.id,
      check: testName(r, caseLabel),
    });
    const model = await runModel(config);
    const budget = new CheckBudget(
      ctx.signal,
      testTimeoutFor(config.timeoutMs, config.retries),
      runPace(config),
    );
    const api = new Client(config, { signal: budget.signal, model, ...(log ? { log } : {}) });
    const contract = await loadContract();
    const context: CheckContext = {
      api,
      config,
      contract,
      requirement: r,
      model,
      // A check's note or reason to skip may quote an answer: masked as the server's text.
      skip: (why) => ctx.skip(redact(why)),
      note: async (message) => {
        ctx.task.meta.notes ??= [];
        ctx.task.meta.notes.push(redact(message));
      },
      newPet: (fields) => newPet(config, fields),
      freshId,
    };
    // Whatever the check found (passed, failed, skipped, or seen of other requirements), a first
    // look that says the API is not there, or the key is not let through, blocks it (thrown from
    // `finally`, that replaces what the check threw), and nothing it saw is kept: its own answers
    // were 404s or 401s too, and say nothing of the API.
    let noApi = false;
    try {
      await budget.race(
        (async () => {
          try {
            await check(context);
          } finally {
            await requireTheApi(r, config).catch((err: unknown) => {
              noApi = true;
              throw err;
            });
          }
        })(),
        () => api.exchanges.at(-1),
      );
      keepEvidence(ctx, api.exchanges.slice(-PASSED_EVIDENCE));
    } catch (err) {
      if ((err as { code?: unknown })?.code === 'VITEST_PENDING') throw err;
      keepEvidence(ctx, api.exchanges.slice(-FAILED_EVIDENCE));
      if (isRateLimited(err)) {
        // The deployment protecting itself is never its fault: not judged, and the run says so.
        ctx.task.meta.rateLimited = {
          message: err.message,
          reproduce: err.init.reproduce,
          ...(err.init.paceRate === undefined ? {} : { paceRate: err.init.paceRate }),
        };
        ctx.skip(`not judged: ${err.message}`);
      }
      // An answer that is not a complete HTTP message is ANY-HTTP-MESSAGE's, whichever check met it.
      const block = isBlocked(err)
        ? { by: err.by, failure: err.asFailure(), message: err.message, ownFault: err.ownFault }
        : isBrokenMessage(err)
          ? {
              by: [HTTP_MESSAGE_ID],
              failure: err,
              message: `blocked by ${HTTP_MESSAGE_ID}: ${err.received} (${err.expected})`,
            }
          : undefined;
      if (block) {
        // A check is never blocked by itself: what blocks the others is its own failure.
        if (block.by.includes(r.id)) throw block.failure;
        ctx.task.meta.blockedBy = [...block.by];
        const { expected, received, reproduce } = block.failure;
        ctx.task.meta.blockedEvidence = { expected, received, reproduce };
        if (block.ownFault !== undefined) ctx.task.meta.blockedOwnFault = block.ownFault;
        ctx.skip(block.message);
      }
      if (isConformanceError(err)) throw err;
      // Any other error's text may quote an answer (JSON.parse quotes the body it refused).
      maskThrown(err);
      if (!ctx.signal.aborted) ctx.task.meta.suiteError = describeThrown(err);
      throw err;
    } finally {
      budget.end();
      ctx.task.meta.exchangeCount = api.exchanges.length;
      if (api.serverErrors.length > 0 && !noApi) ctx.task.meta.serverErrors = [...api.serverErrors];
      if (api.findings.length > 0 && !noApi) ctx.task.meta.findings = [...api.findings];
      if (api.slowCount > 0 && !noApi) {
        ctx.task.meta.slowAnswers = [...api.slowAnswers];
        ctx.task.meta.slowCount = api.slowCount;
      }
      if (api.retried.length > 0) {
        ctx.task.meta.retried = api.retried.slice(0, MAX_RETRIED_KEPT);
        ctx.task.meta.retryCount = api.retried.length;
      }
    }
  });
}

/**
 * The time budget of a check: `budgetMs` of the run's own time, not counting the time the run was held
 * back by its pace (a deployment's rate limit, --rate-limit: pace.ts). Past it, the check's requests
 * are abandoned and it fails, saying so. Its signal is aborted when the test's is.
 */
class CheckBudget {
  private readonly controller = new AbortController();
  readonly signal: AbortSignal;
  private readonly started = performance.now();
  private readonly heldAtStart: number;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    outer: AbortSignal,
    private readonly budgetMs: number,
    private readonly pace: Pace,
  ) {
    this.signal = AbortSignal.any([outer, this.controller.signal]);
    this.heldAtStart = pace.heldTime();
  }

  /** The check's own time so far: since it started, less the time the run was held back. */
  private usedMs(): number {
    return performance.now() - this.started - (this.pace.heldTime() - this.heldAtStart);
  }

  /** The check, or its failure for running out of budget, whichever comes first. */
  race<T>(check: Promise<T>, last: () => { method: string; url: string } | undefined): Promise<T> {
    const expiry = new Promise<never>((_, reject) => {
      const look = () => {
        const left = this.budgetMs - this.usedMs();
        if (left > 0) {
          this.timer = setTimeout(look, Math.ceil(left));
          return;
        }
        const request = last();
        const error = new ConformanceError({
          expected: `the check done within its time budget of ${Math.round(this.budgetMs / 1000)} s (its requests' timeouts added up, the time waited for the deployment's rate limit not counted)`,
          received: `still running after ${Math.round(this.usedMs() / 1000)} s${request ? `; its last request: ${request.method} ${request.url}` : ''}`,
          reproduce: request ? `curl -i -sS -X ${request.method} '${request.url}'` : '(no request was sent)',
        });
        this.controller.abort(error);
        reject(error);
      };
      this.timer = setTimeout(look, this.budgetMs);
    });
    expiry.catch(() => undefined);
    return Promise.race([check, expiry]);
  }

  end(): void {
    clearTimeout(this.timer);
  }
}

/** A test's last exchanges, as plain masked records, for the report (TaskMeta.evidence). */
function keepEvidence(ctx: TestContext, exchanges: readonly ExchangeRecord[]): void {
  if (exchanges.length > 0) ctx.task.meta.evidence = exchanges.map((x) => ({ ...x }));
}

/**
 * An error's message, and the head of its stack that repeats it, masked in place as a server's text
 * before vitest sends them on; the stack's frames are the suite's own paths.
 */
function maskThrown(err: unknown): void {
  if (!(err instanceof Error)) return;
  try {
    err.message = redact(err.message);
    if (typeof err.stack === 'string') {
      const frames = err.stack.search(/\n\s+at /);
      const head = frames < 0 ? err.stack : err.stack.slice(0, frames);
      err.stack = `${redact(head)}${frames < 0 ? '' : err.stack.slice(frames)}`;
    }
  } catch {}
}

/** "TypeError: x is undefined (at suites/list/list.checks.ts:12:5)": what a person fixing the suite needs. */
function describeThrown(err: unknown): string {
  if (!(err instanceof Error)) return `a non-Error value was thrown: ${String(err)}`;
  // The first frame outside the harness and the libraries: the check's own line.
  const frame = err.stack
    ?.split('\n')
    .slice(1)
    .map((line) => line.trim().replace(/^at\s+/, ''))
    .find((line) => !/node_modules|node:|suites\/harness\//.test(line) && /\.[cm]?[jt]s:\d+/.test(line));
  return `${err.name}: ${err.message}${frame ? ` (${frame})` : ''}`;
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

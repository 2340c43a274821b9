/**
 * A run of petstore-conformance, stage by stage, one module each:
 *
 *   options (options.ts)  argv, environment, config file → one plain RunPlan, or a usage error (exit
 *                         2, nothing written); read once, at the edge (main.ts), which hands the
 *                         RunPlan down: nothing below reads argv
 *           (outputs.ts)  where it writes: the console, the events stream (--events), vitest's messages masked;
 *                         opened by main.ts too, with the signals watched (interrupt.ts)
 *   plan    (plan.ts)     the spec, validated; the baseline, known to fit; the expected deviations;
 *                         which requirements run, which are left out and why
 *   target  (target.ts)   the bundled reference, started; or the deployment, reachable
 *   checks  (checks.ts)   the suites under vitest (suites.ts) → one outcome per test
 *   judge   (judge.ts)    the roll-up (record/rollup.ts, pure) → the verdict, or "the suite itself broke"
 *   publish (publish.ts)  the record through every writer (reports/writers.ts) → the exit status
 *
 * Judged or not, a run that got past its options ends as one record (record/record.ts): any stage
 * may throw CannotJudgeError (or fail unexpectedly), and the run then publishes the record of a
 * run that could not judge, by the same path.
 */
import path from 'node:path';
import { packageVersion } from '../../catalog/paths.ts';
import { Progress, startLines } from '../console/progress.ts';
import type { RunExtras } from '../record/command.ts';
import { CannotJudgeError, oneLine, stopReason } from '../record/errors.ts';
import { LOG_BODY_BYTES } from '../record/exchanges.ts';
import type { PaceReport } from '../record/pace.ts';
import { ALLURE_RESULTS, cannotJudgeRecord, type RunRecord } from '../record/record.ts';
import type { RerunSource } from '../record/rerun.ts';
import { responseTimeStats, timingsOfExchanges } from '../record/timings.ts';
import { ReportFolder } from '../reports/folder.ts';
import type { Redactor } from '../reports/redact.ts';
import { openStaging, runChecks, type Staging } from './checks.ts';
import type { Dependencies } from './dependencies.ts';
import { Interrupted, unlessInterrupted } from './interrupt.ts';
import { judge } from './judge.ts';
import type { RunPlan } from './options.ts';
import type { Outputs } from './outputs.ts';
import { makePlan, type Plan } from './plan.ts';
import { loadWriters, publish } from './publish.ts';
import type { runSuites, SuiteEvents } from './suites.ts';
import { type OpenTarget, openTarget } from './target.ts';

/**
 * The stages of a run whose options main.ts has read into `options` and whose outputs it has
 * opened; `stop` aborts at the first Ctrl-C or SIGTERM (the run stops where it is and publishes that
 * it was stopped). Resolves to the exit status; never rejects for what the target does.
 * `deps` defaults to defaultDependencies (dependencies.ts), loaded only when a run starts.
 */
export function runStages(
  options: RunPlan,
  outputs: Outputs,
  stop: AbortSignal,
  deps: Dependencies | undefined,
  extras: RunExtras = {},
): Promise<number> {
  return stages(options, { outputs, startedAt: new Date(), ...extras }, stop, deps);
}

/** What a run has besides its options: where it writes, what stops it, when it started. */
interface Run {
  readonly outputs: Outputs;
  readonly startedAt: Date;
  /** The earlier run whose failures this one checks again (the rerun subcommand). */
  readonly rerun?: RerunSource;
}

/** What a run has got as far as: what its could-not-judge record names, and what it must close. */
interface Reached {
  folder?: ReportFolder;
  plan?: Plan;
  target?: OpenTarget;
  opening?: Promise<OpenTarget | undefined>;
  staging?: Staging;
}

/**
 * plan → target → checks → judge, then publish whatever record the run ends with; closes what it
 * started once the record is published.
 */
async function stages(
  options: RunPlan,
  run: Run,
  stop: AbortSignal,
  givenDeps: Dependencies | undefined,
): Promise<number> {
  // vitest (about 0.3 s to load) loads while the plan is made and the target
  // opens; awaited only once the spec is known good. The dependencies load first, alone (a few
  // modules): the reference's thread starts as soon as they are in, rather than when they have come
  // through vitest's loading too, and is listening by the time vitest has loaded.
  const deps = quietly(
    givenDeps ? Promise.resolve(givenDeps) : import('./dependencies.ts').then((m) => m.defaultDependencies),
  );
  const loading = {
    deps,
    // The suites' thread starts as soon as its module is in: vitest loads there meanwhile.
    suites: quietly(
      deps
        .then(
          () => import('./suites.ts'),
          () => import('./suites.ts'),
        )
        .then((suites) => {
          suites.prepareSuites();
          return suites;
        }),
    ),
  };
  const reached: Reached = {};
  try {
    const record = await judged(options, run, stop, loading, reached).catch((error: unknown) =>
      couldNotJudge(error, options, run, reached),
    );
    return await publish(record, {
      ...(reached.folder ? { folder: reached.folder } : {}),
      console: run.outputs.console,
      html: options.html,
      annotations: options.annotations === 'github',
      har: options.har,
      ...(run.outputs.events ? { events: run.outputs.events } : {}),
    });
  } finally {
    reached.staging?.dispose();
    await (reached.target ?? (await reached.opening))?.close();
  }
}

/** The record of a run that judged; throws what stops it. */
async function judged(
  options: RunPlan,
  run: Run,
  stop: AbortSignal,
  loading: { suites: Promise<{ runSuites: typeof runSuites }>; deps: Promise<Dependencies> },
  reached: Reached,
): Promise<RunRecord> {
  const { p, out, warn, width } = run.outputs.console;
  const folder = ReportFolder.open(options.reportDir, options.previousReportDir, options.cwd);
  reached.folder = folder;
  // Until the checks start, an interrupted run stops at once; the checks stop themselves (suites.ts).
  const until = <T>(promise: Promise<T>) => unlessInterrupted(promise, stop);
  const plan = await until(makePlan(options));
  reached.plan = plan;
  const deps = await until(loading.deps);
  // The target opens (the reference starts on its own thread, or the deployment is reached) while
  // vitest is still loading; a target that cannot be opened is reported once it has loaded.
  const open = openTarget(options, deps);
  reached.opening = open.catch(() => undefined);
  const { runSuites } = await until(loading.suites);
  const target = await until(open);
  reached.target = target;
  const { config } = target;
  const total = plan.spec.catalog.requirements.length;
  for (const line of startLines(deps.version(), config, target.from, plan.selected.length, total, p)) {
    // The proxy and TLS settings, just before "checking N requirements…".
    if (options.networkLine !== undefined && line.startsWith('checking ')) out(options.networkLine);
    out(line);
    // The config file read, under the target.
    if (options.configFile !== undefined && line.startsWith('target:')) out(`config:  ${options.configFile}`);
  }
  for (const warning of options.warnings) warn(warning);
  // The checks start: the previous run's reports move aside, so the folder never shows stale results.
  folder.clear();
  const staging = openStaging();
  reached.staging = staging;
  // What the run says as it goes: the run's start, then a line and an event as each check ends.
  run.outputs.events?.runStart({
    version: deps.version(),
    startedAt: run.startedAt,
    target: config.baseUrl,
    targetFrom: target.from,
    config,
    catalog: plan.spec.identity,
    selected: plan.selected.length,
    html: options.html,
    har: options.har,
    ...(options.configFile === undefined ? {} : { configFile: options.configFile }),
  });
  const progress = new Progress(plan.selected, p, width);
  const levelOf = new Map(plan.spec.catalog.requirements.map((r) => [r.id, r.level]));
  const listeners: SuiteEvents = {
    onCollected: (checks) => {
      // The writers load now, while the worker runs the first checks and this thread waits,
      // rather than with the command, before vitest could start loading.
      void loadWriters();
      progress.collected(checks.map((c) => c.requirement));
    },
    ...(run.outputs.events ? { onStart: (check) => run.outputs.events?.checkStart(check) } : {}),
    onOutcome: (o) => {
      run.outputs.events?.checkEnd(
        {
          requirement: o.requirementId,
          level: levelOf.get(o.requirementId ?? ''),
          check: o.name,
          file: o.file,
        },
        o,
      );
      const line = progress.outcome(o);
      if (line !== undefined) out(line);
    },
  };
  // A deployment that turns out unreachable stops the checks that started meanwhile: the run cannot
  // judge, and says why (the CannotJudgeError target.reachable rejects with).
  const unreachable = new AbortController();
  target.reachable.catch((error: unknown) => unreachable.abort(error));
  const checked = await runChecks({
    plan,
    config,
    deps,
    runSuites,
    staging,
    logBodyBytes: options.har ? LOG_BODY_BYTES : 0,
    stop: AbortSignal.any([stop, unreachable.signal]),
    events: listeners,
    allureResultsDir: path.join(folder.dir, ALLURE_RESULTS),
    output: run.outputs.vitest,
  });
  if (stop.aborted) throw new Interrupted(String(stop.reason));
  await until(target.reachable);
  const judgement = judge(plan.spec.catalog, checked, config, plan.baseline, {
    ...(run.rerun ? { rerun: run.rerun } : {}),
    ...(plan.expected ? { expected: plan.expected } : {}),
    startedAt: run.startedAt,
    made: {
      config,
      target: config.baseUrl,
      targetFrom: target.from,
      ...(options.configFile === undefined ? {} : { configFile: options.configFile }),
    },
  });
  if (judgement.kind === 'broken') throw new CannotJudgeError(oneLine(judgement.reason), judgement.problems);
  for (const warning of judgement.warnings) warn(warning);
  // Read once vitest has ended, for the response times and exchanges.har alike.
  const exchanges = staging.exchangeLog.entries();
  const pace = staging.paceReport.report();
  return {
    version: deps.version(),
    target: config.baseUrl,
    targetFrom: target.from,
    startedAt: run.startedAt,
    durationMs: Date.now() - run.startedAt.getTime(),
    config,
    rollUp: judgement.rollUp,
    // Could not judge all it should: why, with everything it did judge kept beside it.
    ...(judgement.cannotJudge === undefined ? {} : { error: judgement.cannotJudge }),
    operations: plan.spec.operations,
    ...(judgement.baseline ? { baseline: judgement.baseline } : {}),
    exchanges,
    ...(pace === undefined ? {} : { pace }),
    ...(options.configFile === undefined ? {} : { configFile: options.configFile }),
    ...(judgement.rerun ? { rerun: judgement.rerun } : {}),
    ...(judgement.expected ? { expected: judgement.expected } : {}),
    responseTimes: responseTimeStats(timingsOfExchanges(exchanges), [...plan.spec.operations.keys()]),
    checks: { outcomes: checked.outcomes, catalog: plan.spec.catalog },
  };
}

/**
 * The record of a run stopped by `error`: every run writes summary.json, and one that cannot judge
 * says so, so that no stale verdict is published.
 */
function couldNotJudge(error: unknown, options: RunPlan, run: Run, reached: Reached): RunRecord {
  const { startedAt } = run;
  // A run stopped by a signal could not judge, and says why; it is not a fault of this tool.
  const stopped = error instanceof Interrupted ? new CannotJudgeError(error.message) : error;
  // The target as the report names it, opened or not: a reference never started has no base URL.
  const opened = reached.target;
  const unopened = options.target;
  const where = opened
    ? { name: opened.baseUrl, from: opened.from, config: opened.config }
    : unopened.kind === 'url'
      ? {
          name: unopened.baseUrl,
          from: unopened.from,
          config: { ...options.config, baseUrl: unopened.baseUrl },
        }
      : {
          name: '(bundled reference implementation)',
          from: 'bundled reference implementation',
          config: { ...options.config, baseUrl: '' },
        };
  return cannotJudgeRecord({
    version: packageVersion(),
    target: where.name,
    targetFrom: where.from,
    startedAt,
    config: where.config,
    ...maskedReason(stopReason(stopped), run.outputs.redactor),
    ...(reached.plan ? { requirements: reached.plan.spec.catalog.requirements } : {}),
    ...(reached.staging ? { exchanges: reached.staging.exchangeLog.entries() } : {}),
    ...paceOf(reached.staging),
    ...(options.configFile === undefined ? {} : { configFile: options.configFile }),
  });
}

/**
 * The reason an internal error gives, masked: an unexpected error's text may quote a request or an
 * answer. A CannotJudgeError's reason is the run's own words (ids, paths, option names), as it is.
 */
function maskedReason(
  reason: ReturnType<typeof stopReason>,
  redactor: Redactor,
): ReturnType<typeof stopReason> {
  if (reason.internalError === undefined) return reason;
  return {
    ...reason,
    reason: redactor.text(reason.reason),
    internalError: redactor.text(reason.internalError),
  };
}

/** The pace's report of a run that reached its checks, for its record. */
function paceOf(staging: Staging | undefined): { pace?: PaceReport } {
  const pace = staging?.paceReport.report();
  return pace === undefined ? {} : { pace };
}

/** The promise itself, its rejection marked handled: it is awaited later, or not at all when the run stops early. */
function quietly<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

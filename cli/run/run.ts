/**
 * A run of petstore-conformance, stage by stage, one module each:
 *
 *   options (options.ts)  argv and environment → what to run, or a usage error (exit 2, nothing written)
 *           (outputs.ts)  where it writes: the redactor, the console, the events stream (--events)
 *   plan    (plan.ts)     the spec, validated; which requirements run, which are left out and why
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
import type { TestCase } from 'vitest/node';
import type { Level } from '../../catalog/catalog.ts';
import { packageVersion } from '../../catalog/paths.ts';
import { Progress, startLines } from '../console/progress.ts';
import { type Env, EXIT, type Io, NAME, type RunExtras } from '../record/command.ts';
import { CannotJudgeError, errorText, oneLine, stopReason, UsageError } from '../record/errors.ts';
import { LOG_BODY_BYTES } from '../record/exchanges.ts';
import { ALLURE_RESULTS, allureAttachments, cannotJudgeRecord, type RunRecord } from '../record/record.ts';
import type { RerunSource } from '../record/rerun.ts';
import { responseTimeStats, timingsOfExchanges } from '../record/timings.ts';
import type { CheckInfo, EventStream } from '../reports/events.ts';
import { ReportFolder } from '../reports/folder.ts';
import { createRedactor, type Redactor } from '../reports/redact.ts';
import type { Console } from '../reports/writer.ts';
import { openStaging, runChecks, type Staging } from './checks.ts';
import type { Dependencies } from './dependencies.ts';
import { helpText } from './help.ts';
import { Interrupted, unlessInterrupted, watchInterrupts } from './interrupt.ts';
import { judge } from './judge.ts';
import { parseInvocation, type RunPlan } from './options.ts';
import { openOutputs } from './outputs.ts';
import { makePlan, type Plan } from './plan.ts';
import { loadWriters, publish } from './publish.ts';
import type { runSuites } from './suites.ts';
import { type OpenTarget, openTarget, unopenedTarget } from './target.ts';

/**
 * The command without a subcommand: resolves to its exit status, never rejects. `deps` defaults to
 * defaultDependencies (dependencies.ts), loaded only when a run starts.
 */
export async function runCommand(
  argv: readonly string[],
  env: Env,
  io: Io,
  deps: Dependencies | undefined,
  extras: RunExtras = {},
): Promise<number> {
  const startedAt = new Date();
  let redactor: Redactor = createRedactor([]);
  const err = (line: string) => io.stderr.write(`${redactor.text(line)}\n`);
  try {
    const invocation = parseInvocation(argv, env, io.cwd);
    if (invocation.kind === 'help') {
      io.stdout.write(helpText(packageVersion()));
      return EXIT.conformant;
    }
    if (invocation.kind === 'version') {
      io.stdout.write(`${packageVersion()}\n`);
      return EXIT.conformant;
    }
    const outputs = openOutputs(invocation, io, env);
    redactor = outputs.redactor;
    // From here on a first Ctrl-C or SIGTERM stops the run cleanly, a second one at once (interrupt.ts).
    const interrupt = watchInterrupts({ say: err });
    try {
      const run = {
        options: invocation,
        console: outputs.console,
        redactor,
        cwd: io.cwd,
        startedAt,
        stop: interrupt.signal,
        ...(outputs.events ? { events: outputs.events } : {}),
        ...(extras.rerun ? { rerun: extras.rerun } : {}),
      };
      const status = await stages(run, deps);
      return interrupt.status() ?? status;
    } finally {
      interrupt.dispose();
      outputs.restore();
    }
  } catch (error) {
    if (error instanceof UsageError) {
      err(`${NAME}: ${error.message}`);
      err(`Run ${NAME} --help for every option.`);
      return EXIT.cannotJudge;
    }
    err(`${NAME}: could not judge: internal error: ${errorText(error)}`);
    return EXIT.cannotJudge;
  }
}

/** A run once its options parsed. */
interface Run {
  readonly options: RunPlan;
  readonly console: Console;
  readonly redactor: Redactor;
  /** The working folder: relative paths resolve against it. */
  readonly cwd: string;
  readonly startedAt: Date;
  /** --events: the stream the run writes its events to. */
  readonly events?: EventStream;
  /** Aborted by the first Ctrl-C or SIGTERM: the run stops where it is and publishes that it was stopped. */
  readonly stop?: AbortSignal;
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
async function stages(run: Run, givenDeps: Dependencies | undefined): Promise<number> {
  // vitest and allure-vitest (about 0.3 s to load) load while the plan is made and the target
  // opens; awaited only once the spec is known good. The dependencies load first, alone (a few
  // modules): the reference's thread starts as soon as they are in, rather than when they have come
  // through vitest's loading too, and is listening by the time vitest has loaded.
  const deps = quietly(
    givenDeps ? Promise.resolve(givenDeps) : import('./dependencies.ts').then((m) => m.defaultDependencies),
  );
  const loading = {
    deps,
    suites: quietly(
      deps.then(
        () => import('./suites.ts'),
        () => import('./suites.ts'),
      ),
    ),
  };
  const reached: Reached = {};
  try {
    const record = await judged(run, loading, reached).catch((error: unknown) =>
      couldNotJudge(error, run, reached),
    );
    return await publish(record, {
      ...(reached.folder ? { folder: reached.folder } : {}),
      console: run.console,
      html: run.options.html,
      annotations: run.options.annotations === 'github',
      har: run.options.har,
      ...(run.events ? { events: run.events } : {}),
    });
  } finally {
    reached.staging?.dispose();
    await (reached.target ?? (await reached.opening))?.close();
  }
}

/** The record of a run that judged; throws what stops it. */
async function judged(
  run: Run,
  loading: { suites: Promise<{ runSuites: typeof runSuites }>; deps: Promise<Dependencies> },
  reached: Reached,
): Promise<RunRecord> {
  const { p, out, warn, width } = run.console;
  const folder = ReportFolder.open(
    run.options.reportDir,
    run.options.previousReportDir,
    run.redactor,
    run.cwd,
  );
  reached.folder = folder;
  // Until the checks start, an interrupted run stops at once; the checks stop themselves (suites.ts).
  const until = <T>(promise: Promise<T>) => unlessInterrupted(promise, run.stop);
  const plan = await until(makePlan(run.options, run.cwd));
  reached.plan = plan;
  const deps = await until(loading.deps);
  // The target opens (the reference starts on its own thread, or the deployment is reached) while
  // vitest is still loading; a target that cannot be opened is reported once it has loaded.
  const open = openTarget(run.options, deps);
  reached.opening = open.catch(() => undefined);
  const { runSuites } = await until(loading.suites);
  const target = await until(open);
  reached.target = target;
  const { config } = target;
  const total = plan.spec.catalog.requirements.length;
  for (const line of startLines(deps.version(), config, target.from, plan.selected.length, total, p)) {
    // The proxy and TLS settings, just before "checking N requirements…".
    if (run.options.networkLine !== undefined && line.startsWith('checking ')) out(run.options.networkLine);
    out(line);
    // The config file read, under the target.
    if (run.options.configFile !== undefined && line.startsWith('target:'))
      out(`config:  ${run.options.configFile}`);
  }
  for (const warning of run.options.warnings) warn(warning);
  run.events?.runStart({
    version: deps.version(),
    target: config.baseUrl,
    targetFrom: target.from,
    config,
    requirements: plan.spec.catalog.requirements,
    selected: plan.selected.length,
    html: run.options.html,
    har: run.options.har,
    ...(run.options.configFile === undefined ? {} : { configFile: run.options.configFile }),
  });

  // The checks start: the previous run's reports move aside, so the folder never shows stale results.
  folder.clear();
  const staging = openStaging();
  reached.staging = staging;
  const progress = new Progress(plan.selected, p, width);
  const levelOf = new Map(plan.spec.catalog.requirements.map((r) => [r.id, r.level]));
  const checked = await runChecks({
    plan,
    config,
    deps,
    runSuites,
    staging,
    logBodyBytes: run.options.har ? LOG_BODY_BYTES : 0,
    // Each check's attachments go into the report folder as it finishes, while the main thread
    // waits on the checks, rather than at the run's end (one file each: about 0.2 s on a slow disk).
    onAllureStaged: (files) => folder.writeAhead(ALLURE_RESULTS, allureAttachments(files)),
    ...(run.stop ? { stop: run.stop } : {}),
    events: {
      onCollected: (tests) => {
        // The writers load now, while the worker runs the first checks and this thread waits,
        // rather than with the command, before vitest could start loading.
        void loadWriters();
        progress.collected(tests.map((t) => (t.meta() as { requirementId?: string }).requirementId));
      },
      ...(run.events ? { onStart: (test) => run.events?.checkStart(checkOf(test, deps.root())) } : {}),
      onOutcome: (o) => {
        run.events?.checkEnd(
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
    },
  });
  if (run.stop?.aborted) throw new Interrupted(String(run.stop.reason));
  const judgement = judge(plan.spec.catalog, checked, config, plan.baseline, {
    ...(run.rerun ? { rerun: run.rerun } : {}),
    ...(plan.expected ? { expected: plan.expected } : {}),
    startedAt: run.startedAt,
  });
  if (judgement.kind === 'broken') throw new CannotJudgeError(oneLine(judgement.reason), judgement.problems);
  for (const warning of judgement.warnings) warn(warning);
  // Read once vitest has ended, for the response times and exchanges.har alike.
  const exchanges = staging.exchangeLog.entries();
  return {
    version: deps.version(),
    target: config.baseUrl,
    targetFrom: target.from,
    startedAt: run.startedAt,
    durationMs: Date.now() - run.startedAt.getTime(),
    config,
    rollUp: judgement.rollUp,
    operations: plan.spec.operations,
    ...(judgement.baseline ? { baseline: judgement.baseline } : {}),
    exchanges,
    ...(run.options.configFile === undefined ? {} : { configFile: run.options.configFile }),
    ...(judgement.rerun ? { rerun: judgement.rerun } : {}),
    ...(judgement.expected ? { expected: judgement.expected } : {}),
    responseTimes: responseTimeStats(timingsOfExchanges(exchanges, config.baseUrl, plan.spec.operations), [
      ...plan.spec.operations.keys(),
    ]),
    checks: {
      outcomes: checked.outcomes,
      catalog: plan.spec.catalog,
      allureResults: staging.allureResults,
    },
  };
}

/**
 * The record of a run stopped by `error`: every run writes summary.json, and one that cannot judge
 * says so, so that no stale verdict is published.
 */
function couldNotJudge(error: unknown, run: Run, reached: Reached): RunRecord {
  const { options, startedAt } = run;
  // A run stopped by a signal could not judge, and says why; it is not a fault of this tool.
  const stopped = error instanceof Interrupted ? new CannotJudgeError(error.message) : error;
  const where = reached.target
    ? { name: reached.target.baseUrl, from: reached.target.from, config: reached.target.config }
    : unopenedTarget(options);
  return cannotJudgeRecord({
    version: packageVersion(),
    target: where.name,
    targetFrom: where.from,
    startedAt,
    config: where.config,
    ...stopReason(stopped),
    ...(reached.plan ? { requirements: reached.plan.spec.catalog.requirements } : {}),
    ...(reached.staging ? { exchanges: reached.staging.exchangeLog.entries() } : {}),
    ...(options.configFile === undefined ? {} : { configFile: options.configFile }),
  });
}

/** A test as the events name it when it starts. */
function checkOf(test: TestCase, root: string): CheckInfo {
  const meta = test.meta() as { requirementId?: string; requirementLevel?: Level };
  return {
    requirement: meta.requirementId,
    level: meta.requirementLevel,
    check: test.name,
    file: path.relative(root, test.module.moduleId).split(path.sep).join('/'),
  };
}

/** The promise itself, its rejection marked handled: it is awaited later, or not at all when the run stops early. */
function quietly<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

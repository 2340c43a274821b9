/**
 * petstore-conformance. A run goes through six stages, one module each:
 *
 *   options (options.ts)  argv and environment → what to run, or a usage error
 *   plan    (plan.ts)     the spec, validated; which requirements run, which are left out and why
 *   target  (target.ts)   the bundled reference, started; or the deployment, reachable
 *   checks  (checks.ts)   the suites under vitest (run.ts) → one outcome per test
 *   judge   (judge.ts)    the roll-up (rollup.ts, pure) → the verdict, or "the suite itself broke"
 *   publish (publish.ts)  the one writer of every report, for a run that judged and one that could not
 *
 * A first argument naming a subcommand (SUBCOMMANDS) runs that module instead.
 * bin/petstore-conformance.js calls main() and exits with what it returns.
 */
import { packageVersion } from '../catalog/paths.ts';
import { proxySecrets } from '../suites/harness/network.ts';
import { Progress, startLines } from './console/progress.ts';
import { paintFor } from './console/terminal.ts';
import { type Env, EXIT, type Io, NAME, type Subcommand } from './record/command.ts';
import { CannotJudgeError, oneLine, UsageError } from './record/errors.ts';
import { cannotJudgeRecord, type RunRecord } from './record/record.ts';
import { githubAnnotations, githubCannotJudge } from './reports/annotations.ts';
import { baselineLines, endLines } from './reports/console.ts';
import { checkReportDirs } from './reports/folder.ts';
import { createRedactor, type Redactor, redactStream } from './reports/redact.ts';
import { openStaging, runChecks } from './run/checks.ts';
import type { Dependencies } from './run/dependencies.ts';
import { helpText } from './run/help.ts';
import { judge } from './run/judge.ts';
import { parseInvocation, type RunPlan, withBaseUrl } from './run/options.ts';
import { makePlan, type Plan } from './run/plan.ts';
import { ReportFolder } from './run/publish.ts';
import { type OpenTarget, openTarget, unopenedTarget } from './run/target.ts';

export { EXIT, type Io } from './record/command.ts';

/** `petstore-conformance <name> …`: each a module with run(args, env, io), loaded when named. */
const SUBCOMMANDS: Readonly<Record<string, () => Promise<Subcommand>>> = {
  compare: () => import('./across/compare.ts'),
  merge: () => import('./across/merge.ts'),
  requirements: () =>
    import('./across/requirements.ts').then((m) => ({
      run: async (args: readonly string[], _env: Env, io: Io) => {
        try {
          return m.requirementsCommand(args, io);
        } catch (error) {
          if (!(error instanceof UsageError)) throw error;
          io.stderr.write(`${NAME}: ${error.message}\nRun ${NAME} requirements --help for the usage.\n`);
          return EXIT.cannotJudge;
        }
      },
    })),
};

/**
 * Runs the command; resolves to its exit status. Never rejects. `deps` defaults to
 * defaultDependencies (cli/run/dependencies.ts), loaded only when a run starts.
 */
export async function main(
  argv: readonly string[],
  env: Env,
  io: Io = { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() },
  deps?: Dependencies,
): Promise<number> {
  const [first, ...rest] = argv;
  const subcommand =
    first !== undefined && Object.hasOwn(SUBCOMMANDS, first) ? SUBCOMMANDS[first] : undefined;
  if (subcommand) {
    try {
      return await (await subcommand()).run(rest, env, io);
    } catch (error) {
      io.stderr.write(`${NAME} ${first}: internal error: ${errorText(error)}\n`);
      return EXIT.cannotJudge;
    }
  }
  if (first !== undefined && /^[a-z]/i.test(first)) {
    io.stderr.write(
      `${NAME}: unknown command "${first}" (commands: ${Object.keys(SUBCOMMANDS).join(', ')}; every setting of a run is an --option)\nRun ${NAME} --help for every option.\n`,
    );
    return EXIT.cannotJudge;
  }
  return runCommand(argv, env, io, deps);
}

/** The command itself: options, then the stages. */
async function runCommand(
  argv: readonly string[],
  env: Env,
  io: Io,
  deps: Dependencies | undefined,
): Promise<number> {
  const startedAt = new Date();
  let redactor: Redactor = createRedactor([]);
  let annotate = false;
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
    redactor = createRedactor([invocation.config.apiKey, ...proxySecrets(invocation.config.network)]);
    annotate = invocation.annotations === 'github';
    // Whatever reaches the process's own streams (vitest's messages too) is redacted as well.
    const restore = [process.stdout, process.stderr].map((s) => redactStream(s, redactor));
    try {
      return await stages(invocation, env, io, deps, redactor, startedAt);
    } finally {
      for (const undo of restore) undo();
    }
  } catch (error) {
    if (error instanceof UsageError) {
      err(`${NAME}: ${error.message}`);
      err(`Run ${NAME} --help for every option.`);
      return EXIT.cannotJudge;
    }
    if (error instanceof CannotJudgeError) {
      if (annotate) io.stdout.write(`${redactor.text(githubCannotJudge(error.message))}\n`);
      err(`${NAME}: could not judge: ${error.message}`);
      return EXIT.cannotJudge;
    }
    err(`${NAME}: could not judge: internal error: ${errorText(error)}`);
    return EXIT.cannotJudge;
  }
}

/** The console of a run: every line through the redactor, colours only on a terminal. */
function consoleOf(io: Io, env: Env, redactor: Redactor) {
  return {
    p: paintFor(io.stdout, env),
    out: (line = '') => io.stdout.write(`${redactor.text(line)}\n`),
    err: (line: string) => io.stderr.write(`${redactor.text(line)}\n`),
    warn: (line: string) =>
      io.stderr.write(`${redactor.text(paintFor(io.stderr, env).yellow(`warning: ${line}`))}\n`),
  };
}

/**
 * plan → target → checks → judge → publish. Any stage may throw CannotJudgeError (or fail
 * unexpectedly): the reports then say the run could not judge, written by the same writer.
 */
async function stages(
  options: RunPlan,
  env: Env,
  io: Io,
  givenDeps: Dependencies | undefined,
  redactor: Redactor,
  startedAt: Date,
): Promise<number> {
  const { p, out, err, warn } = consoleOf(io, env, redactor);
  // vitest and allure-vitest (about 0.3 s to load) load while the plan is made and the target
  // opens; awaited only once the spec is known good.
  const suites = quietly(import('./run/suites.ts'));
  const dependencies = quietly(
    givenDeps
      ? Promise.resolve(givenDeps)
      : import('./run/dependencies.ts').then((m) => m.defaultDependencies),
  );
  // The report folder first: a folder a run may not write into gets no report, not even a could-not-judge one.
  checkReportDirs(options.reportDir, options.previousReportDir);
  const reports = new ReportFolder(options.reportDir, options.previousReportDir, redactor, io.cwd);
  let plan: Plan | undefined;
  let target: OpenTarget | undefined;
  let opening: Promise<OpenTarget | undefined> | undefined;
  try {
    plan = await makePlan(options, io.cwd);
    const deps = await dependencies;
    // The target opens (the reference starts on its own thread, or the deployment is reached) while
    // vitest is still loading; a target that cannot be opened is reported once it has loaded.
    const open = quietly(openTarget(options, deps));
    opening = open.catch(() => undefined);
    const { runSuites } = await suites;
    target = await open;
    const config = withBaseUrl(options.config, target.baseUrl);
    const total = plan.spec.catalog.requirements.length;
    for (const line of startLines(deps.version(), config, target.from, plan.selected.length, total, p)) {
      // The proxy and TLS settings, just before "checking N requirements…".
      if (options.networkLine !== undefined && line.startsWith('checking ')) out(options.networkLine);
      out(line);
    }
    for (const warning of options.warnings) warn(warning);

    // The checks start: the previous run's reports move aside, so the folder never shows stale results.
    reports.clear();
    const staging = openStaging();
    const width = Math.min(120, Math.max(60, io.stdout.columns ?? 100));
    const progress = new Progress(plan.selected, p, width);
    try {
      const checked = await runChecks({
        plan,
        config,
        deps,
        runSuites,
        staging,
        events: {
          onCollected: (tests) =>
            progress.collected(tests.map((t) => (t.meta() as { requirementId?: string }).requirementId)),
          onOutcome: (o) => {
            const line = progress.outcome(o);
            if (line !== undefined) out(line);
          },
        },
      });
      const judgement = judge(plan.spec.catalog, checked, config, plan.baseline);
      if (judgement.kind === 'broken') {
        for (const line of judgement.problems) err(line);
        throw new CannotJudgeError(oneLine(judgement.reason));
      }
      for (const warning of judgement.warnings) warn(warning);
      const record: RunRecord = {
        version: deps.version(),
        target: config.baseUrl,
        targetFrom: target.from,
        startedAt,
        durationMs: Date.now() - startedAt.getTime(),
        config,
        rollUp: judgement.rollUp,
        operations: plan.spec.operations,
        ...(judgement.baseline ? { baseline: judgement.baseline } : {}),
      };
      const written = await reports.publish(record, {
        allureResultsDir: staging.allureResultsDir,
        allure: { catalog: plan.spec.catalog, outcomes: checked.outcomes },
        html: options.html,
        say: (line) => out(p.dim(line)),
        warn,
      });
      for (const line of endLines(record, reports.shown, written, p, width)) out(line);
      if (judgement.baseline) for (const line of baselineLines(judgement.baseline, p)) out(line);
      if (options.annotations === 'github') for (const line of githubAnnotations(record.rollUp)) out(line);
      return judgement.exit;
    } finally {
      staging.dispose();
    }
  } catch (error) {
    // Every run writes summary.json: a run that cannot judge says so, so that no stale verdict is published.
    const reason =
      error instanceof CannotJudgeError
        ? error.message
        : `internal error: ${oneLine(error instanceof Error ? error.message : String(error))}`;
    const where = target
      ? { name: target.baseUrl, from: target.from, baseUrl: target.baseUrl }
      : unopenedTarget(options.target);
    const record = cannotJudgeRecord({
      version: packageVersion(),
      target: where.name,
      targetFrom: where.from,
      startedAt,
      config: withBaseUrl(options.config, where.baseUrl),
      reason,
      ...(plan ? { requirements: plan.spec.catalog.requirements } : {}),
    });
    try {
      await reports.publish(record);
    } catch (writeError) {
      warn(`could not write the could-not-judge report: ${oneLine(String(writeError))}`);
    }
    throw error;
  } finally {
    await (target ?? (await opening))?.close();
  }
}

/** The promise itself, its rejection marked handled: it is awaited later, or not at all when the run stops early. */
function quietly<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

function errorText(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

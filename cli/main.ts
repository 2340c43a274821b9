/**
 * petstore-conformance: options → preflight → (reference server) → suites → roll-up → reports →
 * exit status. bin/petstore-conformance.js calls main() and exits with what it returns.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadCatalog, type Requirement } from '../spec/catalog.ts';
import { packageVersion } from '../spec/paths.ts';
import type { Config } from '../suites/harness/config.ts';
import { prepareAllureResults, previousStatuses } from './allure.ts';
import { endLines, paintFor, progressLine, startLines } from './console.ts';
import type { Dependencies } from './dependencies.ts';
import { helpText } from './help.ts';
import { renderHtml } from './html.ts';
import { parseInvocation, type RunPlan, UsageError, withBaseUrl } from './options.ts';
import {
  CannotJudgeError,
  checkOnly,
  checkReachable,
  checkReportDirs,
  loadSpec,
  oneLine,
} from './preflight.ts';
import { createRedactor, type Redactor, redactStream } from './redact.ts';
import { junitXml, type RunRecord, summaryJson, summaryMarkdown } from './reports.ts';
import { cannotJudgeRollUp, isSelected, rollUp, type TestOutcome } from './rollup.ts';
import type { runSuites } from './run.ts';
import { HISTORY_FILE, redactTree, rotateReportDir, writeReports } from './write.ts';

export const EXIT = { conformant: 0, nonConformant: 1, cannotJudge: 2 } as const;

export interface Io {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
  readonly cwd: string;
}

const NAME = 'petstore-conformance';

/**
 * Runs the command; resolves to its exit status. Never rejects. `deps` defaults to
 * defaultDependencies (cli/dependencies.ts), loaded only when a run starts.
 */
export async function main(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  io: Io = { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() },
  deps?: Dependencies,
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
    redactor = createRedactor([invocation.config.apiKey]);
    // Whatever reaches the process's own streams (vitest's messages too) is redacted as well.
    const restore = [process.stdout, process.stderr].map((s) => redactStream(s, redactor));
    try {
      return await run(invocation, env, io, deps, redactor, startedAt);
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
      err(`${NAME}: could not judge: ${error.message}`);
      return EXIT.cannotJudge;
    }
    err(
      `${NAME}: could not judge: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    return EXIT.cannotJudge;
  }
}

async function run(
  plan: RunPlan,
  env: Readonly<Record<string, string | undefined>>,
  io: Io,
  givenDeps: Dependencies | undefined,
  redactor: Redactor,
  startedAt: Date,
): Promise<number> {
  const warn = (line: string) =>
    io.stderr.write(`${redactor.text(paintFor(io.stderr, env).yellow(`warning: ${line}`))}\n`);

  // vitest, allure-vitest and the reference implementation (about 0.4 s to load) load while the
  // preflight validates the spec on a thread of its own; awaited only once the spec is known good.
  const suites = quietly(import('./run.ts'));
  const dependencies = quietly(
    givenDeps ? Promise.resolve(givenDeps) : import('./dependencies.ts').then((m) => m.defaultDependencies),
  );
  // The report folder first: a folder a run may not write into gets no report, not even a could-not-judge one.
  checkReportDirs(plan.reportDir, plan.previousReportDir);
  const state: JudgeState = { rotated: false };
  try {
    return await judge(plan, env, io, dependencies, suites, redactor, startedAt, state);
  } catch (error) {
    // Every run writes summary.json: a run that cannot judge says so, so that no stale verdict is published.
    const reason =
      error instanceof CannotJudgeError
        ? error.message
        : `internal error: ${oneLine(error instanceof Error ? error.message : String(error))}`;
    try {
      writeCannotJudge(plan, reason, startedAt, redactor, io.cwd, state.rotated);
    } catch (writeError) {
      warn(`could not write the could-not-judge report: ${oneLine(String(writeError))}`);
    }
    throw error;
  }
}

/** Whether the run already moved the previous run's reports aside. */
interface JudgeState {
  rotated: boolean;
}

/**
 * The reports of a run that could not judge (exit 2 after the options parsed): the previous run's
 * reports move aside as for any run, summary.json says "non-conformant" with the reason in `error`
 * and every requirement skipped "could not judge: …", and summary.md says why.
 */
function writeCannotJudge(
  plan: RunPlan,
  reason: string,
  startedAt: Date,
  redactor: Redactor,
  cwd: string,
  rotated: boolean,
): void {
  if (!rotated) rotateReportDir(plan.reportDir, plan.previousReportDir);
  let requirements: readonly Requirement[] = [];
  try {
    requirements = loadCatalog().requirements;
  } catch {
    // An invalid catalog: no requirement to list.
  }
  const record: RunRecord = {
    version: packageVersion(),
    target: plan.target.kind === 'reference' ? '(bundled reference implementation)' : plan.target.baseUrl,
    targetFrom: plan.target.kind === 'reference' ? 'bundled reference implementation' : plan.target.from,
    startedAt,
    durationMs: Date.now() - startedAt.getTime(),
    config: withBaseUrl(plan.config, plan.target.kind === 'reference' ? '' : plan.target.baseUrl),
    rollUp: cannotJudgeRollUp(requirements, reason),
    operations: new Map(),
    error: reason,
  };
  writeReports(
    plan.reportDir,
    [
      { name: 'summary.json', content: summaryJson(record) },
      { name: 'summary.md', content: summaryMarkdown(record, displayPath(plan.reportDir, cwd)) },
    ],
    undefined,
    redactor,
  );
}

async function judge(
  plan: RunPlan,
  env: Readonly<Record<string, string | undefined>>,
  io: Io,
  dependencies: Promise<Dependencies>,
  suites: Promise<typeof import('./run.ts')>,
  redactor: Redactor,
  startedAt: Date,
  state: JudgeState,
): Promise<number> {
  const p = paintFor(io.stdout, env);
  const out = (line = '') => io.stdout.write(`${redactor.text(line)}\n`);
  const warn = (line: string) =>
    io.stderr.write(`${redactor.text(paintFor(io.stderr, env).yellow(`warning: ${line}`))}\n`);
  const spec = await loadSpec();
  checkOnly(spec.catalog, plan.config.only);

  const deps = await dependencies;
  const { runSuites } = await suites;
  let reference: { url: string; close(): Promise<void> } | undefined;
  let staging: string | undefined;
  let stopOnSignal: ((signal: NodeJS.Signals) => void) | undefined;
  try {
    let baseUrl: string;
    let targetFrom: string;
    if (plan.target.kind === 'reference') {
      reference = await deps.startReference({
        port: 0,
        host: '127.0.0.1',
        ...(plan.config.apiKey === undefined ? {} : { apiKey: plan.config.apiKey }),
        apiKeyHeader: plan.config.apiKeyHeader,
        ...(plan.config.apiKeyQuery === undefined ? {} : { apiKeyQuery: plan.config.apiKeyQuery }),
      });
      baseUrl = reference.url.replace(/\/+$/, '');
      targetFrom = 'bundled reference implementation, started for this run';
    } else {
      baseUrl = plan.target.baseUrl;
      targetFrom = plan.target.from;
      await checkReachable(baseUrl, Math.min(plan.config.timeoutMs, 10_000));
    }
    const config = withBaseUrl(plan.config, baseUrl);

    const selected = spec.catalog.requirements.filter((r) => isSelected(r.id, config.only)).length;
    for (const line of startLines(
      deps.version(),
      config,
      targetFrom,
      selected,
      spec.catalog.requirements.length,
      p,
    )) {
      out(line);
    }
    for (const warning of plan.warnings) warn(warning);

    // The run starts: the previous run's reports move aside, so the folder never shows stale results.
    rotateReportDir(plan.reportDir, plan.previousReportDir);
    state.rotated = true;
    staging = mkdtempSync(path.join(tmpdir(), 'petstore-conformance-'));
    const allureStaging = path.join(staging, 'allure-results');
    // Interrupted (Ctrl-C, a cancelled CI job): leave no staging folder behind, exit as signals do.
    const folder = staging;
    stopOnSignal = (signal: NodeJS.Signals) => {
      rmSync(folder, { recursive: true, force: true });
      process.exit(signal === 'SIGINT' ? 130 : 143);
    };
    process.once('SIGINT', stopOnSignal);
    process.once('SIGTERM', stopOnSignal);

    const suiteRun = await runSuites(deps.suiteVitestOptions(config, spec.openapi), {
      root: deps.root(),
      allureResultsDir: allureStaging,
      environmentInfo: environmentInfo(config, deps.version()),
      ...(deps.startupMs === undefined ? {} : { startupMs: deps.startupMs }),
      events: {
        onOutcome: (o, done, collected) => {
          const line = progressLine(o, done, collected, p);
          if (line !== undefined) out(line);
        },
      },
    });

    const outcomes: TestOutcome[] = [...suiteRun.outcomes];
    if (suiteRun.deadlineHit) {
      const reported = new Set(outcomes.map((o) => o.requirementId));
      for (const r of spec.catalog.requirements) {
        if (isSelected(r.id, config.only) && !reported.has(r.id)) {
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
    }
    const summary = rollUp(spec.catalog, outcomes, config);

    const broken = suiteProblems(suiteRun, summary.unjudged);
    if (broken.length > 0 && !suiteRun.deadlineHit) {
      for (const line of broken) io.stderr.write(`${redactor.text(line)}\n`);
      throw new CannotJudgeError(`the suite itself broke: ${oneLine(broken[0] ?? '')}`);
    }
    for (const e of suiteRun.unhandledErrors) warn(`an error escaped the suite's tests: ${oneLine(e)}`);
    if (suiteRun.deadlineHit)
      warn('the run reached its deadline and was cut short; unfinished checks count as failed');

    const shownDir = displayPath(plan.reportDir, io.cwd);
    const record: RunRecord = {
      version: deps.version(),
      target: config.baseUrl,
      targetFrom,
      startedAt,
      durationMs: Date.now() - startedAt.getTime(),
      config,
      rollUp: summary,
      operations: spec.operations,
    };
    // One Allure result per requirement, before the results are copied through the redactor.
    prepareAllureResults(allureStaging, {
      record,
      catalog: spec.catalog,
      outcomes,
      previous: previousStatuses(path.join(plan.reportDir, HISTORY_FILE)),
    });
    const written = writeReports(
      plan.reportDir,
      [
        { name: 'summary.json', content: summaryJson(record) },
        { name: 'junit.xml', content: junitXml(record) },
        { name: 'summary.md', content: summaryMarkdown(record, shownDir) },
      ],
      allureStaging,
      redactor,
    );
    if (plan.html) {
      out(p.dim('rendering the Allure HTML report…'));
      const problem = await renderHtml(plan.reportDir, { record, redactor });
      if (problem === undefined) {
        redactTree(path.join(plan.reportDir, 'allure-report'), redactor);
        written.push('allure-report/index.html');
      } else {
        warn(`--html: no HTML report: ${problem}`);
      }
    }
    for (const line of endLines(record, shownDir, written, p)) out(line);
    return summary.verdict === 'conformant' ? EXIT.conformant : EXIT.nonConformant;
  } finally {
    if (stopOnSignal) {
      process.off('SIGINT', stopOnSignal);
      process.off('SIGTERM', stopOnSignal);
    }
    if (staging) rmSync(staging, { recursive: true, force: true });
    if (reference) await withinMs(5_000, reference.close());
  }
}

/** The promise itself, its rejection marked handled: it is awaited later, or not at all when the run stops early. */
function quietly<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/** Why the run cannot judge after the suites ran: they did not start, a file did not load, ids unreported. */
function suiteProblems(
  suiteRun: Awaited<ReturnType<typeof runSuites>>,
  unjudged: readonly string[],
): string[] {
  const lines: string[] = [];
  if (suiteRun.startError) lines.push(`the suites did not run: ${suiteRun.startError}`);
  for (const m of suiteRun.brokenModules) lines.push(`suite file ${m.file} failed to load: ${m.message}`);
  if (unjudged.length > 0) {
    const shown = unjudged.length > 8 ? `${unjudged.slice(0, 8).join(', ')}, …` : unjudged.join(', ');
    lines.push(`no test reported on ${unjudged.length} requirement(s): ${shown}`);
  }
  return lines;
}

/** A path as the user would type it: relative to the working folder when inside it. */
function displayPath(file: string, cwd: string): string {
  const relative = path.relative(cwd, file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}

function environmentInfo(config: Config, version: string): Record<string, string> {
  return {
    target: config.baseUrl,
    seed: String(config.seed),
    'petstore-conformance': version,
    readOnly: String(config.readOnly),
    strict: String(config.strict),
    authRequired: String(config.authRequired),
    only: config.only.join(',') || '(all)',
    apiKey: config.apiKey ? 'set' : 'none',
    node: process.version,
  };
}

async function withinMs(ms: number, promise: Promise<unknown>): Promise<void> {
  await Promise.race([promise.catch(() => undefined), new Promise((r) => setTimeout(r, ms).unref())]);
}

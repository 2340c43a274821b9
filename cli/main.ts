/**
 * petstore-conformance: main(argv, env, io?) runs the command and resolves to its exit status.
 *
 *   run/      a run, stage by stage: options → plan → target → checks → judge → publish (run/run.ts)
 *   reports/  the outputs of a run, each a writer of its record (reports/writers.ts)
 *   across/   what reads runs back: --baseline, compare, merge, rerun, and the requirements command
 *   console/  what every command prints: colours, fitting lines, text escaped for Markdown and
 *             HTML, a run's progress
 *   record/   the record of a run and its pure roll-up, the exit codes, the errors that stop a run
 *
 * This is the edge: argv is read here, once, into one plain object (run/options.ts RunPlan) that
 * the run is handed; the streams and the signals are taken here too. A first argument naming a
 * subcommand (SUBCOMMANDS) runs that module instead of a run (rerun starts a run through the same
 * edge); each folder imports only from the folders listed below it. bin/petstore-conformance.js
 * calls main() and exits with what it returns.
 */
import { packageVersion } from '../catalog/paths.ts';
import { type Env, EXIT, type Io, NAME, type RunExtras, type Subcommand } from './record/command.ts';
import { errorText, UsageError } from './record/errors.ts';
import type { Dependencies } from './run/dependencies.ts';
import { helpText } from './run/help.ts';
import { watchInterrupts } from './run/interrupt.ts';
import { parseInvocation, type RunPlan } from './run/options.ts';
import { type Outputs, openOutputs } from './run/outputs.ts';
import { runStages } from './run/run.ts';

export { EXIT, type Io } from './record/command.ts';

/** `petstore-conformance <name> …`: each a module with run(args, env, io), loaded when named. */
const SUBCOMMANDS: Readonly<Record<string, () => Promise<Subcommand>>> = {
  compare: () => import('./across/compare.ts'),
  merge: () => import('./across/merge.ts'),
  requirements: () => import('./across/requirements.ts'),
  rerun: () => import('./across/rerun.ts'),
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
      const startRun = (args: readonly string[], extras: RunExtras) => run(args, env, io, deps, extras);
      return await (await subcommand()).run(rest, env, io, startRun);
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
  return run(argv, env, io, deps, {});
}

/**
 * A run of the command, from its edge: the arguments are read here, once, into one plain object
 * (parseInvocation: argv, then the environment, then the config file; run/options.ts RunPlan), which
 * the run is handed instead of argv; its outputs are opened (run/outputs.ts) and the signals watched
 * (run/interrupt.ts); then the stages run (run/run.ts). A usage error is exit 2 with nothing written.
 */
async function run(
  argv: readonly string[],
  env: Env,
  io: Io,
  deps: Dependencies | undefined,
  extras: RunExtras,
): Promise<number> {
  let outputs: Outputs;
  let plan: RunPlan;
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
    plan = invocation;
    outputs = openOutputs(plan, io, env);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`${NAME}: ${error.message}\nRun ${NAME} --help for every option.\n`);
      return EXIT.cannotJudge;
    }
    io.stderr.write(`${NAME}: could not judge: internal error: ${errorText(error)}\n`);
    return EXIT.cannotJudge;
  }
  // From here on a first Ctrl-C or SIGTERM stops the run cleanly, a second one at once. Its lines
  // are fixed words, with nothing of the run's in them to mask.
  const interrupt = watchInterrupts({ say: (line) => io.stderr.write(`${line}\n`) });
  try {
    const status = await runStages(plan, outputs, interrupt.signal, deps, extras);
    return interrupt.status() ?? status;
  } catch (error) {
    // An unexpected error's text may quote a request or an answer: masked, unlike the run's own lines.
    outputs.console.err(
      `${NAME}: could not judge: internal error: ${outputs.redactor.text(errorText(error))}`,
    );
    return EXIT.cannotJudge;
  } finally {
    interrupt.dispose();
  }
}

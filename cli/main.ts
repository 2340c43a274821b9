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
 * A first argument naming a subcommand (SUBCOMMANDS) runs that module instead of a run; each
 * folder imports only from the folders listed below it. bin/petstore-conformance.js calls main()
 * and exits with what it returns.
 */
import { type Env, EXIT, type Io, NAME, type RunExtras, type Subcommand } from './record/command.ts';
import { errorText } from './record/errors.ts';
import type { Dependencies } from './run/dependencies.ts';
import { runCommand } from './run/run.ts';

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
      const startRun = (args: readonly string[], extras: RunExtras) =>
        runCommand(args, env, io, deps, extras);
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
  return runCommand(argv, env, io, deps);
}

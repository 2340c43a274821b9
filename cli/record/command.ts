/** What the command and its subcommands share: the exit codes (CONTRACT.md), the streams, the name. */
import type { RerunSource } from './rerun.ts';

export const NAME = 'petstore-conformance';

export const EXIT = { conformant: 0, nonConformant: 1, cannotJudge: 2 } as const;

export interface Io {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
  readonly cwd: string;
}

export type Env = Readonly<Record<string, string | undefined>>;

/** A subcommand (`petstore-conformance <name> …`): resolves to its exit status, never rejects. */
export interface Subcommand {
  /** `startRun` starts a run of the command (the rerun subcommand runs one). */
  run(args: readonly string[], env: Env, io: Io, startRun: StartRun): Promise<number>;
}

/** What a run started by a subcommand carries besides its arguments. */
export interface RunExtras {
  /** The run repeats the failures of this earlier run (the rerun subcommand). */
  readonly rerun?: RerunSource;
}

/** Starts a run of the command with these arguments (the environment and streams the subcommand had). */
export type StartRun = (argv: readonly string[], extras: RunExtras) => Promise<number>;

/**
 * A subcommand's parsed options, or the exit status when nothing more is to be done: its usage for
 * --help (0), or a usage error in two lines on stderr (2). `parse` throws for bad options.
 */
export function optionsOf<T extends { readonly help?: boolean }>(
  name: string,
  args: readonly string[],
  parse: (args: readonly string[]) => T,
  usage: string,
  io: Io,
): Exclude<T, { readonly help: true }> | number {
  let parsed: T;
  try {
    parsed = parse(args);
  } catch (error) {
    io.stderr.write(
      `${NAME} ${name}: ${(error as Error).message}\nRun ${NAME} ${name} --help for the usage.\n`,
    );
    return EXIT.cannotJudge;
  }
  if (parsed.help) {
    io.stdout.write(usage);
    return EXIT.conformant;
  }
  return parsed as Exclude<T, { readonly help: true }>;
}

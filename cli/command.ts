/** What the command and its subcommands share: the exit codes (CONTRACT.md), the streams, the name. */

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
  run(args: readonly string[], env: Env, io: Io): Promise<number>;
}

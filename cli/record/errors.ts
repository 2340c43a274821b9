/**
 * The errors that stop a run before it can judge: exit 2 (CONTRACT.md), with one line saying what
 * to fix. Any stage may throw them; the run turns them into its could-not-judge record (run/run.ts).
 */

/** A bad option or combination of options: exit 2 with one line saying what to fix. Nothing is written. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** The run cannot judge: exit 2 with this one-line message, and a could-not-judge report. */
export class CannotJudgeError extends Error {
  override name = 'CannotJudgeError';

  constructor(
    message: string,
    /** What the console says before the message: each problem the run found, one a line. */
    readonly problems: readonly string[] = [],
  ) {
    super(message);
  }
}

/**
 * Why a run stopped, as its could-not-judge record says it: a CannotJudgeError's message (and
 * problems), or, for anything else, an internal error of this tool, with its stack for the console.
 */
export function stopReason(error: unknown): {
  reason: string;
  problems?: readonly string[];
  internalError?: string;
} {
  if (error instanceof CannotJudgeError) {
    return { reason: error.message, ...(error.problems.length > 0 ? { problems: error.problems } : {}) };
  }
  return { reason: `internal error: ${oneLine(error)}`, internalError: errorText(error) };
}

/**
 * Why a file could not be opened, from the error fs threw, as a message shows it: `missing` for a
 * path with nothing there (a file to read: "no such file"; one to write: "its folder does not exist").
 */
export function fileErrorReason(error: unknown, missing = 'no such file'): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return missing;
  if (code === 'EACCES') return 'permission denied';
  if (code === 'EISDIR') return 'it is a folder';
  return code ?? oneLine(error);
}

/** The first line of an error's message. */
export function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}

/** An error as a bug report wants it: its stack, or its text. */
export function errorText(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

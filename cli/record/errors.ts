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
}

/** The first line of an error's message. */
export function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}

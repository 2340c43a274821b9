/**
 * GitHub Actions annotations: one `::error title=ID::…` workflow command per failed gating
 * requirement, which GitHub shows on the run's summary page and beside the job's log. Printed on
 * stdout under `--annotations github`, the default when GITHUB_ACTIONS=true.
 * https://docs.github.com/actions/reference/workflow-commands-for-github-actions#setting-an-error-message
 */
import type { RollUp } from '../record/rollup.ts';
import type { Writer } from './writer.ts';

/**
 * Under --annotations github: one line per failed gating requirement, or the one line of a run
 * that could not judge. An internal error is this tool's bug, not the deployment's: none for it.
 */
export const annotations: Writer = {
  name: 'GitHub annotations',
  write(record, { annotations: wanted, console }) {
    if (!wanted) return;
    // A run that could not judge every requirement keeps the failures it judged, and says why.
    const excused = new Set((record.expected?.excused ?? []).map((e) => e.id));
    for (const line of githubAnnotations(record.rollUp, excused)) console.out(line);
    if (record.error !== undefined && record.internalError === undefined)
      console.out(githubCannotJudge(record.error));
  },
};

/**
 * The lines, in catalog order: the title is the requirement id; the message says the level and
 * title, what was expected and what came back, and the curl line to reproduce it.
 */
export function githubAnnotations(
  rollUp: Pick<RollUp, 'results'>,
  /** Failures --expected excuses: no error for them. */
  excused: ReadonlySet<string> = new Set(),
): string[] {
  return rollUp.results
    .filter((r) => r.status === 'failed' && r.gating && !excused.has(r.id))
    .map((r) => {
      const lines = [`${r.id} (${r.level}) ${r.title}`];
      if (r.expected !== undefined) lines.push(`expected: ${r.expected}`);
      if (r.received !== undefined) lines.push(`received: ${r.received}`);
      if (r.expected === undefined && r.received === undefined) lines.push(r.message ?? 'failed');
      if (r.reproduce !== undefined) lines.push(`reproduce: ${r.reproduce}`);
      return errorCommand(r.id, lines.join('\n'));
    });
}

/** The annotation of a run that could not judge (exit 2). */
export function githubCannotJudge(reason: string): string {
  return errorCommand('petstore-conformance', `could not judge: ${reason}`);
}

/** `::error title=…::…`, escaped as GitHub's toolkit escapes workflow commands. */
export function errorCommand(title: string, message: string): string {
  return `::error title=${escapeProperty(title)}::${escapeData(message)}`;
}

/** A command's message: %, CR and LF percent-encoded (the runner decodes them; a line break stays one). */
export function escapeData(value: string): string {
  return value.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A command's property value: as a message, and : and , too (they separate properties). */
export function escapeProperty(value: string): string {
  return escapeData(value).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

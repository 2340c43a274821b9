/**
 * --baseline <summary.json>: a gate adopted on a deployment that already fails some requirements.
 * The run judges everything as usual; its exit status fails only on gating requirements that are
 * failed (or blocked) now and were not in the baseline run (cli/across/diff.ts has the exact rule,
 * cli/run/judge.ts applies it). This module reads the baseline when the run is planned.
 * A baseline judged against another catalog, or at another gating level, is refused: its results
 * would not mean the same.
 */
import type { Requirement } from '../../catalog/catalog.ts';
import { CannotJudgeError } from '../record/errors.ts';
import { catalogIdentity } from '../record/record.ts';
import { catalogDifference, readSummary, type Summary, SummaryFileError } from './summary-file.ts';

export interface Baseline {
  /** The path as given on the command line. */
  readonly given: string;
  readonly summary: Summary;
}

/**
 * Reads the baseline and checks that it can gate this run: a summary of a run that judged, against
 * this catalog, at this gating level. Throws CannotJudgeError saying what to do instead.
 */
export function loadBaseline(
  given: string,
  cwd: string,
  catalog: { readonly requirements: readonly Pick<Requirement, 'id' | 'level'>[] },
  strict: boolean,
): Baseline {
  const refuse = (why: string) => new CannotJudgeError(`--baseline ${given}: ${why}`);
  let summary: Summary;
  try {
    ({ summary } = readSummary(given, cwd));
  } catch (error) {
    if (error instanceof SummaryFileError) throw new CannotJudgeError(`--baseline ${error.message}`);
    throw error;
  }
  if (summary.error !== undefined) {
    throw refuse(
      `that run could not judge (${summary.error}); take the baseline from a run that judged (exit 0 or 1)`,
    );
  }
  const ours = catalogIdentity(catalog.requirements);
  if (summary.catalog === undefined) {
    throw refuse(
      `it does not say which catalog it was judged against (written by petstore-conformance ${summary.tool.version}, before summaries named their catalog); take a new baseline with this version`,
    );
  }
  if (summary.catalog.hash !== ours.hash) {
    throw refuse(
      `judged against another catalog (${summary.catalog.hash}, ${summary.catalog.requirements} requirements) than this run (${ours.hash}, ${ours.requirements} requirements): ${catalogDifference(summary.results, catalog.requirements)}; take a new baseline with this version`,
    );
  }
  if (summary.options.strict !== strict) {
    const level = (s: boolean) =>
      s ? 'with --strict (MUST and SHOULD gate)' : 'without --strict (MUST gates)';
    throw refuse(
      `judged ${level(summary.options.strict)}, this run ${level(strict)}: take the baseline at the same gating level`,
    );
  }
  return { given, summary };
}

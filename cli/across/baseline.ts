/**
 * --baseline <summary.json>: a gate adopted on a deployment that already fails some requirements.
 * The run judges everything as usual; its exit status fails only on gating requirements that are
 * failed (or blocked) now and were not in the baseline run (see cli/across/diff.ts for the exact rule).
 * A baseline judged against another catalog, or at another gating level, is refused: its results
 * would not mean the same.
 */
import type { Requirement } from '../../catalog/catalog.ts';
import { CannotJudgeError } from '../record/errors.ts';
import { type BaselineOutcome, catalogIdentity } from '../record/record.ts';
import { againstBaseline, type Comparable } from './diff.ts';
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

/** The run's results against the baseline. */
export function applyBaseline(
  baseline: Baseline,
  results: readonly Comparable[],
  strict: boolean,
): BaselineOutcome {
  const diff = againstBaseline(baseline.summary.results, results, strict);
  return {
    file: baseline.given,
    startedAt: baseline.summary.startedAt,
    target: baseline.summary.target,
    gate: diff.newFailures.length > 0 ? 'failed' : 'passed',
    ...diff,
  };
}

/**
 * Stage 2 of a run, after the options: the plan. The spec, known to be valid; the requirements the
 * run checks (the selection options applied in this one place; the reports give the others' reason,
 * rollup.ts); the baseline, known to fit; the expected deviations, known to be well-formed. Nothing is sent to any server yet.
 */
import type { Requirement } from '../../catalog/catalog.ts';
import { isSelected, selectionProblem } from '../../catalog/select.ts';
import { catalogDifference, readSummary, type Summary, SummaryFileError } from '../across/summary-file.ts';
import { CannotJudgeError } from '../record/errors.ts';
import type { ExpectedFile } from '../record/expected.ts';
import { catalogIdentity } from '../record/record.ts';
import { loadExpected } from './expected.ts';
import type { RunPlan } from './options.ts';
import { loadSpec, type Spec } from './spec.ts';

export interface Plan {
  readonly spec: Spec;
  /** The requirements the run checks, in catalog order. */
  readonly selected: readonly Requirement[];
  /** --baseline, read and checked against this catalog and gating level. */
  readonly baseline?: Baseline;
  /** --expected, read and checked against this catalog. */
  readonly expected?: ExpectedFile;
}

/**
 * Validates the spec, reads the baseline and the expected deviations (their paths as given, against
 * the working folder), then applies the selection options. Throws CannotJudgeError for an invalid
 * spec, a baseline that cannot gate this run, an expected file that is not one, or a selection
 * that names no requirement (catalog/select.ts selectionProblem).
 */
export async function makePlan(
  options: Pick<RunPlan, 'config' | 'baseline' | 'expected' | 'cwd'>,
): Promise<Plan> {
  const { cwd } = options;
  const spec = await loadSpec();
  const baseline =
    options.baseline === undefined
      ? undefined
      : loadBaseline(options.baseline, cwd, spec.catalog, options.config.strict);
  const expected =
    options.expected === undefined ? undefined : loadExpected(options.expected, cwd, spec.catalog);
  const problem = selectionProblem(
    spec.catalog.requirements.map((r) => r.id),
    options.config,
  );
  if (problem !== undefined) throw new CannotJudgeError(problem);
  const selected = spec.catalog.requirements.filter((r) => isSelected(r.id, options.config));
  return { spec, selected, ...(baseline ? { baseline } : {}), ...(expected ? { expected } : {}) };
}

/** --baseline, read: a run whose failures do not fail this one (only new gating failures do). */
export interface Baseline {
  /** The path as given on the command line. */
  readonly given: string;
  readonly summary: Summary;
}

/**
 * --baseline <summary.json>: reads the baseline and checks that it can gate this run: a summary of a
 * run that judged, against this catalog, at this gating level (a baseline judged against another
 * catalog, or at another gating level, would not mean the same). Throws CannotJudgeError saying
 * what to do instead. The gate itself: cli/across/diff.ts has the exact rule, judge.ts applies it.
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

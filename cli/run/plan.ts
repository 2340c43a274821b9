/**
 * Stage 2 of a run, after the options: the plan. The spec, known to be valid; the requirements the
 * run checks (the selection options applied in this one place; the reports give the others' reason,
 * rollup.ts); the baseline, known to fit; the expected deviations, known to be well-formed. Nothing is sent to any server yet.
 */
import type { Catalog, Requirement } from '../../catalog/catalog.ts';
import { isSelected, type Selection, unmatchedPrefixes } from '../../catalog/select.ts';
import { type Baseline, loadBaseline } from '../across/baseline.ts';
import { CannotJudgeError } from '../record/errors.ts';
import type { ExpectedFile } from '../record/expected.ts';
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
 * Validates the spec, applies the selection options and reads the baseline. Throws
 * CannotJudgeError for an invalid spec, a selection that names no requirement, or a baseline that
 * cannot gate this run. `cwd` resolves the baseline's path.
 */
export async function makePlan(
  options: Pick<RunPlan, 'config' | 'baseline' | 'expected'>,
  cwd: string,
): Promise<Plan> {
  const spec = await loadSpec();
  checkSelection(spec.catalog, options.config);
  const selected = spec.catalog.requirements.filter((r) => isSelected(r.id, options.config));
  const baseline =
    options.baseline === undefined
      ? undefined
      : loadBaseline(options.baseline, cwd, spec.catalog, options.config.strict);
  const expected =
    options.expected === undefined ? undefined : loadExpected(options.expected, cwd, spec.catalog);
  return { spec, selected, ...(baseline ? { baseline } : {}), ...(expected ? { expected } : {}) };
}

/**
 * Each --only and --exclude prefix must match at least one requirement, or the user mistyped it;
 * and together they must leave something to check.
 */
export function checkSelection(catalog: Catalog, selection: Selection): void {
  const ids = catalog.requirements.map((r) => r.id);
  const operations = [...new Set(ids.map((id) => id.split('-')[0]))].join(', ');
  for (const [flag, prefixes] of [
    ['--only', selection.only],
    ['--exclude', selection.exclude ?? []],
  ] as const) {
    const [unmatched] = unmatchedPrefixes(ids, prefixes);
    if (unmatched !== undefined) {
      throw new CannotJudgeError(
        `${flag} ${unmatched} ${flag === '--only' ? 'selects' : 'matches'} no requirement (id prefixes include ${operations}; petstore-conformance requirements lists them all)`,
      );
    }
  }
  if (!ids.some((id) => isSelected(id, selection))) {
    const only = selection.only.length > 0 ? `--only ${selection.only.join(',')} and ` : '';
    throw new CannotJudgeError(
      `${only}--exclude ${(selection.exclude ?? []).join(',')} leave no requirement to check`,
    );
  }
}

/**
 * Stage 2 of a run, after the options: the plan. The spec, known to be valid; the requirements the
 * run checks (the selection options applied in this one place; the reports give the others' reason,
 * rollup.ts); the baseline, known to fit. Nothing is sent to any server yet.
 */
import type { Requirement } from '../../catalog/catalog.ts';
import { type Baseline, loadBaseline } from '../across/baseline.ts';
import { isSelected } from '../record/rollup.ts';
import type { RunPlan } from './options.ts';
import { checkSelection, loadSpec, type Spec } from './spec.ts';

export interface Plan {
  readonly spec: Spec;
  /** The requirements the run checks, in catalog order. */
  readonly selected: readonly Requirement[];
  /** --baseline, read and checked against this catalog and gating level. */
  readonly baseline?: Baseline;
}

/**
 * Validates the spec, applies the selection options and reads the baseline. Throws
 * CannotJudgeError for an invalid spec, a selection that names no requirement, or a baseline that
 * cannot gate this run. `cwd` resolves the baseline's path.
 */
export async function makePlan(options: Pick<RunPlan, 'config' | 'baseline'>, cwd: string): Promise<Plan> {
  const spec = await loadSpec();
  const { only, exclude } = options.config;
  checkSelection(spec.catalog, options.config);
  const selected = spec.catalog.requirements.filter((r) => isSelected(r.id, only, exclude));
  const baseline =
    options.baseline === undefined
      ? undefined
      : loadBaseline(options.baseline, cwd, spec.catalog, options.config.strict);
  return { spec, selected, ...(baseline ? { baseline } : {}) };
}

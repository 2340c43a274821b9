/**
 * Stage 2 of a run, after the options: the plan. Which requirements the run checks and which it
 * leaves out and why, read from a spec that is known to be valid. Nothing is sent to any server yet.
 */
import type { Requirement } from '../spec/catalog.ts';
import { type Baseline, loadBaseline } from './baseline.ts';
import type { RunPlan } from './options.ts';
import { checkOnly, loadSpec, type Spec } from './preflight.ts';
import { isSelected, NOT_SELECTED } from './rollup.ts';

export interface Plan {
  readonly spec: Spec;
  /** The requirements the run checks, in catalog order. */
  readonly selected: readonly Requirement[];
  /** The requirements it leaves out, by id, with the reason every report gives. */
  readonly excluded: ReadonlyMap<string, string>;
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
  const { only } = options.config;
  checkOnly(spec.catalog, only);
  const selected: Requirement[] = [];
  const excluded = new Map<string, string>();
  for (const r of spec.catalog.requirements) {
    if (isSelected(r.id, only)) selected.push(r);
    else excluded.set(r.id, NOT_SELECTED);
  }
  const baseline =
    options.baseline === undefined
      ? undefined
      : loadBaseline(options.baseline, cwd, spec.catalog, options.config.strict);
  return { spec, selected, excluded, ...(baseline ? { baseline } : {}) };
}

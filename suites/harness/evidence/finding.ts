/**
 * A finding: an answer that breaks a requirement's rule, seen while another check ran (the run's
 * model, model.ts, or a check's own api.report()). The roll-up fails the requirement it names.
 */

/** A failure of a requirement's rule seen in an answer, masked; the roll-up fails that requirement. */
export interface Finding {
  readonly requirementId: string;
  readonly expected: string;
  readonly received: string;
  readonly reproduce: string;
  /** The id of the pet the answer got wrong (the model's findings; not reported). */
  readonly petId?: string;
  /**
   * Requirements whose failure explains this finding better: when one of them fails, the one named
   * is blocked by it rather than failed (a pet lost in a store that keeps none is not a fault of
   * concurrency). cli/record/rollup.ts.
   */
  readonly unless?: readonly string[];
}

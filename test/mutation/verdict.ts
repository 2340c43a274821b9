/**
 * What kills a mutant: the verdict of `petstore-conformance --strict`, test by test. A test that
 * fails kills, as a failed MUST or SHOULD makes the run non-conformant. Three things the CLI decides
 * after the tests, in its roll-up (cli/rollup.ts), are decided here in each test instead:
 * - a 5xx answer to any request fails ANY-NO-5XX, whatever the test checked;
 * - a MUST or SHOULD that is blocked (its precondition failed) never makes a run conformant;
 * - a MAY never gates: MAY requirements are left out (vitest.config.ts), their failure is a notice.
 *
 * Once a check has failed, the verdict is known and the checks after it are skipped.
 * Stryker's own way to stop early (vitest's bail) is off (stryker.config.json, disableBail): under
 * vitest 4 the run it cancels is now and then reported with none of its tests (stryker-runner.mjs).
 */
import { afterEach, beforeEach } from 'vitest';

/** The first check that failed in this run, of any configuration: the mutant is killed. */
let failed: string | undefined;

/** Registers the roll-up's judgements as a check after each test of the describe block. */
export function judgeAsTheRollUp(): void {
  beforeEach(({ skip }) => {
    if (failed) skip(`the verdict is known: ${failed} failed`);
  });
  afterEach(({ task }) => {
    const { serverErrors, blockedBy, requirementId, requirementLevel } = task.meta;
    if (task.result?.state === 'fail') failed = requirementId;
    const [first] = serverErrors ?? [];
    const fault = first
      ? `ANY-NO-5XX: ${first.status} to ${first.method} ${first.url} (during ${requirementId})`
      : blockedBy && requirementLevel !== 'MAY'
        ? `${requirementId} (${requirementLevel}) blocked by ${blockedBy.join(', ')}`
        : undefined;
    if (fault === undefined) return;
    failed = requirementId;
    // vitest reports a test that called skip() (a blocked one) as skipped whatever its hooks throw
    // afterwards, unless it is no longer marked pending.
    const result = task.result as { pending?: boolean } | undefined;
    if (result) result.pending = false;
    throw new Error(fault);
  });
}

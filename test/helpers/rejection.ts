/** What the harness's requests reject with, for the tests of the client. */
import { expect } from 'vitest';
import { ConformanceError } from '../../suites/harness/evidence/errors.ts';

/** The ConformanceError a promise rejects with (fails the test when it resolves or rejects otherwise). */
export async function rejection(p: Promise<unknown>): Promise<ConformanceError> {
  const outcome = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(outcome).toBeInstanceOf(ConformanceError);
  return outcome as ConformanceError;
}

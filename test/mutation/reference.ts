/**
 * One configuration of the mutation run: the reference implementation, started in this test worker
 * (the mutant Stryker switches on is then the code that answers), and the conformance suite's four
 * files against it, with the Config of the configuration.
 */
import { afterAll, beforeAll, beforeEach, inject } from 'vitest';
import type { RunningServer, StartOptions } from '../../reference-impl/index.ts';
import { CONFIG_KEY, type Config } from '../../suites/harness/config.ts';
import { judgeAsTheRollUp } from './verdict.ts';

type Reference = typeof import('../../reference-impl/index.ts');
type Settings = Partial<
  Pick<Config, 'apiKey' | 'apiKeyHeader' | 'apiKeyQuery' | 'authRequired' | 'readOnly'>
>;

/**
 * Starts the reference with the options `server` gives before the suite's checks, and points the
 * run's Config at it with `client`. The reference is loaded and started in beforeAll, not while the
 * file is collected, so that a mutant that keeps it from loading or starting fails every check of the
 * file (Stryker would count a file that cannot be collected as no test run).
 */
export async function checkReference(
  server: (reference: Reference) => StartOptions,
  client: Settings = {},
): Promise<void> {
  let running: RunningServer | undefined;
  let failedToStart: unknown;
  beforeAll(async () => {
    try {
      const reference = await import('../../reference-impl/index.ts');
      running = await reference.startReferenceServer({ ...server(reference), port: 0, host: '127.0.0.1' });
    } catch (error) {
      failedToStart = error;
      return;
    }
    // The Config each worker holds, as provided by vitest.config.ts; the harness reads it (and
    // freezes a copy) only when the first check runs, after this.
    Object.assign(inject(CONFIG_KEY), { ...client, baseUrl: running.url });
  });
  // vitest would only skip the checks after a failed beforeAll, which Stryker counts as no test run.
  beforeEach(() => {
    if (failedToStart) throw failedToStart;
  });
  afterAll(() => running?.close());
  judgeAsTheRollUp();
  await import('../../suites/create/create.test.ts');
  await import('../../suites/cross/cross.test.ts');
  await import('../../suites/list/list.test.ts');
  await import('../../suites/show/show.test.ts');
}

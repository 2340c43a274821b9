/**
 * A configuration of the mutation run: the reference implementation, started in this test worker
 * (the mutant Stryker switches on is then the code that answers), and the conformance suite's four
 * files against it, with the Config of the configuration.
 */
import { afterAll, beforeAll, beforeEach, inject } from 'vitest';
import type { RunningServer, StartOptions } from '../../reference-impl/index.ts';
import { CONFIG_KEY, type Config } from '../../suites/harness/config/config.ts';
import { judgeAsTheRollUp } from './verdict.ts';

type Reference = typeof import('../../reference-impl/index.ts');

/** The Config as vitest.config.ts provides it, before any configuration changes it. */
const provided = { ...inject(CONFIG_KEY) };

/** A configuration of the run: how the reference is started, and what the Config says of it. */
export interface Configuration {
  readonly name: string;
  /** The reference's options, given its library (for a store to fill). */
  readonly server: (reference: Reference) => StartOptions;
  /** What differs from the Config of test/mutation/vitest.config.ts. */
  readonly client?: Partial<
    Pick<Config, 'apiKey' | 'apiKeyHeader' | 'apiKeyQuery' | 'authRequired' | 'readOnly'>
  >;
}

/**
 * Registers, in the describe block it is called in, the suite's two phases against the reference
 * started as `server` says, with the Config `client` makes. The reference is loaded and started in
 * beforeAll, not while the file is collected, so that a mutant that keeps it from loading or
 * starting fails every check (Stryker would count a file that cannot be collected as no test run).
 * The suite's modules must be fresh (vi.resetModules): the harness freezes the Config it first reads.
 */
export async function checkReference({ server, client = {} }: Configuration): Promise<void> {
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
    // The Config the worker holds, as provided by vitest.config.ts, made this configuration's: the
    // harness reads it (and freezes a copy) when the first check of the configuration runs, after this.
    const config = inject(CONFIG_KEY) as unknown as Record<string, unknown>;
    for (const key of Object.keys(config)) delete config[key];
    Object.assign(config, provided, client, { baseUrl: running.url });
  });
  // vitest would only skip the checks after a failed beforeAll, which Stryker counts as no test run.
  beforeEach(() => {
    if (failedToStart) throw failedToStart;
  });
  afterAll(() => running?.close());
  judgeAsTheRollUp();
  await import('../../suites/1-create.test.ts');
  await import('../../suites/2-cross-list-and-show.test.ts');
}

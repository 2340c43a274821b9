// The one Config fixture of the project's tests: what the CLI's edge would build, with defaults.
import type { Config } from '../../suites/harness/config/config.ts';

/** A Config for tests: the defaults of a run (with a short timeout), with `fields` set; frozen, as a run's is. */
/** Each config is a run of its own: its own pace (suites/harness/http/pace.ts) and its own pets. */
let runs = 0;

export function testConfig(baseUrl: string, fields: Partial<Config> = {}): Config {
  return Object.freeze({
    baseUrl,
    apiKeyHeader: 'X-API-Key',
    authRequired: false,
    readOnly: false,
    strict: false,
    only: [],
    exclude: [],
    seed: 42,
    timeoutMs: 1_000,
    runId: `harness-test-${++runs}`,
    ...fields,
  });
}

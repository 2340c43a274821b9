import { fileURLToPath } from 'node:url';
import type { InlineConfig } from 'vitest/node';
import { packageRoot } from '../spec/paths.ts';
import { testTimeoutFor } from './harness/budget.ts';
import { CONFIG_KEY, type Config } from './harness/config.ts';

/** Test files run in parallel, one worker each (the work is waiting on the network, not the CPU). */
const MAX_WORKERS = 8;

/**
 * The vitest options that run the conformance suites against the deployment `config` describes.
 * The CLI passes them to startVitest('test', [], { ...suiteVitestOptions(config), reporters }) and
 * adds its reporters; suites/vitest.config.ts uses them for developers. Reporters are not set here.
 *
 * - root is the package root (found from spec/paths.ts), include is relative to it;
 * - setupFiles holds allure-vitest's setup, resolved to a path (a bare name would be read as a file
 *   under root), so Allure labels and attachments reach the allure-vitest reporter when it is added;
 * - provide hands the Config to the suites ({ [CONFIG_KEY]: config }), which inject it once;
 * - testTimeout leaves room for every sequential request of a check to time out (harness/budget.ts),
 *   so that a server that never answers fails each check with the client's own message, not vitest's;
 * - tests of a file run concurrently and files run in parallel: against a server that hangs, the
 *   whole run takes a few × timeoutMs, not one timeout per request.
 */
export function suiteVitestOptions(config: Config): InlineConfig & { root: string } {
  const timeout = config.timeoutMs;
  return {
    root: packageRoot(),
    include: ['suites/**/*.test.ts'],
    exclude: ['**/.git/**'],
    setupFiles: [fileURLToPath(import.meta.resolve('allure-vitest/setup'))],
    testTimeout: testTimeoutFor(timeout),
    hookTimeout: timeout + 5_000,
    teardownTimeout: 5_000,
    provide: { [CONFIG_KEY]: config },
    pool: 'threads',
    maxWorkers: MAX_WORKERS,
    fileParallelism: true,
    sequence: { concurrent: true },
    maxConcurrency: 64,
    passWithNoTests: false,
    watch: false,
    // The suites are TypeScript run from source, also when the package sits in node_modules.
    server: { deps: { inline: [/petstore-conformance/] } },
  };
}

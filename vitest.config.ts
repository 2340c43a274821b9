import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// The project's own tests (test/). The conformance suites in suites/ are run by the CLI, not here.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // vitest's default is one worker fewer than the cores: on CI's 2 cores, one, and every test file
    // after the other, though most of them wait on child processes and servers rather than compute.
    // Two files at once on 2 cores; vitest's default on more. (Three at once made the variants test's
    // servers, which share its thread, too slow to answer a limiter's creates within 10 s.)
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Concurrent tests of a file at once (vitest's default is 5): the variants test has one test per
    // variant, each waiting for a slot of its own kind (test/variants/variants.test.ts: two runs that
    // compute, four that mostly wait), so that neither kind holds the other back.
    maxConcurrency: 256,
    // The compiled command (dist/, which tests run in process: test/helpers/cli.ts runInProcess) is
    // loaded by Node as it ships, not transformed by vitest.
    server: { deps: { external: [/\/dist\//] } },
  },
});

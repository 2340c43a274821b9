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
    // Two files at once on 2 cores; vitest's default on more.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});

import { defineConfig } from 'vitest/config';

// The project's own tests (test/). The conformance suites in suites/ are run by the CLI, not here.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});

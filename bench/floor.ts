/**
 * The floor of the suite benchmark: one vitest run of one empty test, started through vitest's
 * programmatic API from a fresh Node process, as the CLI starts the suites.
 */
import { startVitest } from 'vitest/node';
import { packageRoot } from '../spec/paths.ts';

const vitest = await startVitest('test', [], {
  root: packageRoot(),
  config: false,
  watch: false,
  include: ['bench/floor/empty.test.ts'],
  reporters: [{}],
});
const failed = vitest.state.getCountOfFailedTests();
await vitest.close();
process.exit(failed === 0 ? 0 : 1);

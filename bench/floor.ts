/**
 * The floor of the suite benchmark: one vitest run of one empty test, started through vitest's
 * programmatic API from a fresh Node process, as the CLI starts the suites; it marks the same stages
 * as the CLI (cli/run/timeline.ts), so that the two break down side by side.
 */
import { startVitest } from 'vitest/node';
import { packageRoot } from '../catalog/paths.ts';
import { mark, STAGE } from '../cli/run/timeline.ts';

const once = new Set<string>();
const first = (stage: Parameters<typeof mark>[0]) => () => {
  if (once.has(stage)) return;
  once.add(stage);
  mark(stage);
};
mark(STAGE.vitestStarting);
const vitest = await startVitest('test', [], {
  root: packageRoot(),
  config: false,
  watch: false,
  include: ['bench/floor/empty.test.ts'],
  reporters: [{ onTestModuleCollected: first(STAGE.collected), onTestCaseResult: first(STAGE.firstTest) }],
});
mark(STAGE.testsDone);
const failed = vitest.state.getCountOfFailedTests();
await vitest.close();
process.exit(failed === 0 ? 0 : 1);

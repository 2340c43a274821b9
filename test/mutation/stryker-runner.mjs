// The test runner of `npm run mutation`: StrykerJS's vitest runner, with one guard. Under
// @stryker-mutator/vitest-runner 9.6 and vitest 4.1, a mutant run now and then completes without
// executing the tests it was given (all or some of them), and is then reported as survived though
// those tests never ran against the mutant (stryker-mutator/stryker-js issues 6073 and 6213; pull
// request 6146 proposes the same guard for runs of no test). A run that survived having executed
// fewer tests than it was given is tried again, up to three times, then reported as an error: it
// says nothing about the mutant. (A run that kills stops early on purpose: test/mutation/verdict.ts.)
// Tests the dry run skipped are not counted as given: a check that skips itself at run time (a
// write under --read-only, a key check without a key) covers code before it skips, and skips in
// every run; counting it would report a mutant that survives as an error, out of the score.
import { commonTokens, declareFactoryPlugin, PluginKind, tokens } from '@stryker-mutator/api/plugin';
import { DryRunStatus, MutantRunStatus, TestStatus } from '@stryker-mutator/api/test-runner';
import { strykerPlugins as vitestPlugins } from '@stryker-mutator/vitest-runner';

const ATTEMPTS = 3;
const vitest = vitestPlugins.find(
  (plugin) => plugin.kind === PluginKind.TestRunner && plugin.name === 'vitest',
);

function createRunner(injector) {
  const inner = vitest.factory(injector);
  /** Tests the dry run executed: what a run of every test (a static mutant's) must execute too. */
  let everyTest = 0;
  /** Tests the dry run skipped: a mutant's run skips them too. */
  let skipped = new Set();
  return {
    capabilities: () => inner.capabilities(),
    init: () => inner.init(),
    async dryRun(options) {
      const result = await inner.dryRun(options);
      if (result.status === DryRunStatus.Complete) {
        everyTest = result.tests.filter((test) => test.status !== TestStatus.Skipped).length;
        skipped = new Set(
          result.tests.filter((test) => test.status === TestStatus.Skipped).map((test) => test.id),
        );
      }
      return result;
    },
    async mutantRun(options) {
      const given = options.testFilter?.filter((id) => !skipped.has(id)).length ?? everyTest;
      for (let attempt = 1; ; attempt++) {
        const result = await inner.mutantRun(options);
        if (result.status !== MutantRunStatus.Survived || result.nrOfTests >= given) return result;
        if (attempt === ATTEMPTS)
          return {
            status: MutantRunStatus.Error,
            errorMessage: `mutant ${options.activeMutant.id}: ${ATTEMPTS} runs executed ${result.nrOfTests} of the ${given} tests that cover it`,
          };
      }
    },
    dispose: () => inner.dispose(),
  };
}
createRunner.inject = tokens(commonTokens.injector);

export const strykerPlugins = [declareFactoryPlugin(PluginKind.TestRunner, 'vitest-checked', createRunner)];

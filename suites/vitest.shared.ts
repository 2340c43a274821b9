import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { InlineConfig, TestSequencer, TestSpecification } from 'vitest/node';
import { loadCatalog } from '../catalog/catalog.ts';
import { packageRoot } from '../catalog/paths.ts';
import { CONFIG_KEY, type Config, OPENAPI_KEY, REQUIREMENTS_KEY } from './harness/config/config.ts';
import { requestBudgetMs, testTimeoutFor } from './harness/http/budget.ts';

/**
 * One worker, on every machine. The checks of a run share what that worker keeps: the model of what
 * the run created (harness/model/model.ts), the pets the list checks count, one connection pool; so the
 * same seed, options and target send the same requests and create the same pets on 1, 2 or 16
 * cores. Two workers (once the default above 2 cores) each kept a model and a hundred pets of their
 * own: the same seed sent 619 requests and created 258 pets instead of 529 and 174 (in a process
 * shown 16 cores), and a conformant server answering every seventh request 429 was failed. On 2
 * cores one worker was also as fast as two, with 0.3 s less CPU (docs/benchmarks.md). Against a
 * server that never answers, a file takes about one timeout, so the run takes about 3 × timeoutMs
 * (the two phases of suites/: 1-create.test.ts, 2-cross-list-and-show.test.ts).
 */
const WORKERS = 1;

/** allure-vitest's setup file, as its reporter names it (its package's `./setup` export). */
const ALLURE_SETUP = createRequire(import.meta.url).resolve('allure-vitest/setup');

/** Checks of a file running at once: more than any file declares (2-cross-list-and-show.test.ts has some 200). */
const MAX_CHECKS_AT_ONCE = 256;

/**
 * The suite files in the order of their paths (1-create, then 2-cross-list-and-show), whatever vitest has
 * cached of earlier runs' durations (its own order): a file runs after the ones before it, and the
 * checks of the later ones see the pets of the first (ANY-PET-SCHEMA's list shows the first pets stored,
 * CREATE-INT64-EXACT's among them; a list check creates only the pets the first phase left short).
 * A fixed order makes that the same in every run.
 */
export class PathOrder implements TestSequencer {
  shard(files: TestSpecification[]): TestSpecification[] {
    return files;
  }

  sort(files: TestSpecification[]): TestSpecification[] {
    return [...files].sort((a, b) => (a.moduleId < b.moduleId ? -1 : a.moduleId > b.moduleId ? 1 : 0));
  }
}

/**
 * The vitest options that run the conformance suites against the deployment `config` describes.
 * The CLI passes them to startVitest('test', [], { ...suiteVitestOptions(config), reporters }) and
 * adds its reporters; suites/vitest.config.ts uses them for developers. Reporters are not set here.
 *
 * - root is the package root (found from catalog/paths.ts), include is relative to it;
 * - allure-vitest's setup file: the harness records what each check shows through
 *   allure-js-commons' runtime API (harness/requirement/report.ts), which this file connects to the
 *   test that runs; allure-vitest's reporter, added by whoever runs the suites (the CLI,
 *   suites/vitest.config.ts), writes the results (the reporter would add the file itself: given
 *   here, a run without that reporter records into nothing rather than warning at every call);
 * - provide hands the Config to the suites ({ [CONFIG_KEY]: config }), which inject it once, the
 *   catalog's requirements, read once here rather than in the worker, and, when the caller has it
 *   (the CLI's preflight), spec/openapi.yaml validated and dereferenced, so that no worker loads
 *   swagger-parser to dereference it again;
 * - testTimeout leaves room for every sequential request of a check to time out (harness/http/budget.ts),
 *   so that a server that never answers fails each check with the client's own message, not vitest's;
 * - tests of a file run concurrently, and files one after another on one worker (WORKERS), not
 *   isolated per file: the files share the run's model, its connection pool and its compiled
 *   contract; against a server that hangs, the whole run takes a few × timeoutMs;
 * - the harness the suites import is its compiled twin in dist/ when these options come from dist/
 *   (the CLI), loaded by Node in the worker rather than transformed by vitest (compiledHarness()).
 *
 * This file is compiled into dist/ with the CLI that imports it: it imports nothing heavy.
 */
export function suiteVitestOptions(config: Config, openapi?: object): InlineConfig & { root: string } {
  const timeout = config.timeoutMs;
  return {
    root: packageRoot(),
    include: ['suites/**/*.test.ts'],
    exclude: ['**/.git/**'],
    setupFiles: [ALLURE_SETUP],
    testTimeout: testTimeoutFor(timeout, config.retries),
    hookTimeout: requestBudgetMs(timeout, config.retries) + 5_000,
    teardownTimeout: 5_000,
    provide: {
      [CONFIG_KEY]: config,
      [REQUIREMENTS_KEY]: loadCatalog().requirements,
      ...(openapi === undefined ? {} : { [OPENAPI_KEY]: openapi }),
    },
    pool: 'threads',
    maxWorkers: WORKERS,
    isolate: false,
    fileParallelism: false,
    sequence: { concurrent: true, sequencer: PathOrder },
    // Every check of a file starts at once: the pace (harness/http/pace.ts, --concurrency) bounds the
    // requests in flight. A lower bound here held back a file's later checks until earlier ones
    // ended: round trips waited for one after another at a distance.
    maxConcurrency: MAX_CHECKS_AT_ONCE,
    passWithNoTests: false,
    watch: false,
    ...compiledHarness(),
  };
}

/**
 * When this module runs compiled (dist/suites/vitest.shared.js, as the CLI runs it), the suites'
 * import of the harness is pointed at its compiled twin beside it, loaded by Node itself in each
 * worker rather than transformed file by file by vitest through the main process.
 */
function compiledHarness(): Pick<InlineConfig, 'alias' | 'server'> {
  if (!import.meta.url.endsWith('.js')) return {};
  const harness = fileURLToPath(new URL('./harness/index.js', import.meta.url));
  return {
    alias: [{ find: /^\.\.\/harness\/index\.ts$/, replacement: harness }],
    server: { deps: { external: [/\/dist\/suites\/harness\//] } },
  };
}

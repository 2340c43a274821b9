/**
 * The vitest configuration StrykerJS runs (stryker.config.json, `npm run mutation`): the conformance
 * suite, exactly as the CLI runs it (suites/vitest.shared.ts), against the reference implementation
 * in each configuration of test/mutation/*.run.ts. Not part of `npm test`.
 *
 * What differs from a CLI run, and why:
 * - the reference runs in the test worker itself (reference.ts), so that the mutant Stryker switches
 *   on there is the code that answers, and Stryker can see which tests reach which mutant;
 * - the configurations are describe blocks of one file (suite.run.ts), each with fresh instances of
 *   the suite's modules, so that a mutant's run loads the worker once;
 * - the seed is fixed, so that every run sends the same requests and a mutant's verdict repeats;
 * - the timeout of a request is short: a mutant that leaves a request unanswered fails fast.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { defineConfig } from 'vitest/config';
import { parse } from 'yaml';
import type { Config } from '../../suites/harness/config/config.ts';
import { suiteVitestOptions } from '../../suites/vitest.shared.ts';

const root = path.resolve(import.meta.dirname, '..', '..');

/** The catalog's MAY requirements: --strict does not gate on them (a failure is a notice), so they are left out. */
const catalog = parse(readFileSync(path.join(root, 'spec', 'requirements.yaml'), 'utf8')) as {
  requirements: { id: string; level: string }[];
};
const notGating = catalog.requirements.filter((r) => r.level === 'MAY').map((r) => r.id);

/** The Config of every configuration; each sets the target and the key (suite.run.ts, reference.ts). */
const base: Config = {
  baseUrl: 'http://127.0.0.1:1/v1', // replaced by the reference's own URL before the first check
  apiKeyHeader: 'X-API-Key',
  authRequired: false,
  readOnly: false,
  strict: true,
  only: [],
  exclude: notGating,
  seed: 20260101,
  timeoutMs: 2_000,
  runId: 'mutation',
};

const suite = suiteVitestOptions(
  base,
  await SwaggerParser.dereference(path.join(root, 'spec', 'openapi.yaml')),
);

export default defineConfig({
  test: {
    ...suite,
    root,
    include: ['test/mutation/suite.run.ts'],
    maxWorkers: 1,
    // The configurations one after another (each changes the Config the worker holds); their checks
    // still run concurrently unless Stryker says otherwise (it runs one at a time).
    sequence: { ...suite.sequence, concurrent: false },
  },
});

// The CLI runs the suites on the harness compiled into dist/ (suites/vitest.shared.ts,
// compiledHarness()): vitest's worker loads it with Node instead of vitest transforming its
// TypeScript module by module through the main thread (docs/benchmarks.md says what it buys). What
// it rests on: vitest's `alias` sends the suites' one import of the harness, `../harness/index.ts`
// (test/suites-coverage.test.ts holds that it is their only import), to dist/, and
// `server.deps.external` leaves that file to Node. Should either stop holding, vitest would
// transform suites/harness/*.ts again, and this test fails.
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startVitest, type TestCase } from 'vitest/node';
import { startReferenceServer } from '../../reference-impl/index.ts';
import type { suiteVitestOptions as SuiteVitestOptions } from '../../suites/vitest.shared.ts';
import { build, ROOT } from '../helpers/cli.ts';
import { testConfig } from '../helpers/config.ts';

let reference: { url: string; close(): Promise<void> };

beforeAll(async () => {
  await build();
  reference = await startReferenceServer({ port: 0, host: '127.0.0.1' });
}, 180_000);

afterAll(async () => {
  await reference?.close();
});

test('the compiled options run a suite file with vitest transforming no module of the harness', async () => {
  const compiled = path.join(ROOT, 'dist', 'suites', 'vitest.shared.js');
  const { suiteVitestOptions } = (await import(compiled)) as {
    suiteVitestOptions: typeof SuiteVitestOptions;
  };
  const states: string[] = [];
  const vitest = await startVitest('test', [], {
    ...suiteVitestOptions(testConfig(reference.url, { only: ['SHOW-ID-MALFORMED'] })),
    include: ['suites/2-cross-list-and-show.test.ts'],
    config: false,
    reporters: [{ onTestCaseResult: (t: TestCase) => void states.push(t.result().state) }],
  });
  const transformed = [
    ...(vitest.projects[0]?.vite.environments.ssr?.moduleGraph.idToModuleMap.keys() ?? []),
  ];
  await vitest.close();
  expect(states).toContain('passed');
  // The suite file and its checks modules were transformed (the graph is the one the worker's
  // modules go through) …
  expect(transformed.filter((id) => id.endsWith('/suites/2-cross-list-and-show.test.ts'))).toHaveLength(1);
  expect(transformed.filter((id) => id.endsWith('/suites/show/show.checks.ts'))).toHaveLength(1);
  // … and of the harness, only the compiled entry is in it, resolved there and left to Node: none of
  // its TypeScript (the alias), none of the modules the entry imports (external).
  expect(transformed.filter((id) => id.includes('/suites/harness/'))).toEqual([
    path.join(ROOT, 'dist', 'suites', 'harness', 'index.js'),
  ]);
}, 120_000);

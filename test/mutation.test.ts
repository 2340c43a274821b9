/**
 * `npm run mutation` (docs/mutation.md) is not run by `npm test`: it takes minutes. What keeps it
 * honest between its runs: the files it mutates exist and are the reference's behaviour, the command
 * and its runner are wired, and every mutant marked as invisible says which mutator and why.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';

const ROOT = path.join(import.meta.dirname, '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const config = JSON.parse(read('stryker.config.json')) as {
  mutate: string[];
  testRunner: string;
  plugins: string[];
  vitest: { configFile: string };
  jsonReporter: { fileName: string };
  htmlReporter: { fileName: string };
};
const packageJson = JSON.parse(read('package.json')) as {
  scripts: Record<string, string>;
  devDependencies: Record<string, string>;
};

describe('npm run mutation', () => {
  test('mutates files of the reference that exist, and not its process start-up', () => {
    expect(config.mutate.length).toBeGreaterThan(0);
    for (const file of config.mutate) {
      expect(existsSync(path.join(ROOT, file)), file).toBe(true);
      expect(file).toMatch(/^reference-impl\/[\w-]+\.ts$/);
    }
    expect(config.mutate).toEqual(
      expect.arrayContaining(['reference-impl/service.ts', 'reference-impl/store.ts']),
    );
    expect(config.mutate).not.toContain('reference-impl/main.ts');
    expect(config.mutate).not.toContain('reference-impl/server.ts');
  });

  test('is wired: the script, its runner plugin, the vitest configuration and its configurations of the reference', () => {
    expect(packageJson.scripts.mutation).toBe('node test/mutation/run.mjs');
    expect(existsSync(path.join(ROOT, 'test/mutation/run.mjs'))).toBe(true);
    const local = config.plugins.filter((plugin) => plugin.startsWith('./'));
    expect(local).toEqual(['./test/mutation/stryker-runner.mjs']);
    expect(read('test/mutation/stryker-runner.mjs')).toContain(`'${config.testRunner}'`);
    expect(existsSync(path.join(ROOT, config.vitest.configFile))).toBe(true);
    expect(read(config.vitest.configFile)).toContain("include: ['test/mutation/suite.run.ts']");
    const run = read('test/mutation/suite.run.ts');
    for (const name of ['no key', 'key in a header', 'key in a query parameter', 'a given store, read only'])
      expect(run).toContain(`name: '${name}'`);
  });

  test('uses StrykerJS 9.6 (10 needs Node 22) and writes its reports under reports/', () => {
    expect(packageJson.devDependencies['@stryker-mutator/core']).toMatch(/^~9\.6\./);
    expect(packageJson.devDependencies['@stryker-mutator/vitest-runner']).toMatch(/^~9\.6\./);
    expect(config.jsonReporter.fileName).toMatch(/^reports\//);
    expect(config.htmlReporter.fileName).toMatch(/^reports\//);
  });

  test('every mutant marked in the reference names its mutator and says why', () => {
    for (const file of readdirSync(path.join(ROOT, 'reference-impl')).filter((f) => f.endsWith('.ts'))) {
      const marks = read(`reference-impl/${file}`)
        .split('\n')
        .filter((line) => line.includes('Stryker disable'));
      for (const mark of marks)
        expect(mark, `reference-impl/${file}`).toMatch(/\/\/ Stryker disable next-line [A-Za-z,]+: \S.{10,}/);
    }
  });
});

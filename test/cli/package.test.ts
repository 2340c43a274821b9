// What the package ships and promises: the tarball's files (`npm pack --dry-run`), `exports` and
// `types` for the library API, `engines` true to the dependencies, the licence.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { build, type Json, ROOT, readJson } from '../helpers/cli.ts';
import { npm } from './packaged.ts';

const pkg = readJson(path.join(ROOT, 'package.json'));
let packed: string[];

beforeAll(async () => {
  await build();
  const [dryRun] = JSON.parse(await npm(['pack', '--dry-run', '--json', '--ignore-scripts'], ROOT, 60_000));
  packed = dryRun.files.map((f: Json) => f.path);
}, 180_000);

describe('the tarball', () => {
  test('ships the command, the compiled code with its types, the spec, the suites, the licence', () => {
    for (const file of [
      'bin/petstore-conformance.js',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/cli/main.js',
      'dist/reference-impl/index.js',
      'spec/openapi.yaml',
      'spec/requirements.yaml',
      'suites/vitest.shared.ts',
      'suites/harness/http/client.ts',
      'schemas/config.schema.json',
      'schemas/events.schema.json',
      'schemas/expected.schema.json',
      'LICENSE',
      'README.md',
      'package.json',
    ]) {
      expect(packed, file).toContain(file);
    }
  });

  test('without the benchmarks, build info or the project’s own tests', () => {
    expect(packed.filter((f) => f.startsWith('dist/bench/') || f.startsWith('bench/'))).toEqual([]);
    expect(packed.filter((f) => f.endsWith('.tsbuildinfo'))).toEqual([]);
    expect(packed.filter((f) => f.startsWith('test/') || f.startsWith('dist/test/'))).toEqual([]);
  });
});

describe('package.json', () => {
  test('exports the library API with its types, and package.json', () => {
    expect(pkg.exports).toEqual({
      '.': { types: './dist/index.d.ts', default: './dist/index.js' },
      './package.json': './package.json',
    });
    expect(pkg.types).toBe('./dist/index.d.ts');
    expect(pkg.license).toBe('MIT');
  });

  test('engines asks for no Node version a dependency refuses', () => {
    const versions = [
      '18.20.0',
      '20.0.0',
      '20.18.1',
      '20.19.0',
      '20.99.0',
      '21.7.0',
      '22.0.0',
      '22.11.0',
      '22.12.0',
      '23.0.0',
      '24.0.0',
      '25.1.0',
    ];
    const ours = versions.filter((v) => satisfies(v, pkg.engines.node));
    // Node 23 (odd, past its end of life) is refused by vitest's engines, so by ours too.
    expect(ours).toEqual(['20.19.0', '20.99.0', '22.12.0', '24.0.0', '25.1.0']);
    const deps = [
      'vite',
      'vitest',
      'undici',
      '@apidevtools/swagger-parser',
      'fast-check',
      'yaml',
      'allure',
      'allure-vitest',
      'ajv',
    ];
    for (const name of deps) {
      const range: string | undefined = readJson(path.join(ROOT, 'node_modules', name, 'package.json'))
        .engines?.node;
      if (range === undefined) continue;
      for (const v of ours) expect(satisfies(v, range), `${name} (${range}) on Node ${v}`).toBe(true);
    }
  });
});

test('LICENSE: MIT, petstore-conformance contributors, 2026', () => {
  const text = readFileSync(path.join(ROOT, 'LICENSE'), 'utf8');
  expect(text).toMatch(/^MIT License\n\nCopyright \(c\) 2026 petstore-conformance contributors\n/);
  expect(text).toContain('THE SOFTWARE IS PROVIDED "AS IS"');
});

/** Node's engines ranges as packages write them: `||` of `^x.y.z`, `>=x.y.z` or `>= x.y` (no semver package here). */
function satisfies(version: string, range: string): boolean {
  const v = version.split('.').map(Number);
  const compare = (a: number[], b: number[]) => {
    for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
    return 0;
  };
  return range.split('||').some((part) => {
    const m = /^\s*(\^|>=)\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?\s*$/.exec(part);
    if (!m) throw new Error(`engines range not understood: ${part}`);
    const min = [Number(m[2]), Number(m[3] ?? 0), Number(m[4] ?? 0)];
    if (compare(v, min) < 0) return false;
    return m[1] === '>=' || v[0] === min[0];
  });
}

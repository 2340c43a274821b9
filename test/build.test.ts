// npm run build (scripts/build.mjs), in a copy of the project: it compiles when a source changed,
// skips TypeScript entirely when nothing did, shows a failed build's errors again until they are
// fixed, and keeps the checked spec (catalog/checked.ts) only while it matches the spec.
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { packageRoot } from '../catalog/paths.ts';

const ROOT = packageRoot();
const work = mkdtempSync(path.join(tmpdir(), 'petstore-build-'));
const at = (...parts: string[]) => path.join(work, ...parts);

function build(): { code: number | null; output: string } {
  const r = spawnSync(process.execPath, [at('scripts', 'build.mjs')], { cwd: work, encoding: 'utf8' });
  return { code: r.status, output: `${r.stdout}${r.stderr}` };
}
const mtime = (file: string) => statSync(at(file)).mtimeMs;

/** Whether dist/catalog/checked.js, asked in a fresh process, holds the spec as it is now. */
function checkedHolds(): boolean {
  const module = pathToFileURL(at('dist', 'catalog', 'checked.js')).href;
  const r = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(module)}); console.log(!!m.readChecked());`,
    ],
    { encoding: 'utf8' },
  );
  return r.stdout.trim() === 'true';
}

beforeAll(() => {
  for (const entry of [
    'package.json',
    'package-lock.json',
    'tsconfig.json',
    'tsconfig.build.json',
    'index.ts',
    'scripts',
    'spec',
    'catalog',
    'reference-impl',
    'cli',
    'bench',
    'suites',
    // The Python server the benchmark starts (bench/small-server.ts), compiled with it.
    path.join('test', 'servers', 'python'),
  ]) {
    cpSync(path.join(ROOT, entry), at(entry), { recursive: true });
  }
  symlinkSync(path.join(ROOT, 'node_modules'), at('node_modules'), 'dir');
}, 60_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('npm run build', () => {
  test('compiles a fresh checkout and checks its spec once', () => {
    const first = build();
    expect(first.code, first.output).toBe(0);
    expect(statSync(at('dist', 'cli', 'main.js')).isFile()).toBe(true);
    expect(checkedHolds()).toBe(true);
  }, 120_000);

  test('does nothing when nothing changed: no TypeScript, no output touched', () => {
    const info = mtime('dist/.tsbuildinfo');
    const main = mtime('dist/cli/main.js');
    const again = build();
    expect(again.code, again.output).toBe(0);
    expect(mtime('dist/.tsbuildinfo')).toBe(info);
    expect(mtime('dist/cli/main.js')).toBe(main);
  });

  test('compiles a changed source', () => {
    appendFileSync(at('cli', 'console', 'text.ts'), '\nexport const BUILD_PROBE = 1;\n');
    const changed = build();
    expect(changed.code, changed.output).toBe(0);
    expect(readFileSync(at('dist', 'cli', 'console', 'text.js'), 'utf8')).toContain('BUILD_PROBE = 1');
  }, 120_000);

  test('a failed build fails again, with its errors, until the source is fixed', () => {
    const source = readFileSync(at('cli', 'console', 'text.ts'), 'utf8');
    writeFileSync(
      at('cli', 'console', 'text.ts'),
      `${source}\nexport const broken: number = 'not a number';\n`,
    );
    const failed = build();
    expect(failed.code).not.toBe(0);
    expect(failed.output).toMatch(/cli\/console\/text\.ts.*TS2322/);
    const still = build();
    expect(still.code).not.toBe(0);
    expect(still.output).toMatch(/cli\/console\/text\.ts.*TS2322/);
    writeFileSync(at('cli', 'console', 'text.ts'), source);
    const fixed = build();
    expect(fixed.code, fixed.output).toBe(0);
  }, 180_000);

  test('the checked spec holds only for the spec it was made from', () => {
    const openapi = at('spec', 'openapi.yaml');
    const text = readFileSync(openapi, 'utf8');
    writeFileSync(openapi, `${text}\n# an edit after the build\n`);
    expect(checkedHolds()).toBe(false);
    const rebuilt = build();
    expect(rebuilt.code, rebuilt.output).toBe(0);
    expect(checkedHolds()).toBe(true);
    // An invalid spec is not kept: every run then says why it cannot judge.
    writeFileSync(openapi, text.replace(/^openapi: 3\.1\.0$/m, 'openapi: banana'));
    const invalid = build();
    expect(invalid.code, invalid.output).toBe(0);
    expect(invalid.output).toContain('the spec does not check');
    expect(checkedHolds()).toBe(false);
  }, 60_000);
});

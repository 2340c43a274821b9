import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadCatalog } from '../catalog/catalog.ts';
import { packageRoot } from '../catalog/paths.ts';

// Every requirement of the catalog has a test in suites/, and every test names a requirement that is
// in it. Tests are declared only through requirement('ID', …) or requirement.each('ID', …), with the
// id as a literal, in the checks modules (suites/<operation>/<operation>.checks.ts), so reading the
// files is enough to know which ids they check. The test files vitest runs (suites/N-*.test.ts, the
// run's phases) import checks modules and nothing else, each checks module exactly once.

const suitesDir = path.join(packageRoot(), 'suites');
const filesEnding = (ending: string) =>
  readdirSync(suitesDir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith(ending))
    .map((f) => ({
      file: `suites/${f.split(path.sep).join('/')}`,
      text: readFileSync(path.join(suitesDir, f), 'utf8'),
    }));
const testFiles = filesEnding('.checks.ts');
const phaseFiles = filesEnding('.test.ts');

const declared = testFiles.flatMap(({ file, text }) =>
  [...text.matchAll(/\brequirement(?:\.each)?\(\s*(['"`])([^'"`]*)\1/g)].map((m) => ({ file, id: m[2]! })),
);
const catalogIds = loadCatalog().requirements.map((r) => r.id);

describe('the suites cover the catalog', () => {
  test('suites/ has checks modules, and they declare tests', () => {
    expect(testFiles.length).toBeGreaterThan(0);
    expect(declared.length).toBeGreaterThanOrEqual(catalogIds.length);
  });

  test.each(catalogIds)('%s has at least one test in suites/', (id) => {
    expect(declared.filter((d) => d.id === id).map((d) => d.file)).not.toEqual([]);
  });

  test('every test names an id of the catalog', () => {
    expect(declared.filter((d) => !catalogIds.includes(d.id))).toEqual([]);
  });

  test.each(testFiles.map((f) => [f.file, f.text] as const))(
    '%s declares its tests only through requirement() and imports only the harness',
    (_file, text) => {
      const imports = [...text.matchAll(/^import[^;]*?from\s+'([^']+)'/gms)].map((m) => m[1]);
      expect(imports).toEqual(['../harness/index.ts']);
      expect(text).not.toMatch(/(?<![.\w])(test|it|describe)(\.\w+)*\(/);
      const calls = text.match(/\brequirement(\.each)?\(/g) ?? [];
      const withLiteralId = text.match(/\brequirement(?:\.each)?\(\s*'[A-Z][A-Z0-9-]+'/g) ?? [];
      expect(withLiteralId.length).toBe(calls.length);
    },
  );

  test('the phases (suites/N-*.test.ts) import every checks module once, and nothing else', () => {
    expect(phaseFiles.map((f) => f.file).every((f) => /^suites\/\d-[a-z-]+\.test\.ts$/.test(f))).toBe(true);
    const imported = phaseFiles.flatMap(({ file, text }) => {
      expect(text, file).not.toMatch(/^(?!import\s)[^\s/*].*$/m); // only imports and comments
      return [...text.matchAll(/^import\s+'\.\/([^']+)';$/gm)].map((m) => `suites/${m[1]}`);
    });
    expect([...imported].sort()).toEqual(testFiles.map((f) => f.file).sort());
  });
});

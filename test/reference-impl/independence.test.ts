/**
 * The reference shares the contract's files with the suites, never code (STYLE point 15): none of its
 * modules imports one outside reference-impl/, nor anything the build makes from spec/.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';

const DIR = path.join(import.meta.dirname, '..', '..', 'reference-impl');
const sources = readdirSync(DIR).filter((file) => file.endsWith('.ts'));

/** Every module a file names in an import or export … from, static or dynamic. */
function specifiers(text: string): string[] {
  const found = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)['"]([^'"]+)['"]/g)];
  return found.map((match) => match[1] as string);
}

test('the reference has sources to check', () => {
  expect(sources).toEqual(expect.arrayContaining(['service.ts', 'store.ts', 'json.ts', 'validators.ts']));
});

test.each(sources)('reference-impl/%s imports only its neighbours and packages', (file) => {
  const text = readFileSync(path.join(DIR, file), 'utf8');
  const outside = specifiers(text).filter((s) => s.startsWith('.') && !/^\.\/[\w-]+\.ts$/.test(s));
  expect(outside, `${file} imports from outside reference-impl/`).toEqual([]);
  expect(text, `${file} names what the build checks of spec/`).not.toMatch(/checked\.(bin|js|ts)/);
});

// The shape of cli/ (see cli/main.ts): each folder imports only from the folders below it, and no
// module of the product imports itself back through others (a circle of imports).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { packageRoot } from '../../catalog/paths.ts';

const ROOT = packageRoot();

/** cli/'s folders from the top down; reports/ and across/ stand side by side and never meet. */
const LAYERS: readonly (readonly string[])[] = [
  ['cli/main.ts'],
  ['cli/run'],
  ['cli/reports', 'cli/across'],
  ['cli/console'],
  ['cli/record'],
];

/** Every .ts file under `dir` (relative to the root), tests and generated files aside. */
function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(path.join(ROOT, dir))) {
    const file = path.posix.join(dir, name);
    if (statSync(path.join(ROOT, file)).isDirectory()) out.push(...sources(file));
    else if (file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.endsWith('.d.ts')) out.push(file);
  }
  return out;
}

/** The files of this tree a file imports, static or dynamic, as paths from the root. */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^import\s+)'(\.{1,2}\/[^']+)'/gm)];
  return specifiers.map((m) => path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1]!)));
}

function layerOf(file: string): number {
  return LAYERS.findIndex((layer) => layer.some((place) => file === place || file.startsWith(`${place}/`)));
}

const product = ['cli', 'catalog', 'suites/harness', 'reference-impl'].flatMap(sources);

describe('cli/ in layers', () => {
  test('every file of cli/ belongs to one layer', () => {
    expect(sources('cli').filter((file) => layerOf(file) < 0)).toEqual([]);
  });

  test.each(sources('cli'))('%s imports only its own folder and the folders below it', (file) => {
    const own = layerOf(file);
    const folder = path.posix.dirname(file);
    const upward = importsOf(file).filter((target) => {
      if (!target.startsWith('cli/') || path.posix.dirname(target) === folder) return false;
      const layer = layerOf(target);
      return layer <= own;
    });
    expect(upward, `${file} imports a folder at or above its own`).toEqual([]);
  });
});

test('no circle of imports in the product code', () => {
  const graph = new Map(product.map((file) => [file, importsOf(file).filter((t) => product.includes(t))]));
  const circles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (file: string, trail: string[]) => {
    if (state.get(file) === 'done') return;
    if (state.get(file) === 'open') {
      circles.push([...trail.slice(trail.indexOf(file)), file].join(' -> '));
      return;
    }
    state.set(file, 'open');
    for (const next of graph.get(file) ?? []) visit(next, [...trail, file]);
    state.set(file, 'done');
  };
  for (const file of product) visit(file, []);
  expect(circles).toEqual([]);
});

test('argv is read at the edge only: main.ts parses it once, and what runs below is handed the plain RunPlan', () => {
  const readers = sources('cli').filter((file) =>
    /\bparseInvocation\(/.test(readFileSync(path.join(ROOT, file), 'utf8')),
  );
  expect(readers.filter((file) => file !== 'cli/run/options.ts')).toEqual(['cli/main.ts']);
});

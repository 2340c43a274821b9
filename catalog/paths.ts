import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/**
 * The folder of the petstore-conformance package, found by walking up from this file, so that
 * spec/ is found the same way from the sources, from dist/, and from node_modules.
 */
export function packageRoot(): string {
  if (root) return root;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === 'petstore-conformance') {
      root = dir;
      return dir;
    }
    const parent = path.dirname(dir);
    if (parent === dir)
      throw new Error(`petstore-conformance: package.json not found above ${import.meta.url}`);
    dir = parent;
  }
}

/** Absolute paths of the files in spec/. */
export const specFiles = {
  get openapi() {
    return path.join(packageRoot(), 'spec', 'openapi.yaml');
  },
  get requirements() {
    return path.join(packageRoot(), 'spec', 'requirements.yaml');
  },
  get requirementsSchema() {
    return path.join(packageRoot(), 'spec', 'requirements.schema.json');
  },
  get service() {
    return path.join(packageRoot(), 'spec', 'service.md');
  },
};

/** The package's version, from its package.json. */
export function packageVersion(): string {
  return JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')).version;
}

// The build half of the checked spec (catalog/checked.ts is the half a run reads): checks the spec
// as a run would, once for every run, and keeps the result in dist/catalog/checked.bin with the
// fingerprint of what it depends on. Called by scripts/build.mjs once dist/ is compiled; plain
// JavaScript over the compiled modules, so that nothing here is shipped or run by a run.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { deserialize, serialize } from 'node:v8';

/**
 * Checks the spec and stores the result with its fingerprint; does nothing when the stored one is
 * current. An invalid spec is not stored (an older file is removed), and is not an error here: the
 * run that meets it reports it (exit 2), as it always has. `dist` is the compiled package's folder.
 */
export async function writeChecked(dist) {
  const load = (...parts) => import(pathToFileURL(path.join(dist, ...parts)).href);
  const { checkedFile, fingerprint } = await load('catalog', 'checked.js');
  const file = checkedFile();
  const expected = fingerprint();
  try {
    const stored = deserialize(readFileSync(file));
    if (stored.fingerprint === expected) return 'current';
  } catch {
    // none yet, or unreadable: write it
  }
  try {
    const { parseCatalog } = await load('catalog', 'catalog.js');
    const { specFiles } = await load('catalog', 'paths.js');
    // The suites compile their own validators, with their own options (suites/harness/contract/contract.ts).
    const { precompileContract } = await load('suites', 'harness', 'contract', 'contract.js');
    const { default: SwaggerParser } = await import('@apidevtools/swagger-parser');
    const catalog = parseCatalog(readFileSync(specFiles.requirements, 'utf8'));
    const openapi = await SwaggerParser.validate(specFiles.openapi);
    const checked = {
      catalog: {
        version: catalog.version,
        requirements: catalog.requirements,
        unspecified: catalog.unspecified,
      },
      openapi,
      validators: {
        suites: precompileContract(openapi),
      },
    };
    writeFileSync(file, serialize({ fingerprint: expected, checked }));
    return 'written';
  } catch {
    rmSync(file, { force: true });
    return 'invalid';
  }
}

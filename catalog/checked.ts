/**
 * The spec as the build checked it, so that a run need not check it again.
 *
 * Checking the spec is the costliest part of a run's start: swagger-parser validates and
 * dereferences spec/openapi.yaml (compiling the OpenAPI 3.1 schema with ajv, about half a second of
 * CPU), and spec/requirements.yaml is parsed and validated (about a tenth). What comes out depends on
 * nothing but the spec's files, the code that checks the catalog and swagger-parser's version, so
 * `npm run build` does it once (scripts/checked-spec.mjs, the build half) and keeps the result in
 * dist/catalog/checked.bin, with a SHA-256 of all of these. This module is the half a run reads: it
 * uses the file only while that fingerprint still matches byte for byte: an edited spec, an invalid
 * one, another swagger-parser, and the run checks the spec itself, exactly as it would without the
 * file. The file is never written by a run.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { deserialize } from 'node:v8';
import { specFiles } from './paths.ts';

/** What the build checked: the catalog's data as validated, and the OpenAPI document as dereferenced. */
export interface Checked {
  /**
   * spec/requirements.yaml as parseCatalog() validated it ({version, requirements, unspecified}):
   * catalog.ts's to read back, so that the catalog's types have one home.
   */
  readonly catalog: unknown;
  /** spec/openapi.yaml as swagger-parser validated and dereferenced it (shared schemas stay shared). */
  readonly openapi: object;
  /**
   * ajv's standalone code of the suites' validators (suites/harness/contract/contract.ts, by JSON pointer).
   * The reference implementation compiles its own from spec/openapi.yaml: the two sides share the
   * document, never a validator.
   */
  readonly validators: {
    readonly suites: Readonly<Record<string, string>>;
  };
}

/** Bump when the shape of the file changes: an old file then no longer matches. */
const FORMAT = 'petstore-conformance checked spec 3';

/** dist/catalog/checked.bin beside the compiled module; from the sources (catalog/checked.ts) there is none. */
export const checkedFile = (): string => fileURLToPath(new URL('./checked.bin', import.meta.url));

/**
 * The SHA-256 of everything the checked result depends on: the spec's files, the code that checks
 * the catalog and compiles the suites' validators (with their ajv options), and the versions of
 * swagger-parser, ajv and ajv-formats.
 */
export function fingerprint(): string {
  const hash = createHash('sha256').update(FORMAT);
  const { resolve } = createRequire(import.meta.url);
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  const code = (path: string) => fileURLToPath(new URL(`${path}${ext}`, import.meta.url));
  // By name, not by path: the package checked at build time is the one installed elsewhere later.
  const inputs: [string, string][] = [
    ['openapi.yaml', specFiles.openapi],
    ['requirements.yaml', specFiles.requirements],
    ['requirements.schema.json', specFiles.requirementsSchema],
    ['catalog', code('./catalog')],
    ['suites contract', code('../suites/harness/contract/contract')],
    ['swagger-parser', resolve('@apidevtools/swagger-parser/package.json')],
    ['ajv', resolve('ajv/package.json')],
    ['ajv-formats', resolve('ajv-formats/package.json')],
  ];
  for (const [name, path] of inputs) hash.update('\0').update(name).update('\0').update(readFileSync(path));
  return hash.digest('hex');
}

let read: { checked: Checked | undefined } | undefined;

/**
 * What the build checked, when it still holds for the spec as it is now; otherwise undefined (the
 * caller checks the spec itself). Read once per process; never throws.
 */
export function readChecked(): Checked | undefined {
  read ??= { checked: load() };
  return read.checked;
}

function load(): Checked | undefined {
  try {
    const stored = deserialize(readFileSync(checkedFile())) as { fingerprint?: unknown; checked?: Checked };
    return stored.fingerprint === fingerprint() ? stored.checked : undefined;
  } catch {
    return undefined;
  }
}

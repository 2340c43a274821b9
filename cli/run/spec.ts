/**
 * The spec a run judges by, known to be valid before any test runs (part of the plan): an invalid
 * spec/openapi.yaml or spec/requirements.yaml means the run cannot judge (exit 2).
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { type Catalog, loadCatalog } from '../../catalog/catalog.ts';
import { readChecked } from '../../catalog/checked.ts';
import { specFiles } from '../../catalog/paths.ts';
import { type Route, routeNames, routesOf } from '../../catalog/routes.ts';
import { CannotJudgeError, oneLine } from '../record/errors.ts';
import { type CatalogIdentity, catalogIdentity } from '../record/record.ts';

export interface Spec {
  readonly catalog: Catalog;
  /** The catalog's identity (its ids and levels), as the reports name the catalog a run judged by. */
  readonly identity: CatalogIdentity;
  /** The operations of spec/openapi.yaml (catalog/routes.ts). */
  readonly routes: readonly Route[];
  /** operationId → "GET /pets": the routes as the reports label them. */
  readonly operations: ReadonlyMap<string, string>;
  /** spec/openapi.yaml as validated: dereferenced, a plain object the suites' workers are handed. */
  readonly openapi: object;
}

/**
 * Validates spec/openapi.yaml (swagger-parser) and spec/requirements.yaml (its schema and rules),
 * or takes both as the build validated them when nothing they depend on has changed since. The
 * OpenAPI document is validated on a thread of its own (see validateOpenApi) while this one reads
 * the catalog and the caller loads what the run needs next; an invalid document is reported first,
 * as when the two were read one after the other.
 */
export async function loadSpec(): Promise<Spec> {
  // As the build validated it, while that still holds byte for byte (catalog/checked.ts).
  const checked = readChecked()?.openapi;
  const validation = checked ? Promise.resolve({ api: checked }) : validateOpenApi(specFiles.openapi);
  let catalog: Catalog | undefined;
  let catalogError: unknown;
  try {
    catalog = loadCatalog();
  } catch (error) {
    catalogError = error;
  }
  const validated = await validation;
  if ('error' in validated) {
    throw new CannotJudgeError(`the spec is invalid: ${specFiles.openapi}: ${oneLine(validated.error)}`);
  }
  // biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is read here as loosely typed data
  const api: any = validated.api;
  if (catalog === undefined) throw new CannotJudgeError(`the spec is invalid: ${oneLine(catalogError)}`);
  const routes = routesOf(api);
  const operations = routeNames(routes);
  for (const r of catalog.requirements) {
    if (r.operation !== 'any' && !operations.has(r.operation)) {
      throw new CannotJudgeError(
        `the spec is invalid: ${r.id} names operation ${r.operation}, which spec/openapi.yaml does not define`,
      );
    }
  }
  return { catalog, identity: catalogIdentity(catalog.requirements), routes, operations, openapi: api };
}

/** What swagger-parser made of an OpenAPI document: the document, dereferenced, or why it is invalid. */
type Validation = { readonly api: object } | { readonly error: string };

/**
 * SwaggerParser.validate(file) (parse, dereference, validate against the OpenAPI schema and rules) on
 * a worker thread: loading swagger-parser and compiling the OpenAPI 3.1 schema take about a quarter of
 * a second, which a second core does while the main thread loads vitest. The dereferenced document
 * comes back as a structured clone (schemas shared by several operations stay shared) and is what the
 * suites' workers are handed, so that none of them loads swagger-parser again. Rejects only when the
 * thread itself fails.
 */
function validateOpenApi(file: string): Promise<Validation> {
  const parser = createRequire(import.meta.url).resolve('@apidevtools/swagger-parser');
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    require(workerData.parser).validate(workerData.file).then(
      (api) => parentPort.postMessage({ api }),
      (error) => parentPort.postMessage({ error: error instanceof Error ? error.message : String(error) }),
    );`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(code, { eval: true, workerData: { parser, file } });
    worker.once('message', (message: Validation) => resolve(message));
    worker.once('error', reject);
    worker.once('exit', (code) =>
      reject(new Error(`the thread validating ${file} ended (exit code ${code}) without an answer`)),
    );
  });
}

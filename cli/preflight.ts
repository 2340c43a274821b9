/**
 * What is checked before any test runs. Each failure here means the run cannot judge (exit 2):
 * the spec is invalid, the target does not answer at all, or the report folder is unusable.
 */
import { lstatSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { Worker } from 'node:worker_threads';
import { type Catalog, loadCatalog } from '../spec/catalog.ts';
import { specFiles } from '../spec/paths.ts';

/** The run cannot judge: exit 2 with this one-line message. */
export class CannotJudgeError extends Error {
  override name = 'CannotJudgeError';
}

export interface Spec {
  readonly catalog: Catalog;
  /** operationId → "GET /pets", from spec/openapi.yaml. */
  readonly operations: ReadonlyMap<string, string>;
  /** spec/openapi.yaml as validated: dereferenced, a plain object the suites' workers are handed. */
  readonly openapi: object;
}

/**
 * Validates spec/openapi.yaml (swagger-parser) and spec/requirements.yaml (its schema and rules).
 * The OpenAPI document is validated on a thread of its own (see validateOpenApi) while this one reads
 * the catalog and the caller loads what the run needs next; an invalid document is reported first,
 * as when the two were read one after the other.
 */
export async function loadSpec(): Promise<Spec> {
  const validation = validateOpenApi(specFiles.openapi);
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
  const operations = new Map<string, string>();
  for (const [route, item] of Object.entries<Record<string, { operationId?: string }>>(api.paths ?? {})) {
    for (const [method, op] of Object.entries(item)) {
      if (op && typeof op === 'object' && typeof op.operationId === 'string') {
        operations.set(op.operationId, `${method.toUpperCase()} ${route}`);
      }
    }
  }
  for (const r of catalog.requirements) {
    if (r.operation !== 'any' && !operations.has(r.operation)) {
      throw new CannotJudgeError(
        `the spec is invalid: ${r.id} names operation ${r.operation}, which spec/openapi.yaml does not define`,
      );
    }
  }
  return { catalog, operations, openapi: api };
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

/** Each --only prefix must select at least one requirement, or the user mistyped it. */
export function checkOnly(catalog: Catalog, only: readonly string[]): void {
  for (const prefix of only) {
    if (!catalog.requirements.some((r) => r.id.startsWith(prefix))) {
      const operations = [...new Set(catalog.requirements.map((r) => r.id.split('-')[0]))].join(', ');
      throw new CannotJudgeError(
        `--only ${prefix} selects no requirement (id prefixes include ${operations})`,
      );
    }
  }
}

/**
 * Whether the target answers at all: a DNS failure, a refused connection or no answer to the TCP
 * handshake within the limit means there is nothing to judge. A target that accepts the connection
 * and then misbehaves is a failing server: that is for the suite to find.
 */
export async function checkReachable(baseUrl: string, timeoutMs: number): Promise<void> {
  const url = new URL(baseUrl);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  await new Promise<void>((resolve, reject) => {
    const socket = connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new CannotJudgeError(
          `target unreachable: ${url.host} did not accept a connection within ${timeoutMs} ms`,
        ),
      );
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve();
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      socket.destroy();
      const what =
        error.code === 'ECONNREFUSED'
          ? 'connection refused'
          : error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN'
            ? 'host name not found'
            : error.code === 'EHOSTUNREACH' || error.code === 'ENETUNREACH'
              ? 'no route to host'
              : (error.code ?? error.message);
      reject(
        new CannotJudgeError(
          `target unreachable: ${url.host}: ${what} (is the server running at ${baseUrl}?)`,
        ),
      );
    });
  });
}

/** The files a run writes into its report folder; a folder holding anything else is not ours. */
export const REPORT_ENTRIES = new Set([
  'summary.json',
  'junit.xml',
  'summary.md',
  'allure-results',
  'allure-report',
  'allure-history.jsonl',
]);

/**
 * The report folder and the folder of the previous run are replaced by a run, so they must be
 * missing, empty, or hold only what a run writes: a typo must never move someone's files away.
 */
export function checkReportDirs(reportDir: string, previousReportDir: string): void {
  for (const dir of [reportDir, previousReportDir]) {
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw new CannotJudgeError(`--report-dir: cannot read ${dir}: ${oneLine(error)}`);
    }
    if (!stat.isDirectory()) throw new CannotJudgeError(`--report-dir: ${dir} exists and is not a folder`);
    const foreign = readdirSync(dir).filter((name) => !REPORT_ENTRIES.has(name));
    if (foreign.length > 0) {
      throw new CannotJudgeError(
        `--report-dir: ${dir} holds files this tool did not write (${foreign.slice(0, 3).join(', ')}); choose a new or empty folder`,
      );
    }
  }
}

export function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}

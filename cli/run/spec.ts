/**
 * What is checked before any test runs. Each failure here means the run cannot judge (exit 2):
 * the spec is invalid, the target does not answer at all, or the report folder is unusable.
 */
import diagnostics from 'node:diagnostics_channel';
import { lstatSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { type Catalog, loadCatalog } from '../../catalog/catalog.ts';
import { readChecked } from '../../catalog/checked.ts';
import { specFiles } from '../../catalog/paths.ts';
import { isSelected, type Selection, unmatchedPrefixes } from '../../catalog/select.ts';
import type { Network } from '../../suites/harness/config.ts';
import { connectionFailure, createDispatcher } from '../../suites/harness/network.ts';
import { CannotJudgeError, oneLine } from '../record/errors.ts';

export interface Spec {
  readonly catalog: Catalog;
  /** operationId → "GET /pets", from spec/openapi.yaml. */
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

/**
 * Each --only and --exclude prefix must match at least one requirement, or the user mistyped it;
 * and together they must leave something to check.
 */
export function checkSelection(catalog: Catalog, selection: Selection): void {
  const ids = catalog.requirements.map((r) => r.id);
  const operations = [...new Set(ids.map((id) => id.split('-')[0]))].join(', ');
  for (const [flag, prefixes] of [
    ['--only', selection.only],
    ['--exclude', selection.exclude ?? []],
  ] as const) {
    const [unmatched] = unmatchedPrefixes(ids, prefixes);
    if (unmatched !== undefined) {
      throw new CannotJudgeError(
        `${flag} ${unmatched} ${flag === '--only' ? 'selects' : 'matches'} no requirement (id prefixes include ${operations}; petstore-conformance requirements lists them all)`,
      );
    }
  }
  if (!ids.some((id) => isSelected(id, selection))) {
    const only = selection.only.length > 0 ? `--only ${selection.only.join(',')} and ` : '';
    throw new CannotJudgeError(
      `${only}--exclude ${(selection.exclude ?? []).join(',')} leave no requirement to check`,
    );
  }
}

/**
 * Whether the target answers at all, asked the way the suites will ask: one GET of the base URL
 * through the same dispatcher (proxy, TLS settings), without the API key. A DNS failure, a refused
 * connection, a proxy that cannot connect, no connection within the limit: there is nothing to
 * judge (exit 2). So is a TLS failure: a certificate this machine does not trust, one that does not
 * name the host, a client certificate the server wants and does not get: the runner's trust, not the
 * service, is at fault, and the message says how to fix it. A target that accepts the connection and
 * then misbehaves (any status, a reset, garbage, silence) is a failing server: that is for the suite
 * to find.
 */
export async function checkReachable(baseUrl: string, timeoutMs: number, network?: Network): Promise<void> {
  const url = new URL(baseUrl);
  const dispatcher = createDispatcher(network, { connections: 1, connectTimeoutMs: timeoutMs });
  // A TLS alert that comes after the handshake (TLS 1.3's "certificate required") reaches undici
  // as "other side closed": the socket's own error says what happened.
  const socketErrors: unknown[] = [];
  const onConnected = (message: unknown) => {
    const { socket } = message as { socket: NodeJS.EventEmitter };
    socket.on('error', (error: unknown) => socketErrors.push(error));
  };
  diagnostics.subscribe('undici:client:connected', onConnected);
  // Silence after the connection is made ends the check (headersTimeout: reachable); the timer is
  // the limit for making the connection at all (a proxy that never answers CONNECT).
  const timer = AbortSignal.timeout(timeoutMs + 2_000);
  // Loaded here, not with the command: a run against the bundled reference does not need it.
  const { request } = await import('undici');
  try {
    const res = await request(url, {
      method: 'GET',
      dispatcher,
      signal: timer,
      headersTimeout: Math.min(timeoutMs, 5_000),
      bodyTimeout: timeoutMs,
    });
    res.body.on('error', () => undefined).destroy();
  } catch (error) {
    if (timer.aborted) {
      const through = network?.proxy ? ' (through the proxy)' : '';
      throw new CannotJudgeError(
        `target unreachable: ${url.host} did not accept a connection within ${timeoutMs} ms${through}`,
      );
    }
    for (const cause of [...socketErrors, error]) {
      const failure = connectionFailure(cause, url, network);
      if (failure !== undefined) throw new CannotJudgeError(failure.message);
    }
  } finally {
    diagnostics.unsubscribe('undici:client:connected', onConnected);
    await dispatcher.destroy().catch(() => undefined);
  }
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

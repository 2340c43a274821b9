/**
 * summary.json as other commands read it back: --baseline, compare and merge. A path may name the
 * file or the report folder that holds it; the content is checked against the shape CONTRACT.md
 * gives (ajv), so that "not a summary" is said once, with the field that is wrong.
 */
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Ajv } from 'ajv';
import type { Level } from '../../catalog/catalog.ts';
import type { CatalogIdentity } from '../record/record.ts';
import type { Status } from '../record/rollup.ts';

/** One entry of summary.json's results, as read. */
export interface SummaryResult {
  readonly id: string;
  readonly level: Level;
  readonly title: string;
  readonly status: Status;
  readonly message?: string;
  /** Skipped because these requirements failed first. */
  readonly blockedBy?: readonly string[];
  readonly reproduce?: string;
}

/** summary.json, the fields the other commands read (any other field is kept, unread). */
export interface Summary {
  readonly tool: { readonly name: string; readonly version: string };
  /** Absent in summaries written before catalog identities (petstore-conformance 1.0.0). */
  readonly catalog?: CatalogIdentity;
  readonly target: string;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly seed: number;
  readonly options: {
    readonly readOnly: boolean;
    readonly strict: boolean;
    readonly authRequired: boolean;
    readonly only?: readonly string[];
    readonly exclude?: readonly string[];
    // Read by rerun; absent from summaries written before they were recorded.
    readonly proxy?: boolean;
    readonly caCert?: boolean;
    readonly clientCert?: boolean;
    readonly insecure?: boolean;
    readonly retries?: number;
    readonly timeoutMs?: number;
    readonly rateLimit?: number;
    readonly concurrency?: number;
    readonly requestIdHeader?: string;
    readonly apiKeyHeader?: string;
    readonly apiKeyQuery?: string;
    /** How the target was chosen: "--base-url", "bundled reference implementation, …". */
    readonly targetFrom?: string;
    /** --expected, as given. */
    readonly expected?: string;
  };
  readonly verdict: 'conformant' | 'non-conformant' | 'could-not-judge';
  /** The run could not judge: why. */
  readonly error?: string;
  readonly totals: { readonly passed: number; readonly failed: number; readonly skipped: number };
  readonly results: readonly SummaryResult[];
}

export interface SummaryFile {
  /** Absolute path of the summary.json read. */
  readonly file: string;
  /** The path as the user gave it (a folder stays a folder). */
  readonly given: string;
  readonly summary: Summary;
}

/** A path that does not lead to a readable summary.json; the message names the path and what is wrong. */
export class SummaryFileError extends Error {
  override name = 'SummaryFileError';
}

const SCHEMA = {
  type: 'object',
  required: ['tool', 'target', 'startedAt', 'seed', 'options', 'verdict', 'totals', 'results'],
  properties: {
    tool: {
      type: 'object',
      required: ['name', 'version'],
      properties: { name: { const: 'petstore-conformance' }, version: { type: 'string' } },
    },
    catalog: {
      type: 'object',
      required: ['hash', 'requirements'],
      properties: { hash: { type: 'string' }, requirements: { type: 'integer' } },
    },
    target: { type: 'string' },
    startedAt: { type: 'string' },
    durationMs: { type: 'number' },
    seed: { type: 'integer' },
    options: {
      type: 'object',
      required: ['readOnly', 'strict', 'authRequired'],
      properties: {
        readOnly: { type: 'boolean' },
        strict: { type: 'boolean' },
        authRequired: { type: 'boolean' },
        only: { type: 'array', items: { type: 'string' } },
        exclude: { type: 'array', items: { type: 'string' } },
        proxy: { type: 'boolean' },
        caCert: { type: 'boolean' },
        clientCert: { type: 'boolean' },
        insecure: { type: 'boolean' },
        retries: { type: 'integer', minimum: 0 },
        timeoutMs: { type: 'integer', minimum: 1 },
        rateLimit: { type: 'integer', minimum: 1 },
        concurrency: { type: 'integer', minimum: 1 },
        requestIdHeader: { type: 'string' },
        apiKeyHeader: { type: 'string' },
        apiKeyQuery: { type: 'string' },
        targetFrom: { type: 'string' },
        expected: { type: 'string' },
      },
    },
    verdict: { enum: ['conformant', 'non-conformant', 'could-not-judge'] },
    error: { type: 'string' },
    totals: {
      type: 'object',
      required: ['passed', 'failed', 'skipped'],
      properties: {
        passed: { type: 'integer' },
        failed: { type: 'integer' },
        skipped: { type: 'integer' },
      },
    },
    results: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'level', 'title', 'status'],
        properties: {
          id: { type: 'string', minLength: 1 },
          level: { enum: ['MUST', 'SHOULD', 'MAY'] },
          title: { type: 'string' },
          status: { enum: ['passed', 'failed', 'skipped'] },
          message: { type: 'string' },
          blockedBy: { type: 'array', items: { type: 'string' } },
          reproduce: { type: 'string' },
        },
      },
    },
  },
} as const;

let validator: ReturnType<Ajv['compile']> | undefined;

/**
 * Reads a summary.json, or the summary.json of a report folder. Throws SummaryFileError: no such
 * file, a folder without summary.json, not JSON, not the shape of a petstore-conformance summary.
 */
export function readSummary(given: string, cwd: string): SummaryFile {
  const absolute = path.resolve(cwd, given);
  let file = absolute;
  let stat = statSync(absolute, { throwIfNoEntry: false });
  if (stat === undefined) throw new SummaryFileError(`${given}: no such file or folder`);
  if (stat.isDirectory()) {
    file = path.join(absolute, 'summary.json');
    stat = statSync(file, { throwIfNoEntry: false });
    if (stat === undefined) {
      throw new SummaryFileError(
        `${given} is a folder without summary.json: give a report folder (--report-dir of a run) or a summary.json`,
      );
    }
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new SummaryFileError(`${given}: cannot read it: ${(error as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new SummaryFileError(`${given}: not JSON (${(error as Error).message}); expected a summary.json`);
  }
  const tool = (data as { tool?: { name?: unknown } } | null)?.tool?.name;
  if (tool !== 'petstore-conformance') {
    throw new SummaryFileError(
      `${given}: not a petstore-conformance summary.json (${typeof tool === 'string' ? `its /tool/name is ${JSON.stringify(tool)}` : 'it has no /tool/name'})`,
    );
  }
  // ajv is loaded here, not with the module: a run imports this one to read its --baseline.
  const { Ajv: Validator } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
  validator ??= new Validator({ allErrors: false, strict: false }).compile(SCHEMA);
  if (!validator(data)) {
    const e = validator.errors?.[0];
    const where = e ? `${e.instancePath || '(top level)'} ${e.message}` : 'unknown shape';
    const allowed =
      e && Array.isArray((e.params as { allowedValues?: unknown }).allowedValues)
        ? ` (${((e.params as { allowedValues: unknown[] }).allowedValues).join(', ')})`
        : '';
    throw new SummaryFileError(`${given}: not a petstore-conformance summary.json: ${where}${allowed}`);
  }
  const summary = data as Summary;
  const seen = new Set<string>();
  for (const r of summary.results) {
    if (seen.has(r.id)) {
      throw new SummaryFileError(`${given}: not a petstore-conformance summary.json: ${r.id} appears twice`);
    }
    seen.add(r.id);
  }
  return { file, given, summary };
}

/** The catalog differences between two summaries' results, one line, for an error message. */
export function catalogDifference(
  before: readonly Pick<SummaryResult, 'id' | 'level'>[],
  after: readonly Pick<SummaryResult, 'id' | 'level'>[],
): string {
  const levels = new Map(before.map((r) => [r.id, r.level]));
  const ids = new Set(after.map((r) => r.id));
  const added = after.filter((r) => !levels.has(r.id)).map((r) => r.id);
  const removed = before.filter((r) => !ids.has(r.id)).map((r) => r.id);
  const relevelled = after
    .filter((r) => levels.has(r.id) && levels.get(r.id) !== r.level)
    .map((r) => `${r.id} ${levels.get(r.id)}→${r.level}`);
  const list = (items: string[]) =>
    items.length > 5 ? `${items.slice(0, 5).join(', ')} and ${items.length - 5} more` : items.join(', ');
  const parts = [
    added.length ? `added ${list(added)}` : '',
    removed.length ? `removed ${list(removed)}` : '',
    relevelled.length ? `level changed ${list(relevelled)}` : '',
  ].filter(Boolean);
  return parts.length ? parts.join('; ') : 'the same ids and levels';
}

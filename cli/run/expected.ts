/**
 * Reads the file of --expected (YAML or JSON) when the run is planned, and checks every entry: a
 * file that is not what it should be stops the run (exit 2) with one line naming the file, the
 * entry and what was expected there. What the entries then do: cli/record/expected.ts.
 *
 *   - id: CREATE-OK                       # a requirement id of the catalog
 *     reason: our create answers 200      # required: why the deviation ships
 *     link: https://tracker.example.com/PETS-12   # optional, http(s)
 *     expires: 2026-06-30                 # optional, YYYY-MM-DD: excuses nothing after that day
 *
 * The list may stand alone or under a key `expected:`.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Catalog } from '../../catalog/catalog.ts';
import { CannotJudgeError, fileErrorReason } from '../record/errors.ts';
import type { ExpectedEntry, ExpectedFile } from '../record/expected.ts';

const FIELDS = ['id', 'reason', 'link', 'expires'] as const;

/** Reads and checks the file; throws CannotJudgeError saying what is wrong and where. */
export function loadExpected(given: string, cwd: string, catalog: Pick<Catalog, 'get'>): ExpectedFile {
  const fail = (why: string) => new CannotJudgeError(`--expected ${given}: ${why}`);
  let text: string;
  try {
    text = readFileSync(path.resolve(cwd, given), 'utf8');
  } catch (error) {
    const why = fileErrorReason(error);
    throw fail(why === 'no such file' ? why : `cannot read it (${why})`);
  }
  let data: unknown;
  try {
    // Loaded here, not with the module: a run without --expected does not load the YAML reader.
    const { parse } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
    data = parse(text);
  } catch (error) {
    throw fail(`not YAML or JSON: ${((error as Error).message.split('\n')[0] ?? '').trim()}`);
  }
  const list = isObject(data) && 'expected' in data ? data.expected : data;
  if (!Array.isArray(list)) {
    throw fail(
      `expected a list of entries (id, reason, and optionally link and expires), alone or under "expected:"; got ${kind(list)}`,
    );
  }
  const seen = new Map<string, number>();
  const entries = list.map((item, index): ExpectedEntry => {
    const n = index + 1;
    if (!isObject(item)) throw fail(`entry ${n}: expected an object with id and reason, got ${kind(item)}`);
    const id = item.id;
    if (typeof id !== 'string' || id.trim() === '') {
      throw fail(`entry ${n}: "id" is missing: expected a requirement id such as CREATE-OK, got ${kind(id)}`);
    }
    const at = `entry ${n} (${id})`;
    const unknown = Object.keys(item).find((k) => !(FIELDS as readonly string[]).includes(k));
    if (unknown !== undefined)
      throw fail(`${at}: unknown field "${unknown}" (the fields are ${FIELDS.join(', ')})`);
    if (catalog.get(id) === undefined) {
      throw fail(
        `${at}: "id" is not a requirement of the catalog (petstore-conformance requirements lists them)`,
      );
    }
    const earlier = seen.get(id);
    if (earlier !== undefined) throw fail(`${at}: ${id} is already listed by entry ${earlier}`);
    seen.set(id, n);
    const { reason, link, expires } = item;
    if (typeof reason !== 'string' || reason.trim() === '') {
      throw fail(
        `${at}: "reason" is required: a sentence saying why the deviation is expected, got ${kind(reason)}`,
      );
    }
    if (link !== undefined && !isHttpUrl(link)) {
      throw fail(`${at}: "link" must be an http or https URL (the ticket), got ${kind(link)}`);
    }
    if (expires !== undefined && !isDate(expires)) {
      throw fail(`${at}: "expires" must be a date as YYYY-MM-DD, got ${kind(expires)}`);
    }
    return {
      id,
      reason: reason.trim(),
      ...(link === undefined ? {} : { link: link as string }),
      ...(expires === undefined ? {} : { expires: expires as string }),
    };
  });
  return { given, entries };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** A real calendar day written YYYY-MM-DD. */
function isDate(value: unknown): boolean {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const day = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(day.getTime()) && day.toISOString().slice(0, 10) === value;
}

/** What a value is, for a message: "a list", "the number 3", "\"soon\"", "nothing". */
function kind(value: unknown): string {
  if (value === undefined || value === null) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'object') return 'an object';
  return `the ${typeof value} ${String(value)}`;
}

/**
 * Reads the file of --expected (YAML or JSON) when the run is planned, and checks it against the
 * shipped schema (schemas/expected.schema.json, which editors check it with too), then every id
 * against the catalog: a file that is not what it should be stops the run (exit 2) with one line
 * naming the file, the entry and what was expected there. What the entries then do:
 * cli/record/expected.ts.
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
import { quoted, type SchemaProblem, schemaProblem } from './shipped-schema.ts';

/** The schema of the file, shipped in schemas/ for editors: the run checks the file against it. */
const EXPECTED_SCHEMA = 'expected.schema.json';

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
  const underKey = typeof data === 'object' && data !== null && !Array.isArray(data);
  // The entries as the schema lets them through (checked just below).
  const list = (underKey ? (data as { expected?: unknown }).expected : data) as ExpectedEntry[] | undefined;
  const problem = schemaProblem(EXPECTED_SCHEMA, data);
  if (problem !== undefined) throw fail(problemText(problem, underKey, list ?? []));
  const seen = new Map<string, number>();
  const entries = (list ?? []).map((item, index): ExpectedEntry => {
    const n = index + 1;
    const at = entryLabel(n, item);
    if (catalog.get(item.id) === undefined) {
      throw fail(
        `${at}: "id" is not a requirement of the catalog (petstore-conformance requirements lists them)`,
      );
    }
    const earlier = seen.get(item.id);
    if (earlier !== undefined) throw fail(`${at}: ${item.id} is already listed by entry ${earlier}`);
    seen.set(item.id, n);
    return {
      id: item.id,
      reason: item.reason.trim(),
      ...(item.link === undefined ? {} : { link: item.link }),
      ...(item.expires === undefined ? {} : { expires: item.expires }),
    };
  });
  return { given, entries };
}

/** "entry 2 (CREATE-OK)", or "entry 2" while it has no id to name it by. */
function entryLabel(n: number, item: unknown): string {
  const id = (item as { id?: unknown } | null)?.id;
  return typeof id === 'string' && id.trim() !== '' ? `entry ${n} (${id})` : `entry ${n}`;
}

/** What the schema found wrong, said by entry and field: "entry 1 (CREATE-OK): "link": expected …". */
function problemText(problem: SchemaProblem, underKey: boolean, list: readonly unknown[]): string {
  const at = underKey ? problem.at.slice(1) : problem.at;
  const [index, field] = at;
  const where = index === undefined ? '' : `${entryLabel(Number(index) + 1, list[Number(index)])}: `;
  switch (problem.kind) {
    case 'unknown key':
      return `${where}unknown ${index === undefined ? 'key' : 'field'} "${problem.key}" (the ${index === undefined ? 'keys' : 'fields'} are ${problem.allowed.join(', ')})`;
    case 'bad name':
      return `${where}"${problem.key}": expected ${problem.expected}`;
    case 'missing':
      return `${where}"${problem.key}" is missing: expected ${problem.expected}`;
    case 'invalid':
      return `${where}${field === undefined ? '' : `"${field}": `}expected ${problem.expected}, got ${quoted(problem.value)}`;
  }
}

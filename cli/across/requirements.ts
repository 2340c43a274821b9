/**
 * `petstore-conformance requirements [--json] [--only <prefixes>] [--exclude <prefixes>]`: the catalog
 * of spec/requirements.yaml as a table (or a JSON array), so that the ids --only and --exclude take
 * can be looked up, and a selection tried before a run.
 */
import { parseArgs } from 'node:util';
import { CatalogError, loadCatalog, type Requirement } from '../../catalog/catalog.ts';
import { isSelected, PREFIX_PATTERN, parsePrefixes, unmatchedPrefixes } from '../../catalog/select.ts';
import { type Env, EXIT, type Io, NAME } from '../record/command.ts';
import { CannotJudgeError, UsageError } from '../record/errors.ts';

interface Output {
  readonly stdout: NodeJS.WritableStream;
}

export const REQUIREMENTS_USAGE = `Usage: petstore-conformance requirements [--json] [--only <prefixes>] [--exclude <prefixes>]

Lists the requirements of the catalog (spec/requirements.yaml) in catalog order: id, level, what a
check needs from the run (write: skipped under --read-only; key: needs --api-key; auth-required:
needs --auth-required; max-response-time: needs --max-response-time) and title. --only and --exclude
list what a run with them would check.

  --json                    a JSON array of {id, level, title, operation, needs} instead of a table
  --only <prefixes>         only ids starting with one of these comma-separated prefixes
  --exclude <prefixes>      leave out ids starting with one of these
`;

/** The subcommand: the catalog on stdout (0), or a usage error in two lines (2). */
export async function run(args: readonly string[], _env: Env, io: Io): Promise<number> {
  try {
    return requirementsCommand(args, io);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`${NAME}: ${error.message}\nRun ${NAME} requirements --help for the usage.\n`);
    return EXIT.cannotJudge;
  }
}

/** Prints the catalog; resolves to the exit status (0). Throws UsageError for bad options. */
export function requirementsCommand(argv: readonly string[], io: Output): number {
  let values: { json?: boolean; only?: string[]; exclude?: string[]; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        json: { type: 'boolean' },
        only: { type: 'string', multiple: true },
        exclude: { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    const first = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
    const unknown = /Unknown option '([^']+)'/.exec(first);
    throw new UsageError(
      `requirements: ${unknown ? `unknown option ${unknown[1]}` : first.replace(/\. To specify .*$/, '')}`,
    );
  }
  if (values.help) {
    io.stdout.write(REQUIREMENTS_USAGE);
    return 0;
  }
  let requirements: readonly Requirement[];
  try {
    requirements = loadCatalog().requirements;
  } catch (error) {
    if (error instanceof CatalogError) throw new CannotJudgeError(`the spec is invalid: ${error.message}`);
    throw error;
  }
  const ids = requirements.map((r) => r.id);
  const selection = {
    only: prefixes(values.only, '--only', ids),
    exclude: prefixes(values.exclude, '--exclude', ids),
  };
  const listed = requirements.filter((r) => isSelected(r.id, selection));

  if (values.json) {
    const rows = listed.map((r) => ({
      id: r.id,
      level: r.level,
      title: r.title,
      operation: r.operation,
      needs: [...r.needs],
    }));
    io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  const idWidth = Math.max(2, ...listed.map((r) => r.id.length));
  const needsOf = (r: Requirement) => (r.needs.length === 0 ? '-' : r.needs.join(','));
  const needsWidth = Math.max(5, ...listed.map((r) => needsOf(r).length));
  const row = (id: string, level: string, needs: string, title: string) =>
    `${id.padEnd(idWidth)}  ${level.padEnd(6)}  ${needs.padEnd(needsWidth)}  ${title}`.trimEnd();
  const lines = [
    row('ID', 'LEVEL', 'NEEDS', 'TITLE'),
    ...listed.map((r) => row(r.id, r.level, needsOf(r), r.title)),
  ];
  const count =
    listed.length === requirements.length
      ? `${requirements.length} requirements`
      : `${listed.length} of ${requirements.length} requirements`;
  lines.push(
    '',
    `${count}; select by id prefix with --only and --exclude, e.g. --only LIST --exclude LIST-LIMIT`,
  );
  io.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

function prefixes(values: readonly string[] | undefined, flag: string, ids: readonly string[]): string[] {
  const list = parsePrefixes(values ?? []);
  for (const prefix of list) {
    if (!PREFIX_PATTERN.test(prefix)) {
      throw new UsageError(
        `${flag} takes requirement id prefixes such as LIST or CREATE-OK, got "${prefix}"`,
      );
    }
  }
  const [unmatched] = unmatchedPrefixes(ids, list);
  if (unmatched !== undefined) throw new UsageError(`${flag} ${unmatched} matches no requirement id`);
  return list;
}

/**
 * petstore-conformance merge <summary.json…> --out <dir> [--name <name>…]
 *
 * Runs of several deployments (one CI job each, say) in one table: <dir>/fleet.md, <dir>/fleet.html
 * and a shields.io endpoint badge per deployment in <dir>/badges/<name>.json. Exit 0, or 2 on bad
 * input. The table itself: cli/across/fleet.ts.
 */
import { lstatSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { paintFor } from '../console/terminal.ts';
import { type Env, EXIT, type Io, NAME, optionsOf } from '../record/command.ts';
import { makeDirs } from '../record/dirs.ts';
import { badgeOf, buildFleet, fleetHtml, fleetMarkdown, installedCatalog } from './fleet.ts';
import { readSummary, type SummaryFile, SummaryFileError } from './summary-file.ts';

const USAGE = `Usage: ${NAME} merge <summary.json…> --out <dir> [--name <name>…]

Puts the runs of several deployments in one table: deployments as columns, requirements grouped by
operation as rows, each deployment's verdict on top. Each <summary.json> may be a report folder.

  --out <dir>       where to write fleet.md, fleet.html and badges/<deployment>.json (shields.io
                    endpoint badges); a folder of its own: missing, empty, or an earlier merge's
  --name <name>     the column name of each run, in the order of the runs (repeat it, once per run);
                    default: the target's host and path
  -h, --help        this text

Exit status: 0, or 2 on bad input (a missing file, not a summary, a folder that is not merge's).
`;

/** What merge writes into --out; a folder holding anything else is not merge's to replace. */
const OUT_ENTRIES = new Set(['fleet.md', 'fleet.html', 'badges']);

class InputError extends Error {}

export async function run(args: readonly string[], env: Env, io: Io): Promise<number> {
  const err = (line: string) => io.stderr.write(`${line}\n`);
  const parsed = optionsOf('merge', args, parse, USAGE, io);
  if (typeof parsed === 'number') return parsed;
  // Every input is read before anything is written: a bad one is named, and nothing is half-merged.
  const runs: SummaryFile[] = [];
  const problems: string[] = [];
  for (const given of parsed.runs) {
    try {
      runs.push(readSummary(given, io.cwd));
    } catch (error) {
      if (!(error instanceof SummaryFileError)) throw error;
      problems.push(error.message);
    }
  }
  try {
    if (problems.length > 0) throw new InputError(problems.join(`\n${NAME} merge: `));
    const out = path.resolve(io.cwd, parsed.out);
    checkOutDir(out, parsed.out);
    const fleet = buildFleet(
      runs.map((r, i) => ({
        given: r.given,
        summary: r.summary,
        ...(parsed.names[i] === undefined ? {} : { name: parsed.names[i] }),
      })),
      installedCatalog(),
    );
    rmSync(path.join(out, 'badges'), { recursive: true, force: true });
    makeDirs(path.join(out, 'badges'));
    writeFileSync(path.join(out, 'fleet.md'), fleetMarkdown(fleet));
    writeFileSync(path.join(out, 'fleet.html'), fleetHtml(fleet, new Date()));
    for (const d of fleet.deployments) {
      writeFileSync(
        path.join(out, 'badges', `${d.slug}.json`),
        `${JSON.stringify(badgeOf(d.verdict), null, 2)}\n`,
      );
    }

    const p = paintFor(io.stdout, env);
    const width = Math.max(...fleet.deployments.map((d) => d.name.length));
    const paint = { conformant: p.green, 'non-conformant': p.red, 'could-not-judge': p.yellow } as const;
    io.stdout.write(`${p.bold(`${NAME} merge`)}: ${fleet.deployments.length} runs\n`);
    for (const d of fleet.deployments) {
      io.stdout.write(
        `  ${d.name.padEnd(width)}  ${paint[d.verdict.kind](d.verdict.text)} ${p.dim(`(${d.given})`)}\n`,
      );
    }
    if (fleet.catalogNote) err(p.yellow(`warning: ${fleet.catalogNote}`));
    io.stdout.write(`written: ${parsed.out} (fleet.md, fleet.html, badges/*.json)\n`);
    return EXIT.conformant;
  } catch (error) {
    if (error instanceof InputError) {
      err(`${NAME} merge: ${error.message}`);
      return EXIT.cannotJudge;
    }
    throw error;
  }
}

function parse(args: readonly string[]) {
  const { values, positionals } = parseArgs({
    args: [...args],
    options: {
      out: { type: 'string' },
      name: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: true,
  });
  if (values.help) return { help: true as const, runs: [], out: '', names: [] };
  if (positionals.length === 0) throw new Error('expected at least one summary.json (or report folder)');
  if (values.out === undefined || values.out.trim() === '') {
    throw new Error('--out <dir> is required: the folder for fleet.md, fleet.html and badges/');
  }
  const names = values.name ?? [];
  if (names.length > 0 && names.length !== positionals.length) {
    throw new Error(
      `--name given ${names.length} times for ${positionals.length} runs: give one per run, in order`,
    );
  }
  if (names.some((n) => n.trim() === '')) throw new Error('--name needs a value');
  return { help: false as const, runs: positionals, out: values.out, names };
}

/** --out is missing, empty, or holds only what an earlier merge wrote. */
function checkOutDir(dir: string, given: string): void {
  let stat: ReturnType<typeof lstatSync> | undefined;
  try {
    stat = lstatSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new InputError(`--out ${given}: cannot read it: ${(error as Error).message}`);
  }
  if (!stat.isDirectory()) throw new InputError(`--out ${given} exists and is not a folder`);
  const foreign = readdirSync(dir).filter((name) => !OUT_ENTRIES.has(name));
  if (foreign.length > 0) {
    throw new InputError(
      `--out ${given} holds files merge did not write (${foreign.slice(0, 3).join(', ')}); choose a new or empty folder`,
    );
  }
}

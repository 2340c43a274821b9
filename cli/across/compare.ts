/**
 * petstore-conformance compare <before> <after> [--markdown <file>] [--allow-catalog-change]
 *
 * Every requirement whose state differs between two runs (summary.json files or report folders),
 * regressions first, in the console and optionally as Markdown. Exit 1 when `after` regressed at
 * its gating level, 0 otherwise, 2 on bad input. The states and what counts as a regression:
 * cli/across/diff.ts.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type Paint, paintFor } from '../console/terminal.ts';
import { clipLine, mdCell, mdCode, plural } from '../console/text.ts';
import { type Env, EXIT, type Io, NAME, optionsOf } from '../record/command.ts';
import { makeDirs } from '../record/dirs.ts';
import { type Change, diffResults, type State } from './diff.ts';
import {
  catalogDifference,
  readSummary,
  type Summary,
  type SummaryFile,
  SummaryFileError,
} from './summary-file.ts';

const USAGE = `Usage: ${NAME} compare <before> <after> [--markdown <file>] [--allow-catalog-change]

Every requirement whose status differs between two runs, regressions first. <before> and <after> are
summary.json files or report folders (--report-dir of a run).

  --markdown <file>          also write the comparison as Markdown (a pull-request comment, a job summary)
  --allow-catalog-change     compare runs judged against different catalogs (requirements added,
                             removed or re-levelled are listed as such)
  -h, --help                 this text

A regression is a requirement failed (or blocked by another failure) in <after> that was not failed
in <before>. The gating level is <after>'s: MUST, or MUST and SHOULD if it ran with --strict.

Exit status: 1 when <after> has a regression at its gating level, 0 otherwise, 2 on bad input.
`;

class InputError extends Error {}

export async function run(args: readonly string[], env: Env, io: Io): Promise<number> {
  const err = (line: string) => io.stderr.write(`${line}\n`);
  const parsed = optionsOf('compare', args, parse, USAGE, io);
  if (typeof parsed === 'number') return parsed;
  try {
    const [before, after] = parsed.runs.map((given) => readSummary(given, io.cwd)) as [
      SummaryFile,
      SummaryFile,
    ];
    for (const side of [before, after]) {
      if (side.summary.error !== undefined) {
        throw new InputError(
          `${side.given} is the summary of a run that could not judge (${side.summary.error}): nothing to compare`,
        );
      }
    }
    if (!parsed.allowCatalogChange) checkSameCatalog(before, after);
    const strict = after.summary.options.strict;
    const changes = diffResults(before.summary.results, after.summary.results, strict);
    const comparison: Comparison = { before, after, changes, catalogNote: catalogNote(before, after) };
    const p = paintFor(io.stdout, env);
    for (const line of consoleLines(comparison, p)) io.stdout.write(`${line}\n`);
    if (parsed.markdown !== undefined) {
      const file = path.resolve(io.cwd, parsed.markdown);
      try {
        makeDirs(path.dirname(file));
        writeFileSync(file, comparisonMarkdown(comparison));
      } catch (error) {
        throw new InputError(`--markdown ${parsed.markdown}: cannot write it: ${(error as Error).message}`);
      }
    }
    return changes.some((c) => c.gating) ? EXIT.nonConformant : EXIT.conformant;
  } catch (error) {
    if (error instanceof SummaryFileError || error instanceof InputError) {
      err(`${NAME} compare: ${error.message}`);
      return EXIT.cannotJudge;
    }
    throw error;
  }
}

function parse(args: readonly string[]) {
  const { values, positionals } = parseArgs({
    args: [...args],
    options: {
      markdown: { type: 'string' },
      'allow-catalog-change': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: true,
  });
  if (values.help) return { help: true as const, runs: [], allowCatalogChange: false };
  if (positionals.length !== 2) {
    throw new Error(
      `expected two runs, <before> and <after> (each a summary.json or a report folder), got ${positionals.length}`,
    );
  }
  if (values.markdown !== undefined && values.markdown.trim() === '')
    throw new Error('--markdown needs a file');
  return {
    help: false as const,
    runs: positionals,
    allowCatalogChange: values['allow-catalog-change'] ?? false,
    ...(values.markdown === undefined ? {} : { markdown: values.markdown }),
  };
}

export interface Comparison {
  readonly before: SummaryFile;
  readonly after: SummaryFile;
  readonly changes: readonly Change[];
  /** When the catalogs differ (--allow-catalog-change): how. */
  readonly catalogNote?: string;
}

/** How the catalogs of the two runs differ, or undefined when they are the same. */
function catalogNote(before: SummaryFile, after: SummaryFile): string | undefined {
  const [b, a] = [before.summary.catalog, after.summary.catalog];
  if (b !== undefined && a !== undefined && b.hash === a.hash) return undefined;
  const unknown = b === undefined || a === undefined ? 'one run does not name its catalog; ' : '';
  return `catalogs differ: ${unknown}${catalogDifference(before.summary.results, after.summary.results)}`;
}

/** Both runs name their catalog, and it is the same one. */
function checkSameCatalog(before: SummaryFile, after: SummaryFile): void {
  for (const side of [before, after]) {
    if (side.summary.catalog === undefined) {
      throw new InputError(
        `${side.given} does not say which catalog it was judged against (written by petstore-conformance ${side.summary.tool.version}); compare it anyway with --allow-catalog-change`,
      );
    }
  }
  if (before.summary.catalog!.hash !== after.summary.catalog!.hash) {
    throw new InputError(
      `the two runs were judged against different catalogs (${before.summary.catalog!.hash} and ${after.summary.catalog!.hash}): ${catalogDifference(before.summary.results, after.summary.results)}; compare them anyway with --allow-catalog-change`,
    );
  }
}

const SYMBOL: Record<State, string> = {
  passed: '✅',
  failed: '❌',
  blocked: '⛔',
  skipped: '⏭️',
  absent: '—',
};

/** What the change means, in a few words. */
export function changeText(c: Change): string {
  switch (c.kind) {
    case 'regression':
      return c.gating ? 'regression' : `regression, not gating (${c.level})`;
    case 'fixed':
      return 'fixed';
    case 'added':
      return 'new in the catalog';
    case 'removed':
      return 'not in the catalog of <after>';
    default:
      if (c.after === 'skipped') return 'not checked in <after>';
      if (c.before === 'skipped') return 'not checked in <before>';
      if (c.after === 'blocked') return 'still not working, now blocked';
      return 'changed';
  }
}

/** The message worth showing beside a change: why it is bad, or why it was not checked. */
function detail(c: Change): string | undefined {
  if (c.after === 'absent' || c.after === 'passed') {
    return c.before === 'failed' || c.before === 'blocked' ? undefined : c.beforeMessage;
  }
  return c.afterMessage;
}

function describeRun(s: Summary): string {
  const judged = s.verdict === 'conformant' ? 'conformant' : 'non-conformant';
  return `${s.target} · ${s.startedAt} · ${judged}${s.options.strict ? ' (--strict)' : ''}`;
}

function gatingLevel(after: Summary, before: Summary): string {
  const level = after.options.strict
    ? 'MUST and SHOULD (<after> ran with --strict)'
    : 'MUST (<after> ran without --strict)';
  const note =
    before.options.strict === after.options.strict
      ? ''
      : `; <before> ran ${before.options.strict ? 'with' : 'without'} --strict`;
  return `${level}${note}`;
}

/** The one-line outcome. */
function outcomeText(changes: readonly Change[]): { text: string; regressed: boolean } {
  const gating = changes.filter((c) => c.gating);
  const other = changes.filter((c) => c.kind === 'regression' && !c.gating).length;
  const fixed = changes.filter((c) => c.kind === 'fixed').length;
  const rest = changes.length - gating.length - other - fixed;
  const parts = [
    plural(gating.length, 'gating regression'),
    ...(other ? [plural(other, 'other regression')] : []),
    `${fixed} fixed`,
    plural(rest, 'other change'),
  ];
  return { text: parts.join(' · '), regressed: gating.length > 0 };
}

export function consoleLines(comparison: Comparison, p: Paint): string[] {
  const { before, after, changes } = comparison;
  const out = [
    p.bold(`${NAME} compare`),
    `before: ${before.given} ${p.dim(`(${describeRun(before.summary)})`)}`,
    `after:  ${after.given} ${p.dim(`(${describeRun(after.summary)})`)}`,
    `gating level: ${gatingLevel(after.summary, before.summary)}`,
    ...(comparison.catalogNote === undefined ? [] : [p.yellow(comparison.catalogNote)]),
    '',
  ];
  if (changes.length === 0) {
    out.push(`${p.green(p.bold('NO DIFFERENCE'))}: every requirement has the same status in both runs`);
    return out;
  }
  const idWidth = Math.max(...changes.map((c) => c.id.length));
  const stateWidth = Math.max(...changes.map((c) => c.before.length));
  for (const c of changes) {
    const paint = c.gating
      ? p.red
      : c.kind === 'regression'
        ? p.yellow
        : c.kind === 'fixed'
          ? p.green
          : p.dim;
    out.push(
      `  ${c.id.padEnd(idWidth)}  ${c.level.padEnd(6)}  ${c.before.padEnd(stateWidth)} → ${c.after.padEnd(8)} ${paint(changeText(c))}`,
    );
    const why = detail(c);
    if (why !== undefined) out.push(p.dim(`      ${clipLine(why, 200)}`));
  }
  const { text, regressed } = outcomeText(changes);
  out.push('', `${regressed ? p.red(p.bold('REGRESSED')) : p.green(p.bold('NO REGRESSION'))}: ${text}`);
  return out;
}

export function comparisonMarkdown(comparison: Comparison): string {
  const { before, after, changes } = comparison;
  const { text, regressed } = outcomeText(changes);
  const heading =
    changes.length === 0
      ? '✅ no difference'
      : regressed
        ? `❌ regressed: ${text}`
        : `✅ no regression: ${text}`;
  const out = [
    `## ${NAME} compare: ${heading}`,
    '',
    `- before: ${mdCode(before.given)} (${mdCell(describeRun(before.summary))})`,
    `- after: ${mdCode(after.given)} (${mdCell(describeRun(after.summary))})`,
    `- gating level: ${mdCell(gatingLevel(after.summary, before.summary))}`,
    ...(comparison.catalogNote === undefined ? [] : [`- ${mdCell(comparison.catalogNote)}`]),
    '',
  ];
  if (changes.length > 0) {
    out.push('| requirement | level | before | after | change | details |', '|---|---|---|---|---|---|');
    for (const c of changes) {
      const why = detail(c);
      out.push(
        `| ${mdCode(c.id)} ${mdCell(c.title)} | ${c.level} | ${SYMBOL[c.before]} ${c.before} | ${SYMBOL[c.after]} ${c.after} | ${c.gating ? '**regression**' : mdCell(changeText(c))} | ${why === undefined ? '' : mdCell(clipLine(why, 300))} |`,
      );
    }
    out.push('');
  }
  return out.join('\n');
}

/**
 * The fleet table of `merge`: several runs, one per deployment, side by side. Deployments are
 * columns, requirements are rows grouped by operation, each deployment's verdict is on top; and a
 * shields.io endpoint badge per deployment. Pure functions from summaries to text; cli/across/merge.ts
 * reads the files and writes the results.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { type Level, loadCatalog, type Requirement } from '../../catalog/catalog.ts';
import { specFiles } from '../../catalog/paths.ts';
import { routeNames, routesOf } from '../../catalog/routes.ts';
import { clipLine, html, mdCell, mdCode, plural } from '../console/text.ts';
import { gates } from '../record/rollup.ts';
import { operationLabel } from '../record/views.ts';
import { stateOf } from './diff.ts';
import type { Summary, SummaryResult } from './summary-file.ts';

/** A shields.io endpoint badge (https://shields.io/badges/endpoint-badge). */
export interface Badge {
  readonly schemaVersion: 1;
  readonly label: string;
  readonly message: string;
  readonly color: string;
}

export type VerdictKind = 'conformant' | 'non-conformant' | 'could-not-judge';

export interface Verdict {
  readonly kind: VerdictKind;
  /** "conformant", "2 MUST failed", "could not judge" … */
  readonly text: string;
  /** The run left requirements out (--only, --exclude): its verdict covers only part of the catalog. */
  readonly partial: boolean;
  /** Why, for a run that could not judge. */
  readonly error?: string;
}

export interface Deployment {
  /** The column's name: --name, or the target's host and path. Unique within the fleet. */
  readonly name: string;
  /** The badge's file name, without .json: the name reduced to [a-z0-9._-]. Unique within the fleet. */
  readonly slug: string;
  /** The summary's path as given. */
  readonly given: string;
  readonly summary: Summary;
  readonly verdict: Verdict;
}

/**
 * One cell: a deployment's result on a requirement. passed, failed (gating or not, by that run's
 * own gating level), blocked, skipped, absent (not in that run's catalog) or unjudged (that run
 * could not judge).
 */
export type CellState = 'passed' | 'failed' | 'warned' | 'blocked' | 'skipped' | 'absent' | 'unjudged';

export interface Cell {
  readonly state: CellState;
  /** What the run said: a failure's expected/received, a skip's reason. */
  readonly message?: string;
}

export interface Row {
  readonly id: string;
  readonly level: Level;
  readonly title: string;
  readonly cells: readonly Cell[];
}

export interface Group {
  /** "GET /pets (listPets)", "any operation", … */
  readonly label: string;
  readonly rows: readonly Row[];
}

export interface Fleet {
  readonly deployments: readonly Deployment[];
  readonly groups: readonly Group[];
  /** The runs were judged against different catalogs (or one does not say): a note for the reader. */
  readonly catalogNote?: string;
}

/** What a deployment's summary says, in the words of a badge. */
export function verdictOf(summary: Summary): Verdict {
  const partial = (summary.options.only?.length ?? 0) > 0 || (summary.options.exclude?.length ?? 0) > 0;
  if (summary.error !== undefined) {
    return { kind: 'could-not-judge', text: 'could not judge', partial, error: summary.error };
  }
  if (summary.verdict === 'conformant') {
    return { kind: 'conformant', text: partial ? 'conformant (partial run)' : 'conformant', partial };
  }
  const strict = summary.options.strict;
  const count = (level: Level, state: 'failed' | 'blocked') =>
    summary.results.filter((r) => r.level === level && stateOf(r) === state).length;
  const parts = [
    count('MUST', 'failed') ? `${count('MUST', 'failed')} MUST failed` : '',
    strict && count('SHOULD', 'failed') ? `${count('SHOULD', 'failed')} SHOULD failed` : '',
  ].filter(Boolean);
  const blocked = summary.results.filter((r) => stateOf(r) === 'blocked' && gates(r.level, strict)).length;
  if (blocked) parts.push(`${blocked} blocked`);
  return { kind: 'non-conformant', text: parts.join(', ') || 'non-conformant', partial };
}

const BADGE_COLOR: Record<VerdictKind, string> = {
  conformant: 'brightgreen',
  'non-conformant': 'red',
  'could-not-judge': 'lightgrey',
};

export function badgeOf(verdict: Verdict): Badge {
  return {
    schemaVersion: 1,
    label: 'pets conformance',
    message: verdict.text,
    color: verdict.kind === 'conformant' && verdict.partial ? 'yellowgreen' : BADGE_COLOR[verdict.kind],
  };
}

/**
 * A deployment's name from its target: host and path without the /v1 prefix
 * ("staging.pets.example.com", "127.0.0.1:8080", "example.com/pets"); "reference" for the bundled one.
 */
export function nameOf(target: string): string {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return /reference/i.test(target) ? 'reference' : target;
  }
  const path = url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
  return `${url.host}${path}`;
}

/** Names made unique in order: the second "a" becomes "a (2)". */
export function uniqueNames(names: readonly string[]): string[] {
  const seen = new Map<string, number>();
  const taken = new Set(names);
  return names.map((name) => {
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    if (n === 1) return name;
    let candidate = `${name} (${n})`;
    for (let k = n; taken.has(candidate); k++) candidate = `${name} (${k + 1})`;
    taken.add(candidate);
    return candidate;
  });
}

/** File names for the badges: [a-z0-9._-] only, unique ("a:b" and "a/b" are both "a-b": the second is "a-b-2"). */
export function slugs(names: readonly string[]): string[] {
  const used = new Set<string>();
  return names.map((name) => {
    const base =
      name
        .toLowerCase()
        .replace(/[^a-z0-9._-]+/g, '-')
        .replace(/^[-.]+|-+$/g, '') || 'deployment';
    let slug = base;
    for (let k = 2; used.has(slug); k++) slug = `${base}-${k}`;
    used.add(slug);
    return slug;
  });
}

/** What the table needs from the catalog: each requirement's operation, and each operation's route. */
export interface CatalogView {
  readonly requirements: readonly Pick<Requirement, 'id' | 'level' | 'title' | 'operation'>[];
  /** operationId → "GET /pets". */
  readonly routes: ReadonlyMap<string, string>;
}

/** The installed catalog and the routes of spec/openapi.yaml (read as plain YAML: no validation needed for labels). */
export function installedCatalog(): CatalogView {
  let routes = new Map<string, string>();
  try {
    routes = routeNames(routesOf(parse(readFileSync(specFiles.openapi, 'utf8'))));
  } catch {
    // Labels fall back to the operation ids.
  }
  return { requirements: loadCatalog().requirements, routes };
}

/**
 * The fleet: deployments named and judged, rows in catalog order grouped by operation. Requirements
 * a run names that the installed catalog does not know come last, in a group of their own.
 */
export function buildFleet(
  runs: readonly { readonly given: string; readonly summary: Summary; readonly name?: string }[],
  catalog: CatalogView,
): Fleet {
  const names = uniqueNames(runs.map((r) => r.name ?? nameOf(r.summary.target)));
  const slugged = slugs(names);
  const deployments = runs.map(
    (r, i): Deployment => ({
      name: names[i]!,
      slug: slugged[i]!,
      given: r.given,
      summary: r.summary,
      verdict: verdictOf(r.summary),
    }),
  );
  const byRun = deployments.map((d) => new Map(d.summary.results.map((r) => [r.id, r])));
  const cellOf = (d: Deployment, result: SummaryResult | undefined): Cell => {
    if (d.verdict.kind === 'could-not-judge') return { state: 'unjudged', message: d.verdict.error ?? '' };
    if (result === undefined) return { state: 'absent' };
    const state = stateOf(result);
    const shown: CellState =
      state === 'failed' && !gates(result.level, d.summary.options.strict) ? 'warned' : state;
    return { state: shown, ...(result.message === undefined ? {} : { message: result.message }) };
  };
  const rowOf = (id: string, level: Level, title: string): Row => ({
    id,
    level,
    title,
    cells: deployments.map((d, i) => cellOf(d, byRun[i]!.get(id))),
  });

  const groups = new Map<string, Row[]>();
  const known = new Set<string>();
  for (const r of catalog.requirements) {
    known.add(r.id);
    const label = operationLabel(r.operation, catalog.routes);
    const rows = groups.get(label) ?? [];
    rows.push(rowOf(r.id, r.level, r.title));
    groups.set(label, rows);
  }
  const unknown: Row[] = [];
  for (const d of deployments) {
    for (const r of d.summary.results) {
      if (known.has(r.id)) continue;
      known.add(r.id);
      unknown.push(rowOf(r.id, r.level, r.title));
    }
  }
  if (unknown.length > 0) groups.set('not in the catalog of this version', unknown);

  const hashes = new Set(deployments.map((d) => d.summary.catalog?.hash ?? 'unknown'));
  const catalogNote =
    hashes.size > 1 || hashes.has('unknown')
      ? hashes.has('unknown')
        ? 'some runs do not name the catalog they were judged against (an older version): rows may not mean the same in every column'
        : 'the runs were judged against different catalogs: a requirement a run did not know shows as —'
      : undefined;
  return {
    deployments,
    groups: [...groups].map(([label, rows]) => ({ label, rows })),
    ...(catalogNote === undefined ? {} : { catalogNote }),
  };
}

const SYMBOL: Record<CellState, string> = {
  passed: '✅',
  failed: '❌',
  warned: '⚠️',
  blocked: '⛔',
  skipped: '⏭️',
  absent: '—',
  unjudged: '❔',
};

const WORD: Record<CellState, string> = {
  passed: 'passed',
  failed: 'failed',
  warned: 'failed, not gating',
  blocked: 'blocked',
  skipped: 'skipped',
  absent: 'not in that run',
  unjudged: 'not judged',
};

/** The page's symbols: plain text ones that every font has (a browser without an emoji font shows the Markdown's as boxes). */
const HTML_SYMBOL: Record<CellState, string> = {
  passed: '✓',
  failed: '✗',
  warned: '!',
  blocked: '⊘',
  skipped: '–',
  absent: '·',
  unjudged: '?',
};

const HTML_VERDICT: Record<VerdictKind, string> = {
  conformant: '✓',
  'non-conformant': '✗',
  'could-not-judge': '?',
};

const VERDICT_SYMBOL: Record<VerdictKind, string> = {
  conformant: '✅',
  'non-conformant': '❌',
  'could-not-judge': '❔',
};

const STATES = ['passed', 'failed', 'warned', 'blocked', 'skipped', 'absent', 'unjudged'] as const;
const LEGEND = STATES.map((s) => `${SYMBOL[s]} ${WORD[s]}`).join(' · ');

/** "2026-01-01 10:00 UTC" from an ISO date; the text itself when it is not one. */
function when(iso: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  return m ? `${m[1]} ${m[2]} UTC` : iso;
}

function headline(fleet: Fleet): string {
  const conformant = fleet.deployments.filter((d) => d.verdict.kind === 'conformant').length;
  return `${conformant} of ${plural(fleet.deployments.length, 'deployment')} conformant`;
}

function totalsText(s: Summary): string {
  const blocked = s.results.filter((r) => stateOf(r) === 'blocked').length;
  return `${s.totals.passed} passed · ${s.totals.failed} failed · ${s.totals.skipped} skipped${blocked ? ` (${blocked} blocked)` : ''}`;
}

function gatingText(s: Summary): string {
  return s.options.strict ? 'MUST + SHOULD' : 'MUST';
}

/** fleet.md: the verdict table on top, then a table per operation. */
export function fleetMarkdown(fleet: Fleet): string {
  const { deployments } = fleet;
  const header = (first: string[]) => [
    `| ${[...first, ...deployments.map((d) => mdCell(d.name))].join(' | ')} |`,
    `|${'---|'.repeat(first.length + deployments.length)}`,
  ];
  const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const out = [`## petstore-conformance fleet: ${headline(fleet)}`, ''];
  out.push(
    ...header(['']),
    row([
      'verdict',
      ...deployments.map((d) => `${VERDICT_SYMBOL[d.verdict.kind]} ${mdCell(d.verdict.text)}`),
    ]),
    row(['target', ...deployments.map((d) => mdCode(d.summary.target))]),
    row(['started', ...deployments.map((d) => mdCell(d.summary.startedAt))]),
    row([
      'results',
      ...deployments.map((d) => (d.verdict.error ? mdCell(d.verdict.error) : totalsText(d.summary))),
    ]),
    row(['gating level', ...deployments.map((d) => gatingText(d.summary))]),
    row(['version', ...deployments.map((d) => mdCell(d.summary.tool.version))]),
    '',
  );
  if (fleet.catalogNote) out.push(`> ${mdCell(fleet.catalogNote)}`, '');
  for (const group of fleet.groups) {
    out.push(`### ${mdCell(group.label)}`, '', ...header(['requirement', 'level']));
    for (const r of group.rows) {
      out.push(row([`${mdCode(r.id)} ${mdCell(r.title)}`, r.level, ...r.cells.map((c) => SYMBOL[c.state])]));
    }
    out.push('');
  }
  out.push(LEGEND, '');
  return out.join('\n');
}

/**
 * fleet.html: one self-contained page (inline CSS, no script, no external asset), every value
 * escaped. A cell's title attribute carries the run's message (hover for the failure).
 */
export function fleetHtml(fleet: Fleet, generatedAt: Date): string {
  const { deployments } = fleet;
  const columns = deployments.length + 2;
  const cell = (c: Cell) =>
    `<td class="c ${c.state}"${c.message ? ` title="${html(c.message)}"` : ''}><span aria-hidden="true">${HTML_SYMBOL[c.state]}</span> ${WORD[c.state]}</td>`;
  const headRow = (label: string, cells: string[], cls = '') =>
    `<tr${cls ? ` class="${cls}"` : ''}><th scope="row" colspan="2">${label}</th>${cells.join('')}</tr>`;
  const body = fleet.groups
    .map((g) =>
      [
        `<tr class="group"><th colspan="${columns}" scope="rowgroup">${html(g.label)}</th></tr>`,
        ...g.rows.map(
          (r) =>
            `<tr><th scope="row" class="req"><code>${html(r.id)}</code><span>${html(r.title)}</span></th><td class="level ${r.level}">${r.level}</td>${r.cells.map(cell).join('')}</tr>`,
        ),
      ].join('\n'),
    )
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>petstore-conformance fleet: ${html(headline(fleet))}</title>
<style>
:root { color-scheme: light; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328; }
body { margin: 24px; }
h1 { font-size: 20px; margin: 0 0 4px; }
p.meta { color: #59636e; margin: 0 0 16px; }
.note { background: #fff8c5; border: 1px solid #d4a72c; padding: 8px 12px; border-radius: 6px; }
table { border-collapse: separate; border-spacing: 0; }
th, td { border-bottom: 1px solid #d1d9e0; padding: 6px 10px; text-align: left; vertical-align: top; }
thead th { background: #f6f8fa; }
thead tr:first-child th { position: sticky; top: 0; z-index: 1; }
thead th.dep { min-width: 9em; max-width: 18em; }
thead th.dep small { display: block; font-weight: normal; color: #59636e; word-break: break-all; }
tr.verdict td { font-weight: 600; }
tr.summary th, tr.summary td { color: #59636e; font-size: 12px; }
td.conformant { background: #dafbe1; color: #116329; }
td.non-conformant { background: #ffebe9; color: #a40e26; }
td.could-not-judge { background: #eaeef2; color: #424a53; }
tr.group th { background: #eaeef2; font-size: 13px; padding-top: 14px; }
th.req { font-weight: normal; min-width: 20em; max-width: 32em; }
th.req code { display: block; font-weight: 600; }
th.req span { color: #59636e; font-size: 12px; }
td.level { font-size: 12px; color: #59636e; }
td.level.MUST { font-weight: 600; color: #1f2328; }
td.c { white-space: nowrap; }
td.passed { color: #116329; }
td.failed { background: #ffebe9; color: #a40e26; font-weight: 600; }
td.warned { background: #fff8c5; color: #7d4e00; }
td.blocked { background: #fbefff; color: #6e40c9; }
td.skipped, td.absent, td.unjudged, footer .skipped, footer .absent, footer .unjudged { color: #818b98; }
footer .passed { color: #116329; } footer .failed { color: #a40e26; } footer .warned { color: #7d4e00; } footer .blocked { color: #6e40c9; }
td[title] { cursor: help; }
footer { margin-top: 16px; color: #59636e; font-size: 12px; }
</style>
</head>
<body>
<h1>petstore-conformance fleet: ${html(headline(fleet))}</h1>
<p class="meta">${plural(deployments.length, 'deployment')} · generated ${html(generatedAt.toISOString())} · hover a cell for what the run said</p>
${fleet.catalogNote ? `<p class="note">${html(fleet.catalogNote)}</p>\n` : ''}<table>
<thead>
<tr><th scope="col">requirement</th><th scope="col">level</th>${deployments
    .map((d) => `<th scope="col" class="dep">${html(d.name)}<small>${html(d.summary.target)}</small></th>`)
    .join('')}</tr>
${headRow(
  'verdict',
  deployments.map(
    (d) =>
      `<td class="${d.verdict.kind}"${d.verdict.error ? ` title="${html(d.verdict.error)}"` : ''}>${HTML_VERDICT[d.verdict.kind]} ${html(d.verdict.text)}</td>`,
  ),
  'verdict',
)}
${headRow(
  'results',
  deployments.map((d) =>
    d.verdict.error === undefined
      ? `<td>${html(totalsText(d.summary))}</td>`
      : `<td title="${html(d.verdict.error)}">${html(clipLine(d.verdict.error, 120))}</td>`,
  ),
  'summary',
)}
${headRow(
  'run',
  deployments.map(
    (d) =>
      `<td>${html(when(d.summary.startedAt))}<br>gating ${gatingText(d.summary)} · seed ${html(String(d.summary.seed))} · v${html(d.summary.tool.version)}</td>`,
  ),
  'summary',
)}
</thead>
<tbody>
${body}
</tbody>
</table>
<footer>${STATES.map((st) => `<span class="c ${st}">${HTML_SYMBOL[st]} ${WORD[st]}</span>`).join(' · ')}</footer>
</body>
</html>
`;
}

/**
 * --html: renders <report-dir>/allure-results into <report-dir>/allure-report/index.html with the
 * Allure 3 CLI from the package's own dependencies (Node only: no Java, no network), configured by
 * allureConfig(): the verdict as the report's name, the tree by operation then requirement, the
 * categories of failures and skips, and the history kept in <report-dir>/allure-history.jsonl. The single-file
 * form opens straight from disk (file://) and travels well as a CI artifact.
 *
 * One thing is added to the page Allure writes. Allure's awesome template always adds a Google
 * Analytics tag, and no option turns it off (https://github.com/allure-framework/allure3/issues/476),
 * so opening a report would call a third party. Rather than edit Allure's markup, the page gets a
 * Content-Security-Policy (PAGE_POLICY) as the first element of its <head>: the browser itself then
 * loads nothing from any other origin, whatever Allure's template becomes. The page is made from
 * allure-results/, masked as they were written (reports/folder.ts); it is not masked again.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { excuseText } from '../record/expected.ts';
import { judgedAny, type RunRecord } from '../record/record.ts';
import { reportName } from './allure-overview.ts';
import { HISTORY_FILE } from './folder.ts';
import type { Writer } from './writer.ts';

/** With --html, for a run that judged: allure-report/index.html, rendered from allure-results/. */
export const htmlReport: Writer = {
  name: 'allure-report/index.html',
  async write(record, { folder, html, console }) {
    if (!judgedAny(record) || !html || folder === undefined) return;
    console.out(console.p.dim('rendering the Allure HTML report…'));
    const problem = await renderHtml(folder.dir, { record });
    if (problem === undefined) folder.adopt('allure-report/index.html');
    else console.warn(`--html: no HTML report: ${problem}`);
  },
};

const require = createRequire(import.meta.url);

/** Runs the Allure history keeps (one line each in allure-history.jsonl). */
export const HISTORY_LIMIT = 20;

/** The Allure 3 CLI's entry: the package exports only dist/index.js, which is the CLI itself. */
export function allureCli(): string {
  return require.resolve('allure');
}

/**
 * The Allure configuration of a run's report (an allurerc, as JSON). Everything in it is data of
 * the run: the run's own words and the target's URL (its secrets masked where the suite put them).
 */
export function allureConfig(reportDir: string, record: RunRecord): Record<string, unknown> {
  const name = reportName(record);
  const excused = record.expected?.excused ?? [];
  return {
    name,
    output: path.join(reportDir, 'allure-report'),
    historyPath: path.join(reportDir, HISTORY_FILE),
    historyLimit: HISTORY_LIMIT,
    appendHistory: true,
    categories: {
      rules: [
        // An expected failure (--expected) is still failed, and known: it gates nothing.
        ...excused.map((e) => ({
          id: `expected-${e.id.toLowerCase()}`,
          name: `Expected to fail (--expected): ${e.id}, ${excuseText(e)}`,
          matchers: { statuses: ['failed', 'skipped'], labels: { requirement: `^${e.id}$` } },
          groupByMessage: false,
        })),
        {
          id: 'gating',
          name: 'Gating failures: these make the run non-conformant',
          matchers: { statuses: ['failed'], labels: { gating: '^yes$' } },
          groupByMessage: false,
          expand: true,
        },
        {
          id: 'not-gating',
          name: 'Failures that do not gate (SHOULD without --strict, MAY)',
          matchers: { statuses: ['failed'], labels: { gating: '^no$' } },
          groupByMessage: false,
        },
        {
          id: 'blocked',
          name: 'Blocked: a requirement they depend on failed',
          matchers: { statuses: ['skipped'], labels: { tag: '^blocked$' } },
          groupByMessage: false,
        },
        {
          id: 'not-checked',
          name: 'Not checked in this run',
          matchers: { statuses: ['skipped'] },
          groupByMessage: true,
        },
      ],
    },
    plugins: {
      awesome: {
        options: {
          reportName: name,
          singleFile: true,
          reportLanguage: 'en',
          // Requirement first: the operation, then the requirement, then its checks; failures first,
          // so that the first screen keeps the verdict in view as the tree opens on them.
          groupBy: ['operation', 'story'],
          defaultSortBy: 'status,asc',
        },
      },
      // Allure adds its agent plugin unless the config names it; it writes nothing a reader needs.
      agent: { enabled: false },
    },
  };
}

export interface RenderOptions {
  readonly record: RunRecord;
  readonly timeoutMs?: number;
}

/** Renders the report; resolves to an error line, or undefined when it worked. Bounded in time. */
export async function renderHtml(reportDir: string, options: RenderOptions): Promise<string | undefined> {
  let cli: string;
  try {
    cli = allureCli();
  } catch {
    return 'the allure package is not installed next to petstore-conformance';
  }
  const work = mkdtempSync(path.join(tmpdir(), 'petstore-conformance-allure-'));
  try {
    const configFile = path.join(work, 'allurerc.json');
    const config = JSON.stringify(allureConfig(reportDir, options.record), null, 2);
    writeFileSync(configFile, config);
    const problem = await runAllure(
      [cli, 'generate', 'allure-results', '--config', configFile, '--cwd', reportDir],
      reportDir,
      options.timeoutMs ?? 120_000,
    );
    if (problem !== undefined) return problem;
    return finishReport(path.join(reportDir, 'allure-report'));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The report folder as published: index.html alone (Allure's summary.json and test-results.json
 * serve its service and CI integrations, not a reader), its <head> opening with PAGE_POLICY; or why
 * no report is written (the page is removed then: a page that could call out is not published).
 */
export function finishReport(outputDir: string): string | undefined {
  for (const name of readdirSync(outputDir)) {
    if (name !== 'index.html') rmSync(path.join(outputDir, name), { recursive: true, force: true });
  }
  const file = path.join(outputDir, 'index.html');
  const page = withPagePolicy(readFileSync(file, 'utf8'));
  if (page === undefined) {
    rmSync(file, { force: true });
    return `Allure's page has no "${HEAD}" to put its Content-Security-Policy after (the allure package changed its template?); no report was written, since without it opening the page would load Google Analytics`;
  }
  writeFileSync(file, page);
  return undefined;
}

/** Where the policy goes: the page's <head> as Allure's awesome template writes it (allure ~3.18). */
export const HEAD = '<head>';

/**
 * What the report's page may load: its own inline scripts and styles, and data: and blob: URLs
 * (the single file embeds its script, its fonts and its data so); nothing from any other origin,
 * the Google Analytics tag Allure's template adds among them (allure-framework/allure3#476), and no
 * form sent anywhere. Links a reader follows (the RFCs a requirement cites) still open.
 */
export const PAGE_POLICY = [
  "default-src 'none'",
  "script-src 'unsafe-inline' data: blob:",
  "style-src 'unsafe-inline' data: blob:",
  'img-src data: blob:',
  'font-src data: blob:',
  'connect-src data: blob:',
  'media-src data: blob:',
  'worker-src data: blob:',
  'frame-src data: blob:',
  "form-action 'none'",
].join('; ');

/**
 * The page with PAGE_POLICY as a meta tag right after its <head> (found as written, not searched
 * for by pattern), or undefined when the page has none. The comment in the page says why.
 */
export function withPagePolicy(html: string): string | undefined {
  const at = html.indexOf(HEAD);
  if (at < 0) return undefined;
  const end = at + HEAD.length;
  const meta = `\n    <!-- petstore-conformance: nothing but this page loads (https://github.com/allure-framework/allure3/issues/476) -->\n    <meta http-equiv="Content-Security-Policy" content="${PAGE_POLICY}">`;
  return `${html.slice(0, end)}${meta}${html.slice(end)}`;
}

function runAllure(args: string[], cwd: string, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-4_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => {
      if (child.pid !== undefined) child.kill('SIGKILL');
      resolve(`allure did not finish within ${timeoutMs / 1000} s`);
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve(`allure could not start: ${error.message}`);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(undefined);
      else resolve(`allure exited with ${code}: ${lastLine(output)}`);
    });
  });
}

function lastLine(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.at(-1) ?? '(no output)';
}

/**
 * --html: renders <report-dir>/allure-results into <report-dir>/allure-report/index.html with the
 * Allure 3 CLI from the package's own dependencies (Node only: no Java, no network), configured by
 * allureConfig(): the verdict as the report's name, the tree by operation, the categories of
 * failures and skips, and the history kept in <report-dir>/allure-history.jsonl. The single-file
 * form opens straight from disk (file://) and travels well as a CI artifact.
 *
 * Allure's awesome template always adds a Google Analytics tag (@allurereport/plugin-awesome
 * generators.js: `analyticsEnable: true`, no option turns it off), so opening a report would call a
 * third party: the tag is removed, and the page is refused if any trace of it is left. The page is
 * not searched for secrets: its sources, the allure-results, hold none (suites/harness/redact.ts).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunRecord } from '../record/record.ts';
import { reportName } from './allure.ts';
import { HISTORY_FILE } from './folder.ts';
import type { Writer } from './writer.ts';

/** With --html, for a run that judged: allure-report/index.html, rendered from allure-results/. */
export const htmlReport: Writer = {
  name: 'allure-report/index.html',
  async write(record, { folder, html, console }) {
    if (record.error !== undefined || !html || folder === undefined) return;
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

/** The Allure configuration of a run's report (an allurerc, as JSON): data of the run. */
export function allureConfig(reportDir: string, record: RunRecord): Record<string, unknown> {
  const name = reportName(record);
  return {
    name,
    output: path.join(reportDir, 'allure-report'),
    historyPath: path.join(reportDir, HISTORY_FILE),
    historyLimit: HISTORY_LIMIT,
    appendHistory: true,
    categories: {
      rules: [
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
          groupBy: ['operation'],
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
 * serve its service and CI integrations, not a reader), without the analytics tag.
 */
export function finishReport(outputDir: string): string | undefined {
  for (const name of readdirSync(outputDir)) {
    if (name !== 'index.html') rmSync(path.join(outputDir, name), { recursive: true, force: true });
  }
  const file = path.join(outputDir, 'index.html');
  const page = withoutAnalytics(readFileSync(file, 'utf8'));
  if (page === undefined) {
    rmSync(file, { force: true });
    return "Allure's page still loads its analytics tag after it was removed; the report was not written";
  }
  writeFileSync(file, withVerdictFirst(page));
  return undefined;
}

/**
 * Keeps the page on its header (the verdict) when it opens. On load, Allure's tree gives keyboard
 * focus to its first leaf and scrolls it to the middle of the pane whenever it sits below the
 * fold (or within the height of the tree's sticky filter bar of it), which on a 900-pixel window
 * is always: the report opened on the tree with its name, the verdict, scrolled out of sight.
 * Until the reader scrolls, types, clicks or touches, the pane's scroll is put back to the top; a
 * link to a test result (a #hash) opens where it points.
 */
export const VERDICT_FIRST = `<script>
      (function () {
        if (location.hash) return;
        var reading = false;
        var stop = function () { reading = true; };
        ['wheel', 'keydown', 'mousedown', 'touchstart'].forEach(function (type) {
          window.addEventListener(type, stop, { capture: true, passive: true, once: true });
        });
        setTimeout(stop, 15000);
        document.addEventListener('scroll', function (event) {
          var pane = event.target;
          if (!reading && pane instanceof HTMLElement && pane.hasAttribute('data-tree-scroll-container')) pane.scrollTop = 0;
        }, true);
      })();
    </script>`;

function withVerdictFirst(html: string): string {
  const end = html.lastIndexOf('</body>');
  return end < 0 ? html : `${html.slice(0, end)}${VERDICT_FIRST}\n${html.slice(end)}`;
}

/** Allure's Google Analytics tag: the loader script and the inline script that configures it. */
const ANALYTICS =
  /<script[^>]*\bsrc="https:\/\/www\.googletagmanager\.com\/[^"]*"[^>]*>\s*<\/script>\s*(<script>(?:(?!<\/script>)[\s\S])*\bgtag\((?:(?!<\/script>)[\s\S])*<\/script>)?/g;

/** The page without the analytics tag; undefined when a trace of it is left (Allure changed its template). */
export function withoutAnalytics(html: string): string | undefined {
  const page = html.replace(ANALYTICS, '');
  return /googletagmanager|\bgtag\(|dataLayer/.test(page) ? undefined : page;
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

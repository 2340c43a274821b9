// The HTML report as a person sees it: the real command with --html against a server with known
// failures, the page opened from disk in headless Chromium (Debian's chromium, driven by
// playwright-core) with every request recorded and none allowed to leave the file. The page keeps
// Allure's Google Analytics tag; its Content-Security-Policy must keep the browser from loading it.
//
// Without chromium the test says why it did not run; under CI=true a missing chromium fails it
// (.ci/run installs it). CHROMIUM_PATH names another binary.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { loadCatalog } from '../../catalog/catalog.ts';
import { build, type CliResult, ROOT, readJson, runInProcess } from '../helpers/cli.ts';
import { acceptAnyLimit } from '../variants/faulty/list.ts';
import { goneInsteadOfNotFound } from '../variants/faulty/show.ts';
import { reference } from '../variants/servers/reference.ts';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const found = existsSync(CHROMIUM);
const onCi = process.env.CI === 'true' || process.env.CI === '1';
const missing = `chromium not found at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH): the HTML report was not checked in a browser`;

const SECRET = 'pcs-BROWSER-4d1e7b-do-not-print';
// Under reports/ (ignored by git), so that the report and its screenshots stay for a person to open.
const reportDir = path.join(ROOT, 'reports', 'test-report-browser');
const page = path.join(reportDir, 'allure-report', 'index.html');
const screenshots = path.join(reportDir, 'screenshots');

let server: Awaited<ReturnType<typeof reference>> | undefined;
let runs: { first: CliResult; second: CliResult } | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  if (!found) {
    if (!onCi) console.warn(`report-browser.test.ts: skipped: ${missing}`);
    return;
  }
  await build();
  rmSync(reportDir, { recursive: true, force: true });
  rmSync(`${reportDir}.previous`, { recursive: true, force: true });
  // One MUST fault (LIST-LIMIT-OVER-MAX) and one SHOULD fault (404 answered 410), behind a key.
  server = await reference({ wrap: (h) => goneInsteadOfNotFound(acceptAnyLimit(h)), apiKey: SECRET });
  const args = ['--base-url', server.url, '--api-key', SECRET, '--report-dir', reportDir, '--html'];
  // A first, small run into the same folder gives the report a history to show.
  const first = await runInProcess([...args, '--only', 'LIST-LIMIT-OVER-MAX'], { timeoutMs: 120_000 });
  const second = await runInProcess(args, { timeoutMs: 120_000 });
  runs = { first, second };
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    // No name resolves: even a request that escaped the routing below could not reach a host. Shared
    // memory as files in /tmp, not /dev/shm, which a container may keep at 64 MB.
    args: ['--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost', '--disable-dev-shm-usage'],
  });
}, 300_000);

/** The page a test opened: closed after it, so that no page of an earlier test shares the cores. */
let opened: BrowserContext | undefined;

afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/**
 * Opens the report from disk; every request the page makes is recorded, only the page's own file is
 * served, and what would have left it (reached the network) is `outside`. What the page's
 * Content-Security-Policy refused never reaches the network: `refused()` is what the browser
 * reported to the page (securitypolicyviolation: the URI, or "inline" or "eval", and the directive).
 */
async function open(): Promise<{
  page: Page;
  requests: string[];
  outside: string[];
  refused: () => Promise<string[]>;
}> {
  const context = await browser!.newContext({
    viewport: { width: 1400, height: 900 },
    serviceWorkers: 'block',
  });
  opened = context;
  const self = `file://${page}`;
  const requests: string[] = [];
  const outside: string[] = [];
  context.on('request', (request) => requests.push(request.url()));
  await context.addInitScript({
    content:
      "window.refused = []; document.addEventListener('securitypolicyviolation', (e) => window.refused.push(e.blockedURI + ' (' + e.violatedDirective + ')'));",
  });
  // What the page threw or logged as an error, and whether its renderer crashed: told when the page
  // does not render, since a timeout alone says nothing of why.
  const troubles: string[] = [];
  context.on('weberror', (e) => troubles.push(`page error: ${e.error().message}`));
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.split('#')[0] === self || url.startsWith('data:')) return route.continue();
    outside.push(url);
    return route.abort('blockedbyclient');
  });
  await context.routeWebSocket(/.*/, (ws) => {
    outside.push(ws.url());
    return ws.close();
  });
  const p = await context.newPage();
  p.on('websocket', (ws) => outside.push(ws.url()));
  p.on('console', (m) => m.type() === 'error' && troubles.push(`console error: ${m.text()}`));
  const crashed = new Promise<never>((_, reject) =>
    p.on('crash', () => reject(new Error(`the page's renderer crashed\n${troubles.join('\n')}`))),
  );
  crashed.catch(() => undefined);
  const started = Date.now();
  try {
    // Allure's page renders from some megabytes of embedded data: about 3 s on a quiet machine; on 2
    // busy cores (npm test runs the variants' CLI runs beside it) it has taken over 20 s.
    await Promise.race([
      (async () => {
        await p.goto(self, { timeout: 90_000 });
        await p.getByTestId('report-title').waitFor({ state: 'attached', timeout: 90_000 });
      })(),
      crashed,
    ]);
  } catch (error) {
    const shot = path.join(screenshots, 'not-rendered.png');
    await p.screenshot({ path: shot }).catch(() => undefined);
    throw new Error(
      `expected the report's title within 90 s of opening ${self}; after ${Date.now() - started} ms: ` +
        `${(error as Error).message.split('\n')[0]}\n${troubles.join('\n') || 'no page error, no console error'}\n` +
        `screenshot: ${shot}`,
    );
  }
  const refused = async () => (await p.evaluate('window.refused')) as string[];
  return { page: p, requests, outside, refused };
}

describe('the HTML report of a run with known failures, in headless Chromium', () => {
  test('chromium is there to check it (required under CI=true)', (ctx) => {
    if (!found && !onCi) ctx.skip(missing);
    expect(found, `CI=true: ${missing}`).toBe(true);
  });

  test.runIf(found)('the run wrote the report', () => {
    expect(runs?.second.code, `${runs?.second.stdout}\n${runs?.second.stderr}`).toBe(1);
    expect(existsSync(page)).toBe(true);
  });

  test.runIf(found)(
    'opens on the verdict and the counts per requirement, and makes no request outside its own file',
    { timeout: 200_000, retry: 1 },
    async () => {
      const { page: p, requests, outside, refused } = await open();
      const title = p.getByTestId('report-title');
      expect(await title.textContent()).toMatch(/^NON-CONFORMANT · 1 MUST failed · 127\.0\.0\.1:\d+\/v1$/);
      expect(await p.title()).toMatch(/^\s*NON-CONFORMANT · 1 MUST failed/);
      // The verdict on the first screen, without scrolling: the metadata's first entry. (As it opens,
      // Allure's tree scrolls its first entry into view, which takes the title above the fold: failures
      // come first in the tree, so the first entry is near its top.)
      const verdict = p
        .getByTestId('metadata-list')
        .getByText('NON-CONFORMANT · 1 MUST failed', { exact: true });
      await verdict.waitFor();
      await p.waitForTimeout(1_000);
      const box = await verdict.boundingBox();
      expect(box !== null && box.y >= 0 && box.y + box.height <= 900).toBe(true);
      // Counts per requirement (summary.json's) in the metadata; Allure's own count its results, a check each.
      const summary = readJson(path.join(reportDir, 'summary.json'));
      const metadata = await p.getByTestId('metadata-list').innerText();
      expect(metadata).toMatch(/verdict\s+NON-CONFORMANT · 1 MUST failed/);
      expect(metadata).toMatch(
        new RegExp(
          `failed\\s+${summary.totals.failed} of ${summary.results.length} requirements \\(1 gating\\)`,
        ),
      );
      expect(metadata).toMatch(new RegExp(`passed\\s+${summary.totals.passed}\\b`));
      expect(metadata).toMatch(new RegExp(`seed\\s+${summary.seed}`));
      expect(metadata).toMatch(/gating level\s+MUST/);
      expect(metadata).toMatch(/blocked\s+\d+/);
      mkdirSync(screenshots, { recursive: true });
      await p.screenshot({ path: path.join(screenshots, 'first-screen.png') });

      // Everything the page loaded came from its own file: no analytics, no font, no CDN. Allure's
      // analytics tag is still in the page; its policy kept the browser from even asking for it.
      expect(outside).toEqual([]);
      expect(requests.length).toBeGreaterThan(0);
      const html = readFileSync(page, 'utf8');
      expect(html).toContain('<meta http-equiv="Content-Security-Policy"');
      const refusedNow = await refused();
      if (html.includes('https://www.googletagmanager.com/'))
        expect(refusedNow).toEqual(
          expect.arrayContaining([expect.stringMatching(/^https:\/\/www\.googletagmanager\.com\//)]),
        );
      expect(refusedNow.filter((uri) => !uri.startsWith('https://www.googletagmanager.com/'))).toEqual([]);
    },
  );

  test.runIf(found)(
    'groups by operation, then requirement, then check; a failed check opens to its request and response',
    { timeout: 200_000, retry: 1 },
    async () => {
      const { page: p, outside, refused } = await open();
      // The operation's group holds its requirements, each named with its id, level and title, and
      // each requirement its checks.
      const group = p
        .getByTestId('tree-section')
        .filter({ hasText: 'GET /pets (listPets)' })
        .locator('xpath=..');
      const requirement = group
        .getByTestId('tree-section-title')
        .filter({ hasText: 'LIST-LIMIT-OVER-MAX (MUST) a limit above 100 is rejected with a 4xx status' });
      await requirement.waitFor({ timeout: 30_000 });
      expect(await p.getByTestId('tree-section-title').allTextContents()).toEqual(
        expect.arrayContaining([
          'GET /pets (listPets)',
          'POST /pets (createPets)',
          'any operation',
          'auth (any operation)',
        ]),
      );
      const listPets = loadCatalog().requirements.filter((r) => r.operation === 'listPets');
      expect((await group.getByTestId('tree-section-title').allTextContents()).sort()).toEqual(
        ['GET /pets (listPets)', ...listPets.map((r) => `${r.id} (${r.level}) ${r.title}`)].sort(),
      );
      const leaf = group.getByTestId('tree-leaf').filter({
        hasText: 'LIST-LIMIT-OVER-MAX a limit above 100 is rejected with a 4xx status [limit=101]',
      });

      await leaf.click();
      await p.getByTestId('test-result-info-title').waitFor();
      const error = await p.getByTestId('test-result-error-message').first().innerText();
      expect(error).toMatch(/expected: +status 400–499/);
      expect(error).toMatch(/reproduce: curl -i .*'x-api-key: '"\$\{PETSTORE_API_KEY:-\*\*\*\}".*limit=101/);
      expect(error).not.toMatch(/harness\/|node_modules|at async/);

      // The check [limit=101] holds its request, then its response, each opening to read as HTTP.
      const check = p.getByTestId('test-result-steps-root');
      const request = check
        .getByTestId('test-result-attachment')
        .filter({ hasText: 'request: GET /v1/pets?limit=101' });
      const response = check.getByTestId('test-result-attachment').filter({ hasText: /response: 200 OK/ });
      await request.click();
      await response.click();
      await p.getByText(/^GET http:\/\/127\.0\.0\.1:\d+\/v1\/pets\?limit=101/m).waitFor();
      await p
        .getByText(/^HTTP 200 OK/m)
        .first()
        .waitFor();
      const shown = await check.innerText();
      expect(shown).toMatch(/x-api-key: \*\*\*/);
      expect(shown).toMatch(/content-type: application\/json/);
      // The list as it came (cut, so not re-indented), and where it was cut.
      expect(shown).toMatch(/^\[\{"id":-?\d+,"name":/m);
      // Cut at 4 KiB, or a few bytes before where a character would be split (the pets of a 300-character
      // name are created while the lists are read, and may be among the first 100).
      expect(shown).toMatch(/\n… \(cut at (4 KiB|409[3-5] bytes) of \d+ bytes\)\n/);
      expect(shown.indexOf('GET http://')).toBeLessThan(shown.indexOf('HTTP 200 OK'));
      await request.scrollIntoViewIfNeeded();
      await p.screenshot({ path: path.join(screenshots, 'failed-requirement.png') });

      // The history of the first run into this folder.
      await p.getByTestId('test-result-tab-history').click();
      expect(await p.getByTestId('test-result-tab-history').innerText()).toMatch(/1/);
      expect(outside).toEqual([]);
      // Opening a requirement and its attachments needs nothing the page's policy refuses.
      expect((await refused()).filter((uri) => !uri.startsWith('https://www.googletagmanager.com/'))).toEqual(
        [],
      );
    },
  );

  test.runIf(found)('holds the API key in no spelling, not even in its base64-embedded data', () => {
    const html = readFileSync(page, 'utf8');
    const embedded = [...html.matchAll(/\bd\("(?:[^"\\]|\\.)*","([A-Za-z0-9+/=]*)"\)/g)].map((m) =>
      Buffer.from(m[1] ?? '', 'base64').toString('latin1'),
    );
    expect(embedded.length).toBeGreaterThan(10);
    for (const text of [
      html,
      ...embedded,
      readFileSync(path.join(reportDir, 'allure-history.jsonl'), 'utf8'),
    ]) {
      for (const s of [SECRET, encodeURIComponent(SECRET), SECRET.slice(4, 20)]) {
        expect(text.includes(s)).toBe(false);
      }
    }
  });
});

// exchanges.har in a HAR reader that is not ours: Playwright's (routeFromHAR), in headless Chromium
// (Debian's chromium, as test/cli/report-browser.test.ts drives it). The server the run checked is
// gone; the browser gets every answer from the HAR alone, as recorded.
//
// Without chromium the test says why it did not run; under CI=true a missing chromium fails it.
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { build, type CliResult, type Json, ROOT, readJson, runInProcess } from '../helpers/cli.ts';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const found = existsSync(CHROMIUM);
const onCi = process.env.CI === 'true' || process.env.CI === '1';
const missing = `chromium not found at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH): exchanges.har was not loaded in a browser`;

const reportDir = path.join(ROOT, 'reports', 'test-har-browser');
const harFile = path.join(reportDir, 'exchanges.har');
let run: CliResult | undefined;
let browser: Browser | undefined;
let entries: Json[] = [];

beforeAll(async () => {
  if (!found) {
    if (!onCi) console.warn(`har-browser.test.ts: skipped: ${missing}`);
    return;
  }
  await build();
  rmSync(reportDir, { recursive: true, force: true });
  rmSync(`${reportDir}.previous`, { recursive: true, force: true });
  // The bundled reference, stopped when the run ends: nothing answers at its address afterwards.
  run = await runInProcess(['--only', 'LIST,SHOW', '--report-dir', reportDir], { timeoutMs: 120_000 });
  entries = readJson(harFile).log.entries;
  browser = await chromium.launch({ executablePath: CHROMIUM });
}, 240_000);

afterAll(async () => {
  await browser?.close();
});

/** The one entry whose method and URL are these (the HAR router answers by method, URL and body). */
function only(predicate: (e: Json) => boolean): Json {
  const found = entries.filter(predicate);
  const unique = found.filter((e) => entries.filter((o) => o.request.url === e.request.url).length === 1);
  expect(unique.length, 'an entry with a URL of its own').toBeGreaterThan(0);
  return unique[0];
}

describe('exchanges.har, loaded by Playwright’s HAR router in headless Chromium', () => {
  test('chromium is there to load it (required under CI=true)', (ctx) => {
    if (!found && !onCi) ctx.skip(missing);
    expect(found, `CI=true: ${missing}`).toBe(true);
  });

  test.runIf(found)(
    'answers a page from the recorded exchanges, status, type and body as the server sent them',
    async () => {
      expect(run?.code, `${run?.stdout}\n${run?.stderr}`).toBe(0);
      const list = only(
        (e) => e.request.method === 'GET' && e.response.status === 200 && e._operation === 'GET /pets',
      );
      const missingPet = only(
        (e) =>
          e.request.method === 'GET' && e.response.status === 404 && e._operation === 'GET /pets/{petId}',
      );
      const context = await browser!.newContext();
      await context.routeFromHAR(harFile, { notFound: 'abort' });
      const page = await context.newPage();
      const response = await page.goto(list.request.url);
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-type']).toBe(list.response.content.mimeType);
      expect(await response?.text()).toBe(list.response.content.text);
      // A fetch from the page, as the application would send it: the 404 recorded for it.
      const fetched = await page.evaluate(async (url) => {
        const res = await fetch(url);
        return { status: res.status, body: await res.text() };
      }, missingPet.request.url);
      expect(fetched).toEqual({ status: 404, body: missingPet.response.content.text });
      // A request the run never sent is not made up: the router aborts it.
      const unknown = await page.evaluate(
        async (url) =>
          fetch(url).then(
            () => 'answered',
            () => 'aborted',
          ),
        `${new URL(list.request.url).origin}/v1/never-sent`,
      );
      expect(unknown).toBe('aborted');
      await context.close();
    },
    60_000,
  );
});

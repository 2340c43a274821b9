// The API key never reaches a report, whatever a server does with it: a server that echoes it back in
// every spelling, in headers and in bodies, against the real command with --html; every file the run
// writes is searched, the HTML report's embedded (base64) data decoded and searched too.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReferenceServer } from '../../reference-impl/index.ts';
import { build, type CliResult, filesUnder, runInProcess } from '../helpers/cli.ts';
import { SPECIAL_KEY, spellingsOf } from '../helpers/spellings.ts';

const spellings = spellingsOf(SPECIAL_KEY);
const work = mkdtempSync(path.join(tmpdir(), 'petstore-conformance-secrets-'));
const reportDir = path.join(work, 'reports');
let server: { url: string; close(): Promise<void> };
let run: CliResult;

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The reference, echoing the key it was sent in every spelling: a header per spelling on every
 * answer, and, for GET /v1/pets/{id}, a 500 whose JSON body holds them all (so that checks fail and
 * their exchanges are attached to the reports).
 */
const echo =
  (handler: Handler): Handler =>
  (req, res) => {
    const key = String(req.headers['x-api-key'] ?? '');
    const echoed = key === '' ? {} : spellingsOf(key);
    for (const [i, value] of Object.values(echoed).entries()) res.setHeader(`x-echo-${i}`, value);
    if (req.method === 'GET' && /^\/v1\/pets\/[^/]+$/.test(req.url ?? '')) {
      req.resume();
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'echo', spellings: echoed, joined: Object.values(echoed).join(' ') }));
      return;
    }
    handler(req, res);
  };

beforeAll(async () => {
  await build();
  server = await startReferenceServer({ port: 0, host: '127.0.0.1', wrap: echo });
  run = await runInProcess(
    ['--base-url', server.url, '--api-key', SPECIAL_KEY, '--html', '--report-dir', reportDir],
    {
      timeoutMs: 180_000,
    },
  );
}, 240_000);

afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

/** The payloads the single-file Allure report embeds, base64-decoded: d("widgets/…json","eyJ…"). */
function embedded(html: string): string[] {
  return [...html.matchAll(/\bd\("([^"]+)","([A-Za-z0-9+/=]+)"\)/g)].map((m) =>
    Buffer.from(m[2]!, 'base64').toString('utf8'),
  );
}

/** The spellings found in a text, by name. */
function leaks(text: string): string[] {
  return Object.entries(spellings)
    .filter(([, spelling]) => text.includes(spelling))
    .map(([name]) => name);
}

describe('a server that echoes the key in every spelling', () => {
  test('fails the run (exit 1), and its echoes reached the reports, masked', () => {
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(1);
    const attachments = filesUnder(path.join(reportDir, 'allure-results')).filter((f) =>
      f.includes('-attachment'),
    );
    expect(attachments.length).toBeGreaterThan(0);
    const shown = attachments
      .map((f) => readFileSync(path.join(reportDir, 'allure-results', f), 'utf8'))
      .join('\n');
    expect(shown).toContain('x-echo-0: ***');
    expect(shown).toMatch(/HTTP 500/);
  });

  test('no file the run wrote holds the key in any spelling, the HTML report included', () => {
    const files = filesUnder(reportDir);
    expect(files).toContain(path.join('allure-report', 'index.html'));
    expect(files.length).toBeGreaterThan(10);
    const found: string[] = [];
    for (const file of files) {
      const bytes = readFileSync(path.join(reportDir, file));
      for (const text of [bytes.toString('utf8'), bytes.toString('latin1')]) {
        for (const name of leaks(text)) found.push(`${file}: ${name}`);
      }
      if (file.endsWith('.html')) {
        const payloads = embedded(bytes.toString('utf8'));
        expect(payloads.length).toBeGreaterThan(0);
        for (const payload of payloads)
          for (const name of leaks(payload)) found.push(`${file} (embedded): ${name}`);
      }
    }
    expect([...new Set(found)]).toEqual([]);
  });

  test('neither stdout nor stderr holds it', () => {
    expect(leaks(run.stdout)).toEqual([]);
    expect(leaks(run.stderr)).toEqual([]);
  });
});

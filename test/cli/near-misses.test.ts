// The near misses of the key that AUTH-WRONG-KEY-REFUSED sends (suites/harness/evidence/keys.ts) hold most of
// the key, or half of it: like the key, they never reach a report, whatever a server does with them.
// A server that takes every near miss (so that their checks fail, and their exchanges are reported)
// and echoes the key it was sent in every spelling, in its headers and its body; every file the run
// writes is searched, and what it printed.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { NEAR_MISSES, nearMissKey } from '../../suites/harness/evidence/keys.ts';
import { build, type CliResult, filesUnder, type Json, readJson, runInProcess } from '../helpers/cli.ts';
import { type HandMadeServer, httpServer } from '../helpers/servers.ts';
import { SPECIAL_KEY, spellingsOf } from '../helpers/spellings.ts';

const KEY = SPECIAL_KEY;
const work = mkdtempSync(path.join(tmpdir(), 'petstore-conformance-near-misses-'));
const reportDir = path.join(work, 'reports');
let server: HandMadeServer;
let run: CliResult;

/** kind → the near miss of KEY the run sends. */
const misses = Object.fromEntries(NEAR_MISSES.map((kind) => [kind, nearMissKey(KEY, kind)]));

beforeAll(async () => {
  await build();
  server = await httpServer((req, res) => {
    req.resume();
    const key = String(req.headers['x-api-key'] ?? '');
    const echoed = key === '' ? {} : spellingsOf(key);
    for (const [i, value] of Object.values(echoed).entries()) res.setHeader(`x-echo-${i}`, value);
    // The key compared on its first two characters, without case: every near miss is taken.
    const taken = key.toLowerCase().startsWith(KEY.slice(0, 2).toLowerCase());
    res.writeHead(taken ? 200 : 401, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ taken, spellings: echoed, joined: Object.values(echoed).join(' ') }));
  });
  run = await runInProcess(
    [
      '--base-url',
      server.url,
      '--api-key',
      KEY,
      '--auth-required',
      '--only',
      'AUTH',
      '--report-dir',
      reportDir,
    ],
    { timeoutMs: 120_000 },
  );
}, 180_000);

afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

/** "first-half: base64" for each spelling of a near miss (or of the key) found in a text. */
function leaks(text: string): string[] {
  return Object.entries({ key: KEY, ...misses }).flatMap(([kind, secret]) =>
    Object.entries(spellingsOf(secret!))
      .filter(([, spelling]) => text.includes(spelling))
      .map(([name]) => `${kind}: ${name}`),
  );
}

describe('a server that takes every near miss of the key and echoes it in every spelling', () => {
  test('the key has every near miss, and the run fails AUTH-WRONG-KEY-REFUSED on them alone (exit 1)', () => {
    expect(Object.values(misses).every((miss) => miss !== undefined && miss !== KEY)).toBe(true);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(1);
    const results = readJson(path.join(reportDir, 'summary.json')).results.filter((r: Json) =>
      r.id.startsWith('AUTH-'),
    );
    expect(results.map((r: Json) => [r.id, r.status])).toEqual([
      ['AUTH-KEY-ACCEPTED', 'passed'],
      ['AUTH-MISSING-KEY-REFUSED', 'passed'],
      ['AUTH-WRONG-KEY-REFUSED', 'failed'],
    ]);
  });

  test('no file the run wrote holds the key or a near miss of it in any spelling; the echoes were masked', () => {
    const files = filesUnder(reportDir);
    expect(files.length).toBeGreaterThan(5);
    const found: string[] = [];
    let masked = false;
    for (const file of files) {
      const bytes = readFileSync(path.join(reportDir, file));
      masked ||= bytes.toString('utf8').includes('x-echo-0: ***');
      for (const text of [bytes.toString('utf8'), bytes.toString('latin1')])
        for (const name of leaks(text)) found.push(`${file}: ${name}`);
    }
    expect(masked, 'the echoes reached a report').toBe(true);
    expect([...new Set(found)]).toEqual([]);
  });

  test('neither stdout nor stderr holds them', () => {
    expect(leaks(run.stdout)).toEqual([]);
    expect(leaks(run.stderr)).toEqual([]);
  });
});

// The run's first look (one GET {base}/pets) and the checks: the checks do not wait for its answer
// before sending. The real command against the bundled reference, the first look's answer held back
// by the server. (That a first look answered 404 or 401 still blocks every check, whatever it found,
// findings of other requirements included, is the variants' wrong-prefix and key-in-other-header.)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type RunningServer, startReferenceServer } from '../../reference-impl/index.ts';
import { build, failMessage, readJson, runInProcess } from '../helpers/cli.ts';
import { intercept } from '../variants/servers/wrap.ts';

/** How long the server holds its answer to the first GET /v1/pets. */
const HOLD_MS = 1_500;

/** What the server saw while it held the first look: each request, in the order it arrived. */
interface Seen {
  arrivedWhileHeld: string[];
}

/** The reference, holding its answer to the first GET /v1/pets for HOLD_MS. */
async function holdingFirstLook(): Promise<{ server: RunningServer; seen: Seen }> {
  const seen: Seen = { arrivedWhileHeld: [] };
  let held = false;
  let first = true;
  const server = await startReferenceServer({
    port: 0,
    host: '127.0.0.1',
    wrap: (handler) =>
      intercept((req, res) => {
        if (held) seen.arrivedWhileHeld.push(`${req.method} ${req.url}`);
        if (!(first && req.method === 'GET' && req.url === '/v1/pets')) return false;
        first = false;
        held = true;
        setTimeout(() => {
          held = false;
          handler(req, res);
        }, HOLD_MS);
        return true;
      })(handler),
  });
  return { server, seen };
}

const servers: RunningServer[] = [];

beforeAll(async () => {
  await build();
}, 120_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe('the first look', () => {
  test('no check waits for its answer: creates reach the server while it is still unanswered', async () => {
    const { server, seen } = await holdingFirstLook();
    servers.push(server);
    const run = await runInProcess(['--base-url', server.url, '--only', 'CREATE-OK,CREATE-RESPONSE-PET'], {
      timeoutMs: 60_000,
    });
    expect(run.code, failMessage(run)).toBe(0);
    expect(seen.arrivedWhileHeld.filter((r) => r.startsWith('POST /v1/pets'))).not.toEqual([]);
  });

  test('answered 404, it blocks every check, and what the checks saw fails nothing else: 500s to the other requests fail no ANY-NO-5XX', async () => {
    // Nothing of the API under the base URL: GET /v1/pets answered 404, every other request 500.
    const server = await startReferenceServer({
      port: 0,
      host: '127.0.0.1',
      wrap: () =>
        intercept((req, res) => {
          const status = req.method === 'GET' && req.url === '/v1/pets' ? 404 : 500;
          res.writeHead(status, { 'content-type': 'text/plain' });
          res.end(status === 404 ? 'not found' : 'oops');
          return true;
        })(() => undefined),
    });
    servers.push(server);
    const reportDir = mkdtempSync(path.join(tmpdir(), 'petstore-first-look-'));
    const run = await runInProcess(
      [
        '--base-url',
        server.url,
        '--only',
        'VERSION-V1-PREFIX,ANY-NO-5XX,CREATE-OK',
        '--report-dir',
        reportDir,
      ],
      { timeoutMs: 60_000 },
    );
    const summary = readJson(path.join(reportDir, 'summary.json'));
    rmSync(reportDir, { recursive: true, force: true });
    expect(run.code, failMessage(run)).toBe(1);
    const results = new Map<string, { status: string; blockedBy?: string[] }>(
      summary.results.map((r: { id: string }) => [r.id, r]),
    );
    expect(results.get('VERSION-V1-PREFIX')?.status).toBe('failed');
    for (const id of ['ANY-NO-5XX', 'CREATE-OK'])
      expect(results.get(id), id).toMatchObject({ status: 'skipped', blockedBy: ['VERSION-V1-PREFIX'] });
  });
});

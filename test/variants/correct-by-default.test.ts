/**
 * Servers correct by default that are lenient where a SHOULD asks otherwise (issue 37): Python's
 * json.loads reading NaN, Go's json.Decoder ignoring what follows the first value, FastAPI reading
 * limit=%205 as 5. The variants test runs every variant with --strict, where each fails its one SHOULD
 * and is declared so; here each is run as a default run is, without --strict: CONFORMANT, exit 0, that
 * SHOULD the only requirement failed.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { packageRoot } from '../../catalog/paths.ts';
import { failMessage, runInProcess } from '../helpers/cli.ts';
import { variants } from './index.ts';
import { reference } from './servers/reference.ts';
import { headAsGet } from './servers/wrap.ts';

/** Each, and the one SHOULD it fails. */
const CORRECT_BY_DEFAULT = [
  ['json-nan-read', 'CREATE-JSON-EXTENSION-REFUSED'],
  ['json-first-value', 'CREATE-JSON-EXTENSION-REFUSED'],
  ['limit-white-space-trimmed', 'LIST-LIMIT-PADDED-REFUSED'],
] as const;

interface Outcome {
  code: number | null;
  message: string;
  verdict: string;
  failed: { id: string; level: string }[];
}

const outcomes = new Map<string, Outcome>();
let work = '';

beforeAll(async () => {
  if (!existsSync(path.join(packageRoot(), 'dist', 'cli', 'main.js')))
    throw new Error('dist/ is missing: run `npm run build` first (npm test does it)');
  work = await mkdtemp(path.join(tmpdir(), 'petstore-correct-by-default-'));
  for (const [name] of CORRECT_BY_DEFAULT) {
    const variant = variants.find((v) => v.name === name);
    if (!variant || !('wrap' in variant.server) || !variant.server.wrap)
      throw new Error(`no variant ${name}`);
    const server = await reference({ wrap: headAsGet(variant.server.wrap) });
    const reportDir = path.join(work, name);
    try {
      const run = await runInProcess(
        ['--base-url', server.url, '--seed', '20261122', '--report-dir', reportDir],
        {
          timeoutMs: 120_000,
        },
      );
      const summary = JSON.parse(await readFile(path.join(reportDir, 'summary.json'), 'utf8'));
      outcomes.set(name, {
        code: run.code,
        message: failMessage(run),
        verdict: summary.verdict,
        failed: summary.results
          .filter((r: { status: string }) => r.status === 'failed')
          .map((r: { id: string; level: string }) => ({ id: r.id, level: r.level })),
      });
    } finally {
      await server.close();
    }
  }
}, 300_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('servers correct by default, lenient where a SHOULD asks otherwise', () => {
  test.each(CORRECT_BY_DEFAULT)('%s is conformant without --strict, failing %s alone', (name, id) => {
    const o = outcomes.get(name)!;
    expect(o.code, o.message).toBe(0);
    expect(o.verdict).toBe('conformant');
    expect(o.failed).toEqual([{ id, level: 'SHOULD' }]);
  });
});

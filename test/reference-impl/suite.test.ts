/**
 * The suite and the reference agree on sizes: whatever the reference accepts, the suite can list
 * back. The reference is filled with pets at its size cap, then the real command runs against it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { MAX_BODY_BYTES } from '../../reference-impl/index.ts';
import { build, runInProcess } from '../helpers/cli.ts';
import { serverForBlock } from '../helpers/servers.ts';
import { call, createPet, petOfSize } from './helpers.ts';

beforeAll(build, 150_000);

describe('the suite against a reference holding pets at the body limit', () => {
  const ref = serverForBlock();

  test('the first page is 100 pets at the cap, and the command still finds the reference CONFORMANT', async () => {
    // Pets at the body limit, written so that they take the most bytes on the wire (two-byte characters
    // cost nothing more here: the limit counts UTF-8 bytes).
    for (let id = 1; id <= 120; id++) {
      const res = await createPet(ref.base, petOfSize(id, MAX_BODY_BYTES, id % 2 === 0));
      expect(res.status).toBe(201);
    }
    const page = await call(ref.base, 'GET', '/pets');
    expect(Number(page.headers['content-length'])).toBe(100 * MAX_BODY_BYTES + 101);

    const reportDir = mkdtempSync(path.join(tmpdir(), 'reference-suite-'));
    try {
      const run = await runInProcess(['--base-url', ref.base, '--report-dir', reportDir], {
        timeoutMs: 90_000,
      });
      expect(run.stdout).toContain('CONFORMANT');
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    } finally {
      rmSync(reportDir, { recursive: true, force: true });
    }
  }, 120_000);
});

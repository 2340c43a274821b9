// The reference's handler mounted on node:http's createServer with its defaults, as an implementer
// mounts an app of their own (reference-impl/index.ts says how): no 'connect' listener, so node:http
// closes the connection of a CONNECT without an answer. That closing is the server's refusal of a
// tunnel it does not open: the run is CONFORMANT with --strict, and the closed connection is neither
// a failure of ANY-METHOD-UNDEFINED nor a sign of the server's capacity.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createReferenceHandler } from '../../reference-impl/index.ts';
import { build, type CliResult, failMessage, type Json, readJson, runInProcess } from '../helpers/cli.ts';

let work = '';
let server: Server | undefined;
let run: CliResult;
let summary: Json;

beforeAll(async () => {
  await build();
  work = await mkdtemp(path.join(tmpdir(), 'petstore-conformance-plain-'));
  server = createServer(await createReferenceHandler());
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const dir = path.join(work, 'run');
  run = await runInProcess(['--base-url', `http://127.0.0.1:${port}/v1`, '--strict', '--report-dir', dir], {
    timeoutMs: 120_000,
  });
  summary = readJson(path.join(dir, 'summary.json'));
}, 180_000);

afterAll(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  if (work) await rm(work, { recursive: true, force: true });
});

describe("node:http's createServer with its defaults (no 'connect' listener)", () => {
  test('is CONFORMANT with --strict', () => {
    expect(run.code, failMessage(run)).toBe(0);
    expect(summary.results.filter((r: Json) => r.status === 'failed')).toEqual([]);
  });

  test('a CONNECT it closes without an answer is its refusal, not a sign of its capacity', () => {
    expect(summary.results.find((r: Json) => r.id === 'ANY-METHOD-UNDEFINED').status).toBe('passed');
    expect(summary.limits?.concurrency, failMessage(run)).toBeUndefined();
  });
});

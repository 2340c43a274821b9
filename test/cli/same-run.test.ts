// The same run on every machine: the same seed, options and target send the same requests and
// create the same pets whatever the cores. Default runs with one seed, each against a reference of
// its own that counts what it receives: one as this machine is, one in a process shown 16 cores
// (test/cli/fixtures/cores.mjs, as a large CI runner; two workers there once split the model and
// created half as many pets again), and two in this process through main(), the second on the
// suites' thread the first left (cli/run/suites.ts keeps it: a run costs a third less CPU then), as a
// program that runs the command more than once does. And exchanges.har holds every exchange of the run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReferenceServer } from '../../reference-impl/index.ts';
import {
  BIN,
  build,
  type CliResult,
  type Json,
  ROOT,
  readJson,
  runCli,
  runInProcess,
} from '../helpers/cli.ts';

const SEED = '20261128';
const work = mkdtempSync(path.join(tmpdir(), 'petstore-conformance-same-run-'));

interface Run {
  readonly cli: CliResult;
  /** Every request the reference received: "GET /v1/pets?limit=101". */
  readonly received: readonly string[];
  readonly entries: readonly Json[];
}

/**
 * A default run with SEED and --har against a reference of its own: in a process of its own shown
 * `cores` cores, or in this process when `cores` is 'in process'.
 */
async function runOn(name: string, cores: number | 'in process'): Promise<Run> {
  const received: string[] = [];
  const server = await startReferenceServer({
    port: 0,
    host: '127.0.0.1',
    // Room for the 64 KiB target and the 16 KiB header ANY-NO-5XX sends, which node:http would
    // answer 431 itself, before the wrap that records them.
    maxHeaderSize: 256 * 1024,
    wrap: (handler) => (req, res) => {
      received.push(targetOf(String(req.method), String(req.url)));
      handler(req, res);
    },
  });
  const reportDir = path.join(work, name);
  try {
    const args = ['--seed', SEED, '--har', '--base-url', server.url, '--report-dir', reportDir];
    const cli =
      cores === 'in process'
        ? await runInProcess(args, { timeoutMs: 120_000 })
        : await runCli(args, {
            timeoutMs: 120_000,
            command: [process.execPath, '--import', path.join(ROOT, 'test/cli/fixtures/cores.mjs'), BIN],
            env: { PETSTORE_TEST_CORES: String(cores) },
          });
    return { cli, received, entries: readJson(path.join(reportDir, 'exchanges.har')).log.entries };
  } finally {
    await server.close();
  }
}

/**
 * A request as both sides can name it: method, path and query. A CONNECT's target is a host and port
 * (authority form), not a path, which the HAR's URL cannot hold: named by its method alone.
 */
function targetOf(method: string, pathAndQuery: string): string {
  return method === 'CONNECT' ? 'CONNECT (authority form)' : `${method} ${pathAndQuery}`;
}

let here: Run;
let again: Run;
let sixteen: Run;

beforeAll(async () => {
  await build();
  here = await runOn('here', 'in process');
  again = await runOn('again', 'in process');
  sixteen = await runOn('sixteen-cores', 16);
}, 300_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A request as the HAR holds it: method, path and query, body. */
function sent(e: Json): string {
  const url = new URL(e.request.url);
  const text: string = e.request.postData?.text ?? '';
  const body = e.request._encoding === 'base64' ? Buffer.from(text, 'base64').toString('latin1') : text;
  return `${e.request.method} ${url.pathname}${url.search} ${body}`;
}

/**
 * The requests of a run, sorted, with what is fresh in every run made alike: the run's id (in the
 * tag of the pets it creates) and the pet ids, drawn from fresh randomness (never below 2^40, so
 * 13 digits or more), in paths and bodies alike.
 */
function normalised(run: Run): string[] {
  const runId = JSON.stringify(run.entries).match(/petstore-conformance ([0-9a-f]{8})/)?.[1];
  expect(runId, 'the run tags its pets with its id').toBeDefined();
  return run.entries
    .map((e) => {
      const request = sent(e)
        .replaceAll(runId!, '<run>')
        .replace(/-?\d{13,}/g, '<id>');
      // A body the HAR keeps only the first 64 KiB of: where the cut falls depends on how many digits
      // the fresh id before it has (13 to 16), so only its first kilobyte is compared.
      return e.request._truncated ? `${request.slice(0, 1024)}… (cut)` : request;
    })
    .sort();
}

const creates = (run: Run) =>
  run.entries.filter(
    (e) => e._operation === 'POST /pets' && e.response.status >= 200 && e.response.status < 300,
  ).length;

describe('the same seed against the reference', () => {
  test('every run is conformant', () => {
    for (const run of [here, again, sixteen])
      expect(run.cli.code, `${run.cli.stdout}\n${run.cli.stderr}`).toBe(0);
  });

  test('exchanges.har holds every request the reference received (its reachability probe aside)', () => {
    for (const run of [here, again, sixteen]) {
      expect(run.received[0]).toBe('GET /v1');
      const har = run.entries.map((e) => {
        const url = new URL(e.request.url);
        return targetOf(e.request.method, `${url.pathname}${url.search}`);
      });
      expect(har.length).toBe(run.received.length - 1);
      expect([...har].sort()).toEqual(run.received.slice(1).sort());
    }
  });

  test('sends the same requests and creates the same number of pets on this machine and on 16 cores', () => {
    expectSameRequests(here, sixteen);
  });

  test('a second run in the same process, on the suites thread the first left, sends the same requests', () => {
    expectSameRequests(here, again);
  });
});

function expectSameRequests(one: Run, other: Run): void {
  expect(other.entries.length).toBe(one.entries.length);
  expect(creates(other)).toBe(creates(one));
  // The requests only one of the runs sent, each shortened (a body of 4 MiB is among them).
  const a = normalised(one);
  const b = normalised(other);
  const only = (x: string[], y: string[]) =>
    x.filter((r) => !y.includes(r)).map((r) => (r.length > 300 ? `${r.slice(0, 300)}…` : r));
  expect({ onlyInOne: only(a, b), onlyInTheOther: only(b, a) }).toEqual({
    onlyInOne: [],
    onlyInTheOther: [],
  });
  expect(b).toEqual(a);
}

// A small server as an implementer writes it (test/servers/python/petstore.py: Python's
// http.server with its own defaults, a listen backlog of 5 and HTTP/1.0) takes only a few
// connections at once. The run meets that as it meets a rate limit (suites/harness/http/capacity.ts):
// judged as with a low --concurrency, CONFORMANT every run against one long-lived server, saying the
// concurrency it came down to. (How long that takes beside --concurrency 4 is a speed figure, for a
// benchmark, not a timed test.) The same server with
// room (backlog 256, HTTP/1.1) is conformant without coming down; and with a fault of its connection
// (a body left unread on a kept-alive connection) the run names ANY-HTTP-MESSAGE, never another check.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { build, type CliResult, failMessage, type Json, readJson, runCli } from '../helpers/cli.ts';
import { unreproduced } from '../helpers/lived.ts';
import { PYTHON, pythonFound, startPythonPetstore } from '../servers/python/petstore.ts';

const found = pythonFound();
const onCi = process.env.CI === 'true' || process.env.CI === '1';
const missing = `${PYTHON} not found (apt-get install python3, or set PYTHON): the small server was not run`;

let work = '';
interface Run {
  readonly result: CliResult;
  readonly summary: Json;
}
/** --concurrency 4, then three runs by default and three with --strict, one after another. */
const small: Run[] = [];
let roomy: Run | undefined;
/** The roomy server with a fault of its connections: a 405's body left unread on a kept-alive one. */
let leaving: Run | undefined;
/** Its failures' reproduce lines that, pasted into sh against it, did not show the failure. */
let leavingReplays: string[] = [];

/** A run against `url`, and its summary. */
async function judge(url: string, name: string, args: readonly string[]): Promise<Run> {
  const dir = path.join(work, name);
  const result = await runCli(['--base-url', url, '--report-dir', dir, ...args], { timeoutMs: 180_000 });
  const summary = readJson(path.join(dir, 'summary.json'));
  return { result, summary };
}

beforeAll(async () => {
  if (!found) return;
  await build();
  work = await mkdtemp(path.join(tmpdir(), 'petstore-conformance-small-'));
  const server = await startPythonPetstore();
  try {
    small.push(await judge(server.url, 'c4', ['--strict', '--concurrency', '4']));
    for (const [i, args] of [[], [], [], ['--strict'], ['--strict'], ['--strict']].entries())
      small.push(await judge(server.url, `run-${i + 1}`, args));
  } finally {
    await server.close();
  }
  const spacious = await startPythonPetstore({ backlog: 256, http11: true });
  try {
    roomy = await judge(spacious.url, 'roomy', ['--strict']);
  } finally {
    await spacious.close();
  }
  const faulty = await startPythonPetstore({ backlog: 256, http11: true, leaveBodyUnread: true });
  try {
    leaving = await judge(faulty.url, 'leaving', ['--strict']);
    leavingReplays = await unreproduced(leaving.summary);
  } finally {
    await faulty.close();
  }
}, 1_500_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe("Python's http.server with its defaults (backlog 5, HTTP/1.0), one long-lived server", () => {
  test('python3 is there to run it (required under CI=true)', (ctx) => {
    if (!found && !onCi) ctx.skip(missing);
    expect(found, `CI=true: ${missing}`).toBe(true);
  });

  test.runIf(found)('is conformant with --concurrency 4', () => {
    expect(small[0]!.result.code, failMessage(small[0]!.result)).toBe(0);
  });

  test.runIf(found)(
    'is CONFORMANT on each of six runs in a row, three by default and three with --strict',
    () => {
      for (const run of small.slice(1)) {
        expect(run.result.code, failMessage(run.result)).toBe(0);
        expect(run.summary.verdict).toBe('conformant');
        expect(run.summary.results.filter((r: Json) => r.status === 'failed')).toEqual([]);
      }
    },
  );

  test.runIf(found)('says the concurrency the run came down to, in one line and in summary.json', () => {
    for (const run of small.slice(1)) {
      const concurrency = run.summary.limits?.concurrency;
      expect(concurrency, failMessage(run.result)).toBeDefined();
      expect(concurrency.from).toBe(128);
      expect(concurrency.to).toBeLessThanOrEqual(16);
      expect(
        run.result.stdout.match(
          /^(limits: +| +)concurrency down from 128 to \d+ requests at once: the deployment took no more/gm,
        ),
      ).toHaveLength(1);
    }
  });

  test.runIf(found)(
    'a body over its limit is answered 413 before the server reads it: that answer is read, every run',
    () => {
      for (const run of small.slice(1))
        expect(run.summary.results.find((r: Json) => r.id === 'CREATE-BODY-TOO-LARGE').status).toBe('passed');
    },
  );
});

describe('the same server with a backlog of 256 and HTTP/1.1', () => {
  test.runIf(found)('is CONFORMANT with --strict, at the concurrency it was given', () => {
    expect(roomy!.result.code, failMessage(roomy!.result)).toBe(0);
    expect(roomy!.summary.limits?.concurrency).toBeUndefined();
  });
});

describe('the same server leaving the body of a 405 unread on a kept-alive connection', () => {
  test.runIf(found)('fails ANY-HTTP-MESSAGE alone, naming both requests', () => {
    expect(leaving!.result.code, failMessage(leaving!.result)).toBe(1);
    const failed = leaving!.summary.results.filter((r: Json) => r.status === 'failed');
    expect(failed.map((r: Json) => r.id)).toEqual(['ANY-HTTP-MESSAGE']);
    expect(failed[0].received).toMatch(
      /^GET \/v1\/pets was answered \d{3} on the connection where PUT \/v1\/pets\/\d+ \(answered 405\) had left its body; sent alone on a new connection, it was answered 200/,
    );
  });

  test.runIf(found)('its reproduce line, pasted into sh against the server, shows the spoiled answer', () => {
    expect(leavingReplays).toEqual([]);
  });
});

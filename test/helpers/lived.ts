/**
 * A server that outlives the runs against it, as staging does: a variant of test/variants/ started
 * once in the test's process, and the real command run against it as many times as a test likes.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunningServer } from '../../reference-impl/index.ts';
import { variants } from '../variants/index.ts';
import { reference } from '../variants/servers/reference.ts';
import { headAsGet } from '../variants/servers/wrap.ts';
import type { Variant } from '../variants/variant.ts';
import { type CliResult, type Json, readJson, runInProcess } from './cli.ts';

/** The variant of that name (test/variants/index.ts); throws for a name it does not have. */
export function variantNamed(name: string): Variant {
  const v = variants.find((x) => x.name === name);
  if (!v) throw new Error(`no variant ${name}`);
  return v;
}

/** Starts a variant as the variants test does: HEAD served as its GET, on 127.0.0.1 and a free port. */
export async function startLived(
  variant: Variant,
): Promise<RunningServer | { url: string; close(): Promise<void> }> {
  if ('hostile' in variant.server) return variant.server.hostile();
  const { wrap } = variant.server;
  return reference({ ...variant.server, ...(wrap ? { wrap: headAsGet(wrap) } : {}) });
}

/** One run's outcome: its exit status, summary.json, and the ids it failed and left blocked. */
export interface LivedRun {
  readonly cli: CliResult;
  readonly summary: Json;
  readonly reportDir: string;
  readonly failed: string[];
  readonly blocked: string[];
}

/** The ids of a summary's results in a status, sorted. */
export function idsOf(summary: Json, which: 'failed' | 'blocked'): string[] {
  const results: { id: string; status: string; blockedBy?: string[] }[] = summary?.results ?? [];
  return results
    .filter((r) => (which === 'failed' ? r.status === 'failed' : (r.blockedBy?.length ?? 0) > 0))
    .map((r) => r.id)
    .sort();
}

/** Runs the command once against `url` (--strict, the variants' seed unless args give another). */
export async function runAgainst(url: string, args: readonly string[] = []): Promise<LivedRun> {
  const reportDir = mkdtempSync(path.join(tmpdir(), 'petstore-lived-'));
  const cli = await runInProcess(
    ['--base-url', url, '--strict', '--seed', '20261122', '--report-dir', reportDir, ...args],
    { timeoutMs: 120_000 },
  );
  const file = path.join(reportDir, 'summary.json');
  const summary = existsSync(file) ? readJson(file) : undefined;
  return { cli, summary, reportDir, failed: idsOf(summary, 'failed'), blocked: idsOf(summary, 'blocked') };
}

/** The HTTP status a failure's `received` names: "404, …", "GET /v1/pets answered 500 …". */
export function statusOf(received: string | undefined): string | undefined {
  return (/\banswered (\d{3})\b/.exec(received ?? '') ?? /^(\d{3})\b/.exec(received ?? ''))?.[1];
}

/**
 * A reproduce line run as a person pastes it (sh -c, the key in PETSTORE_API_KEY), asynchronously:
 * the server it reaches may run in this process. Resolves to the status line of its last answer.
 */
export function replay(line: string, key = ''): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', line], {
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { PATH: process.env.PATH ?? '', PETSTORE_API_KEY: key },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      if (out.length < 256 * 1024) out += d.toString('utf8');
    });
    const killer = setTimeout(() => child.pid && process.kill(child.pid, 'SIGKILL'), 60_000);
    child.on('close', () => {
      clearTimeout(killer);
      resolve(
        (
          out
            .split('\n')
            .filter((l) => /^HTTP\/[\d.]+ \d{3}\b/.test(l))
            .at(-1) ?? ''
        ).trim(),
      );
    });
  });
}

/**
 * Every failed requirement's reproduce line, pasted into sh against the server: what is wrong with
 * them, [] when each shows the status its failure received, or, having none to show, says why in a
 * comment of its own.
 */
export async function unreproduced(summary: Json): Promise<string[]> {
  const wrong: string[] = [];
  const results: { id: string; status: string; received?: string; reproduce?: string }[] =
    summary?.results ?? [];
  for (const r of results.filter((x) => x.status === 'failed')) {
    const status = statusOf(r.received);
    if (r.reproduce === undefined) wrong.push(`${r.id}: no reproduce line`);
    else if (status === undefined) {
      if (!/#/.test(r.reproduce))
        wrong.push(`${r.id}: no status to show, and no comment saying why: ${r.reproduce}`);
    } else {
      const shown = await replay(r.reproduce);
      if (!new RegExp(`^HTTP/[\\d.]+ ${status}\\b`).test(shown))
        wrong.push(`${r.id}: expected ${status}, sh showed ${JSON.stringify(shown)}\n  ${r.reproduce}`);
    }
  }
  return wrong;
}

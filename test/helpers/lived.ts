/**
 * A server that outlives the runs against it, as staging does: a variant of test/variants/ started
 * once in the test's process, and the real command run against it as many times as a test likes.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunningServer } from '../../reference-impl/index.ts';
import { variants } from '../variants/index.ts';
import { reference } from '../variants/servers/reference.ts';
import { headAsGet } from '../variants/servers/wrap.ts';
import type { Variant } from '../variants/variant.ts';
import { type CliResult, type Json, readJson, runCli } from './cli.ts';

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
  const cli = await runCli(
    ['--base-url', url, '--strict', '--seed', '20261122', '--report-dir', reportDir, ...args],
    { timeoutMs: 120_000 },
  );
  const file = path.join(reportDir, 'summary.json');
  const summary = existsSync(file) ? readJson(file) : undefined;
  return { cli, summary, reportDir, failed: idsOf(summary, 'failed'), blocked: idsOf(summary, 'blocked') };
}

/**
 * Stage 6 of a run, its one way out: the run's record, judged or not, through every writer
 * (reports/writers.ts) into the report folder and onto the console. The exit status follows from
 * the record alone.
 */
import { oneLine, stopReason } from '../record/errors.ts';
import { cannotJudgeRecord, exitOf, type RunRecord } from '../record/record.ts';
import type { Outlet, Writer } from '../reports/writer.ts';

let writers: Promise<readonly Writer[]> | undefined;

/**
 * The writers (reports/writers.ts), loaded once, on first use: a run that judges loads them while its
 * checks run (run.ts), so that the command's start, which vitest's loading waits for, does without
 * their thirty-odd modules.
 */
export function loadWriters(): Promise<readonly Writer[]> {
  writers ??= import('../reports/writers.ts').then((m) => m.WRITERS);
  return writers;
}

/** Publishes the record; resolves to the run's exit status. */
export async function publish(record: RunRecord, outlet: Outlet): Promise<number> {
  outlet.folder?.clear();
  let failed = false;
  for (const writer of await loadWriters()) {
    try {
      await writer.write(record, outlet);
    } catch (error) {
      // A run whose reports cannot be written could not judge after all: that record is published.
      if (record.error === undefined) return publish(unpublished(record, error), outlet);
      if (!failed)
        outlet.console.warn(`could not write the could-not-judge report: ${oneLine(String(error))}`);
      failed = true;
    }
  }
  await outlet.folder?.settled();
  return exitOf(record);
}

/** The record of a judged run whose publishing failed with `error`. */
function unpublished(record: RunRecord, error: unknown): RunRecord {
  return cannotJudgeRecord({
    version: record.version,
    target: record.target,
    targetFrom: record.targetFrom,
    startedAt: record.startedAt,
    config: record.config,
    ...stopReason(error),
    ...(record.checks ? { requirements: record.checks.catalog.requirements } : {}),
    ...(record.exchanges === undefined ? {} : { exchanges: record.exchanges }),
    ...(record.pace === undefined ? {} : { pace: record.pace }),
    ...(record.configFile === undefined ? {} : { configFile: record.configFile }),
  });
}

/**
 * The pace's report, handed to the CLI: what the deployment's limits cost the run (pace.ts
 * PaceReport), written by the worker to a file in the run's staging folder each time a check ends
 * (requirement.ts), whole, replacing the one before, and read by the CLI once vitest has ended
 * (cli/record/pace.ts). Written synchronously, as the exchange log is: what is in the file when a
 * check ends is there whatever happens next.
 */
import { writeFileSync } from 'node:fs';
import type { PaceReport } from './pace.ts';

/** The key in vitest's provide/inject under which the CLI hands the worker the report's settings. */
export const PACE_REPORT_KEY = 'petstoreConformancePaceReport' as const;

export interface PaceReportSettings {
  /** The file the worker writes the report to. */
  readonly file: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    [PACE_REPORT_KEY]?: PaceReportSettings;
  }
}

/**
 * Writes the pace's report to the settings' file once the deployment limited the run, and then each
 * time it changed; none without settings. A run stopped meanwhile may have taken its staging folder
 * away: the report is then nobody's, and not written.
 */
export function paceReportSink(
  settings: PaceReportSettings | undefined,
): { write(report: PaceReport): void } | undefined {
  if (settings === undefined) return undefined;
  let last = '';
  return {
    write(report) {
      if (report.refusals === 0 && !report.capacity && !report.declared) return;
      const text = JSON.stringify(report);
      if (text === last) return;
      try {
        writeFileSync(settings.file, text);
        last = text;
      } catch {
        // The run's staging folder is gone: the run stopped.
      }
    },
  };
}

/**
 * What every output of a run is: a writer of its record. The report documents, the Allure results
 * and report, the console's end of the run and the GitHub annotations are each one, in a file of
 * its own, registered in reports/writers.ts: a new format is one new file and one line there.
 */
import type { Paint } from '../console/terminal.ts';
import type { RunRecord } from '../record/record.ts';
import type { ReportFolder } from './folder.ts';

/**
 * What the run prints on: the run's own lines, written as they are (what they quote of a server was
 * masked where it entered the run).
 */
export interface Console {
  readonly p: Paint;
  /** The terminal's width, 60 to 120 columns. */
  readonly width: number;
  out(line?: string): void;
  err(line: string): void;
  /** `warning: …` on stderr. */
  warn(line: string): void;
}

/** Where the writers of a run write, and what the options ask of them. */
export interface Outlet {
  /** The report folder; none when the run may not write into the folder it was given. */
  readonly folder?: ReportFolder;
  readonly console: Console;
  /** --html: render the Allure HTML report. */
  readonly html: boolean;
  /** --annotations github (or GITHUB_ACTIONS=true): GitHub workflow commands on stdout. */
  readonly annotations: boolean;
  /** Write exchanges.har; on unless false (--no-har). */
  readonly har?: boolean;
  /** --events: the run's event stream (reports/events.ts), which the record ends. */
  readonly events?: RunEvents;
}

/** The end of a run's event stream: its requirements' verdicts and run-end, from the record. */
export interface RunEvents {
  end(record: RunRecord, info: { readonly html: boolean; readonly har: boolean }): void;
}

export interface Writer {
  /** What it writes, as a reader knows it: "summary.json", "the console". */
  readonly name: string;
  /**
   * Writes its part of the record, judged or not (`record.error`): files through `outlet.folder`,
   * lines through `outlet.console`. A writer with nothing to say for a record writes nothing.
   */
  write(record: RunRecord, outlet: Outlet): void | Promise<void>;
}

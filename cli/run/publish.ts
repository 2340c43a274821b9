/**
 * Stage 6 of a run: publishing. The one writer of a run's reports, for a run that judged and for
 * one that could not: summary.json and summary.md always, and for a judged run junit.xml, the
 * Allure results and (--html) the Allure report. Every byte goes through the run's redactor
 * (write.ts). The console's own lines are console.ts's.
 */
import path from 'node:path';
import type { Catalog } from '../../catalog/catalog.ts';
import type { RunRecord } from '../record/record.ts';
import type { TestOutcome } from '../record/rollup.ts';
import { prepareAllureResults, previousStatuses } from '../reports/allure.ts';
import { HISTORY_FILE, redactTree, rotateReportDir, writeReports } from '../reports/folder.ts';
import { renderHtml } from '../reports/html.ts';
import { junitXml } from '../reports/junit.ts';
import type { Redactor } from '../reports/redact.ts';
import { summaryJson } from '../reports/summary-json.ts';
import { summaryMarkdown } from '../reports/summary-md.ts';

/**
 * The report folder of a run. It is cleared (the previous run's reports moved beside it) once,
 * when the checks start or, for a run that stops earlier, when its could-not-judge reports are
 * written: the folder never shows a stale verdict.
 */
export class ReportFolder {
  private cleared = false;

  constructor(
    /** Absolute. */
    readonly dir: string,
    /** Absolute: where the previous run's reports go. */
    readonly previousDir: string,
    private readonly redactor: Redactor,
    /** The working folder: paths are shown relative to it. */
    private readonly cwd: string,
  ) {}

  /** The folder as the user would type it. */
  get shown(): string {
    return displayPath(this.dir, this.cwd);
  }

  /** Moves the previous run's reports aside; once per run. */
  clear(): void {
    if (this.cleared) return;
    rotateReportDir(this.dir, this.previousDir);
    this.cleared = true;
  }

  /**
   * Writes every report of the run; returns the files written, relative to the folder. A record
   * with `error` (the run could not judge) gets summary.json and summary.md only.
   */
  async publish(
    record: RunRecord,
    extras: {
      /** The Allure reporter's staging folder. */
      readonly allureResultsDir?: string;
      /**
       * What turns the staged results into one Allure result per requirement (cli/reports/allure.ts): the
       * catalog and the vitest outcomes. Without them the staged results are copied as they are.
       */
      readonly allure?: {
        readonly catalog: Pick<Catalog, 'requirements' | 'unspecified'>;
        readonly outcomes: readonly TestOutcome[];
      };
      /** Render the Allure HTML report (--html). */
      readonly html?: boolean;
      /** Progress and problems of the HTML rendering. */
      readonly say?: (line: string) => void;
      readonly warn?: (line: string) => void;
    } = {},
  ): Promise<string[]> {
    this.clear();
    const judged = record.error === undefined;
    // One Allure result per requirement, before the results are copied through the redactor.
    if (judged && extras.allureResultsDir && extras.allure) {
      prepareAllureResults(extras.allureResultsDir, {
        record,
        ...extras.allure,
        previous: previousStatuses(path.join(this.dir, HISTORY_FILE)),
      });
    }
    const files = [
      { name: 'summary.json', content: summaryJson(record) },
      ...(judged ? [{ name: 'junit.xml', content: junitXml(record) }] : []),
      { name: 'summary.md', content: summaryMarkdown(record, this.shown) },
    ];
    const written = writeReports(
      this.dir,
      files,
      judged ? extras.allureResultsDir : undefined,
      this.redactor,
    );
    if (judged && extras.html) {
      extras.say?.('rendering the Allure HTML report…');
      const problem = await renderHtml(this.dir, { record, redactor: this.redactor });
      if (problem === undefined) {
        redactTree(path.join(this.dir, 'allure-report'), this.redactor);
        written.push('allure-report/index.html');
      } else {
        extras.warn?.(`--html: no HTML report: ${problem}`);
      }
    }
    return written;
  }
}

/** A path as the user would type it: relative to the working folder when inside it. */
export function displayPath(file: string, cwd: string): string {
  const relative = path.relative(cwd, file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}

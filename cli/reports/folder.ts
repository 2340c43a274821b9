/**
 * The one place that writes reports. Every byte goes through the run's redactor: the report
 * documents, and the Allure results the reporter wrote into a private staging folder.
 */
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { CannotJudgeError, oneLine } from '../record/errors.ts';
import type { Redactor } from './redact.ts';

/**
 * The Allure history of the runs into a report folder (one JSON line per --html run, the last
 * html.HISTORY_LIMIT kept), written by Allure when it renders the report and carried over on rotation.
 */
export const HISTORY_FILE = 'allure-history.jsonl';

/**
 * Moves the previous run's reports beside the report folder (reports/latest → reports/previous),
 * replacing the run before it, and carries the Allure history over into the new report folder, so
 * that the next report shows each requirement's trend. checkReportDirs (below) has made sure both
 * folders hold only reports.
 */
export function rotateReportDir(reportDir: string, previousReportDir: string): void {
  if (!existsSync(reportDir)) return;
  rmSync(previousReportDir, { recursive: true, force: true });
  if (readdirSync(reportDir).length === 0) return;
  renameSync(reportDir, previousReportDir);
  const history = path.join(previousReportDir, HISTORY_FILE);
  if (existsSync(history)) {
    mkdirSync(reportDir, { recursive: true });
    copyFileSync(history, path.join(reportDir, HISTORY_FILE));
  }
}

export interface ReportFile {
  /** Relative to the report folder. */
  readonly name: string;
  readonly content: string;
}

/** Writes the report documents and copies the Allure results, all redacted. Returns what it wrote. */
export function writeReports(
  reportDir: string,
  files: readonly ReportFile[],
  allureStagingDir: string | undefined,
  redactor: Redactor,
): string[] {
  mkdirSync(reportDir, { recursive: true });
  const written: string[] = [];
  for (const file of files) {
    writeFileSync(path.join(reportDir, file.name), redactor.bytes(Buffer.from(file.content, 'utf8')));
    written.push(file.name);
  }
  if (allureStagingDir && existsSync(allureStagingDir)) {
    copyRedacted(allureStagingDir, path.join(reportDir, 'allure-results'), redactor);
    written.push('allure-results/');
  }
  return written;
}

/** Copies a folder tree, each file through the redactor. */
export function copyRedacted(from: string, to: string, redactor: Redactor): void {
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from)) {
    const source = path.join(from, name);
    const target = path.join(to, name);
    if (statSync(source).isDirectory()) copyRedacted(source, target, redactor);
    else writeFileSync(target, redactor.bytes(readFileSync(source)));
  }
}

/** Redacts a folder tree in place (the rendered HTML report, made from already redacted results). */
export function redactTree(dir: string, redactor: Redactor): void {
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) {
      redactTree(file, redactor);
      continue;
    }
    const before = readFileSync(file);
    const after = redactor.bytes(before);
    if (after !== before && !after.equals(before)) writeFileSync(file, after);
  }
}

/** The files a run writes into its report folder; a folder holding anything else is not ours. */
export const REPORT_ENTRIES = new Set([
  'summary.json',
  'junit.xml',
  'summary.md',
  'allure-results',
  'allure-report',
  'allure-history.jsonl',
]);

/**
 * The report folder and the folder of the previous run are replaced by a run, so they must be
 * missing, empty, or hold only what a run writes: a typo must never move someone's files away.
 */
export function checkReportDirs(reportDir: string, previousReportDir: string): void {
  for (const dir of [reportDir, previousReportDir]) {
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw new CannotJudgeError(`--report-dir: cannot read ${dir}: ${oneLine(error)}`);
    }
    if (!stat.isDirectory()) throw new CannotJudgeError(`--report-dir: ${dir} exists and is not a folder`);
    const foreign = readdirSync(dir).filter((name) => !REPORT_ENTRIES.has(name));
    if (foreign.length > 0) {
      throw new CannotJudgeError(
        `--report-dir: ${dir} holds files this tool did not write (${foreign.slice(0, 3).join(', ')}); choose a new or empty folder`,
      );
    }
  }
}

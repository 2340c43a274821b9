/**
 * The one place that writes reports. Every byte goes through the run's redactor: the report
 * documents, and the Allure results the reporter wrote into a private staging folder.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import type { Redactor } from './redact.ts';

/**
 * The Allure history of the runs into a report folder (one JSON line per --html run, the last
 * html.HISTORY_LIMIT kept), written by Allure when it renders the report and carried over on rotation.
 */
export const HISTORY_FILE = 'allure-history.jsonl';

/**
 * Moves the previous run's reports beside the report folder (reports/latest → reports/previous),
 * replacing the run before it, and carries the Allure history over into the new report folder, so
 * that the next report shows each requirement's trend. preflight.checkReportDirs has made sure both
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

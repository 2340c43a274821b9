/**
 * The report folder: the one place that writes reports, as the writers give them. No secret is in
 * them: what the run shows was masked where each secret went or came back (suites/harness/evidence/redact.ts),
 * and nothing else is rewritten; the HTML report Allure renders from the results is taken in as it
 * is. A run replaces the folder, so the folder must hold nothing but what a run writes.
 */
import { copyFileSync, existsSync, lstatSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { makeDirs, whyNotCreatable } from '../record/dirs.ts';
import { CannotJudgeError, oneLine } from '../record/errors.ts';

/**
 * The Allure history of the runs into a report folder (one JSON line per --html run, the last
 * html.HISTORY_LIMIT kept), written by Allure when it renders the report and carried over on rotation.
 */
export const HISTORY_FILE = 'allure-history.jsonl';

/** What a rotation left of the run before the previous one (rotateReportDir). */
export interface Rotation {
  /** Removes what is left of it, through Node's thread pool; resolves once it is gone. */
  remove(): Promise<void>;
}

/**
 * Moves the previous run's reports beside the report folder (reports/latest → reports/previous),
 * replacing the run before it, and carries the Allure history over into the new report folder, so
 * that the next report shows each requirement's trend. checkReportDirs (below) has made sure both
 * folders hold only reports.
 *
 * The run before the previous one is renamed aside (`previous.removing`), and removed once the run
 * has written its reports (remove()), or as the process ends, whichever comes first.
 */
export function rotateReportDir(reportDir: string, previousReportDir: string): Rotation {
  const nothingAside: Rotation = { remove: () => Promise.resolve() };
  if (!existsSync(reportDir)) return nothingAside;
  const aside = setAside(previousReportDir);
  if (readdirSync(reportDir).length > 0) {
    renameSync(reportDir, previousReportDir);
    const history = path.join(previousReportDir, HISTORY_FILE);
    if (existsSync(history)) {
      makeDirs(reportDir);
      copyFileSync(history, path.join(reportDir, HISTORY_FILE));
    }
  }
  if (aside === undefined) return nothingAside;
  const now = () => rmSync(aside, { recursive: true, force: true });
  process.on('exit', now);
  let removing: Promise<void> | undefined;
  return {
    remove: () => {
      removing ??= removeInBackground(aside, now);
      return removing;
    },
  };
}

/** Renames a folder aside for removal: its new name, or undefined when there is no such folder. */
function setAside(dir: string): string | undefined {
  const aside = `${dir}.removing`;
  rmSync(aside, { recursive: true, force: true }); // left by a run that was killed while removing it
  try {
    renameSync(dir, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return aside;
}

function removeInBackground(dir: string, now: () => void): Promise<void> {
  return rm(dir, { recursive: true, force: true })
    .catch(() => undefined) // tried again, at once, as the process ends
    .then(() => {
      if (!existsSync(dir)) process.off('exit', now);
    });
}

/**
 * The report folder of a run: the one place that writes reports. It is cleared (the previous run's reports moved beside it) once, when the checks start
 * or, for a run that stops earlier, when its record is published: the folder never shows a stale
 * verdict. It lists what was written, in order, for the console's last line.
 */
export class ReportFolder {
  private cleared = false;
  /** What clear() left of the run before the previous one, to remove once the reports are written. */
  private rotation: Rotation | undefined;
  private readonly files: string[] = [];

  constructor(
    /** Absolute. */
    readonly dir: string,
    /** Absolute: where the previous run's reports go. */
    readonly previousDir: string,
    /** The working folder: paths are shown relative to it. */
    private readonly cwd: string,
  ) {}

  /**
   * The report folder of a run, once both folders are known to take reports (checkReportDirs):
   * a folder a run may not write into gets no report, not even a could-not-judge one.
   */
  static open(reportDir: string, previousReportDir: string, cwd: string): ReportFolder {
    const folder = new ReportFolder(reportDir, previousReportDir, cwd);
    checkReportDirs(reportDir, previousReportDir);
    return folder;
  }

  /** The folder as the user would type it. */
  get shown(): string {
    return displayPath(this.dir, this.cwd);
  }

  /** What was written so far, relative to the folder ("allure-results/" for a folder). */
  get written(): readonly string[] {
    return this.files;
  }

  /** Moves the previous run's reports aside; once per run. */
  clear(): void {
    if (this.cleared) return;
    this.rotation = rotateReportDir(this.dir, this.previousDir);
    this.cleared = true;
  }

  /**
   * Once every report is written: removes what is left of the run before the previous one, through
   * Node's thread pool, and resolves when it is gone.
   */
  settled(): Promise<void> {
    return this.rotation?.remove() ?? Promise.resolve();
  }

  /** Writes a report document. */
  write(name: string, content: string | Uint8Array): void {
    this.writeFile(this.dir, name, content);
    this.files.push(name);
  }

  /** Writes a file into the sub-folder `sub` (allure-results); the sub-folder is listed once. */
  writeIn(sub: string, name: string, content: string | Uint8Array): void {
    this.writeFile(path.join(this.dir, sub), name, content);
    if (!this.files.includes(`${sub}/`)) this.files.push(`${sub}/`);
  }

  /**
   * Takes in what another program wrote into the folder from the run's reports (Allure's HTML
   * report), listed as `shown`.
   */
  adopt(shown: string): void {
    this.files.push(shown);
  }

  /** A new file (or one of the run's own written again). */
  private writeFile(dir: string, name: string, content: string | Uint8Array): void {
    makeDirs(dir);
    const bytes =
      typeof content === 'string'
        ? Buffer.from(content, 'utf8')
        : Buffer.from(content.buffer, content.byteOffset, content.byteLength);
    writeFileSync(path.join(dir, name), bytes);
  }
}

/** A path as the user would type it: relative to the working folder when inside it. */
export function displayPath(file: string, cwd: string): string {
  const relative = path.relative(cwd, file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}

/** The files a run writes into its report folder; a folder holding anything else is not ours. */
export const REPORT_ENTRIES = new Set([
  'summary.json',
  'junit.xml',
  'summary.md',
  'allure-results',
  'allure-report',
  'allure-history.jsonl',
  'exchanges.har',
  'ctrf-report.json',
  'reproduce.sh',
]);

/**
 * The report folder and the folder of the previous run are replaced by a run, so they must be
 * missing, empty, or hold only what a run writes: a typo must never move someone's files away. A
 * missing one must be one the run can create: the folder above it takes new folders (a folder of
 * /proc does not).
 */
function checkReportDirs(reportDir: string, previousReportDir: string): void {
  for (const dir of [reportDir, previousReportDir]) {
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(dir);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') {
        const why = whyNotCreatable(dir);
        if (why !== undefined) throw new CannotJudgeError(`--report-dir: cannot create ${dir}: ${why}`);
        continue;
      }
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

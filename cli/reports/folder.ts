/**
 * The report folder: the one place that writes reports. Every byte goes through the run's
 * redactor: the report documents, the Allure results the reporter wrote into a private staging
 * folder, and the HTML report Allure renders from them. A run replaces the folder, so the folder
 * must hold nothing but what a run writes.
 */
import {
  copyFileSync,
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeDirs, whyNotCreatable } from '../record/dirs.ts';
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
 *
 * The run before the previous one is renamed aside (`previous.removing`) and removed through
 * Node's thread pool: removing its hundreds of Allure files one by one held the run's start by
 * about 20 ms. The promise settles when it is gone; should the process end first, it is removed
 * then.
 */
export function rotateReportDir(reportDir: string, previousReportDir: string): Promise<void> {
  if (!existsSync(reportDir)) return Promise.resolve();
  const aside = setAside(previousReportDir);
  if (readdirSync(reportDir).length > 0) {
    renameSync(reportDir, previousReportDir);
    const history = path.join(previousReportDir, HISTORY_FILE);
    if (existsSync(history)) {
      makeDirs(reportDir);
      copyFileSync(history, path.join(reportDir, HISTORY_FILE));
    }
  }
  return aside === undefined ? Promise.resolve() : removeInBackground(aside);
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

function removeInBackground(dir: string): Promise<void> {
  const now = () => rmSync(dir, { recursive: true, force: true });
  process.on('exit', now);
  return rm(dir, { recursive: true, force: true })
    .catch(() => undefined) // tried again, at once, as the process ends
    .then(() => {
      if (!existsSync(dir)) process.off('exit', now);
    });
}

/**
 * The report folder of a run: the one place that writes reports, every byte through the run's
 * redactor. It is cleared (the previous run's reports moved beside it) once, when the checks start
 * or, for a run that stops earlier, when its record is published: the folder never shows a stale
 * verdict. It lists what was written, in order, for the console's last line.
 */
export class ReportFolder {
  private cleared = false;
  /** The removal of the run before the previous one (rotateReportDir), once cleared. */
  private removing: Promise<void> = Promise.resolve();
  private readonly files: string[] = [];
  /** Files written ahead into a sub-folder (writeAhead), by sub-folder: name → the bytes given, and the writes. */
  private readonly ahead = new Map<string, { written: Map<string, Buffer>; pending: Promise<void>[] }>();
  /** Removes what was written ahead should the process end before it is published or discarded. */
  private readonly onExit = () => {
    for (const name of this.ahead.keys()) rmSync(path.join(this.dir, name), { recursive: true, force: true });
  };

  constructor(
    /** Absolute. */
    readonly dir: string,
    /** Absolute: where the previous run's reports go. */
    readonly previousDir: string,
    readonly redactor: Redactor,
    /** The working folder: paths are shown relative to it. */
    private readonly cwd: string,
  ) {}

  /**
   * The report folder of a run, once both folders are known to take reports (checkReportDirs):
   * a folder a run may not write into gets no report, not even a could-not-judge one.
   */
  static open(reportDir: string, previousReportDir: string, redactor: Redactor, cwd: string): ReportFolder {
    const folder = new ReportFolder(reportDir, previousReportDir, redactor, cwd);
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
    this.removing = rotateReportDir(this.dir, this.previousDir);
    this.cleared = true;
  }

  /** Resolves once what clear() left to Node's thread pool is done: the run publishes after it. */
  settled(): Promise<void> {
    return this.removing;
  }

  /** Writes a report document, redacted. */
  write(name: string, content: string): void {
    makeDirs(this.dir);
    writeFileSync(path.join(this.dir, name), this.redactor.bytes(Buffer.from(content, 'utf8')));
    this.files.push(name);
  }

  /**
   * Writes files held in memory (a reporter's staged results, by name) in as `name`/, each redacted;
   * a file already written ahead with these very bytes is not written again (those written ahead
   * are waited for first).
   */
  async writeAll(files: ReadonlyMap<string, Buffer>, name: string): Promise<void> {
    const ahead = this.ahead.get(name);
    if (ahead) await Promise.all(ahead.pending);
    const to = path.join(this.dir, name);
    makeDirs(to);
    for (const [file, content] of files) {
      if (ahead?.written.get(file) === content) continue;
      const target = path.join(to, file);
      if (file.includes('/')) makeDirs(path.dirname(target));
      writeFileSync(target, this.redactor.bytes(content));
    }
    this.settle(name);
    this.files.push(`${name}/`);
  }

  /**
   * Writes files into `name`/ before the run publishes it, each redacted (the attachments of the
   * checks' results, as each check finishes: they do not change). The writes are left to Node's
   * thread pool, so that the main thread, which relays the checks' progress, is not held by them,
   * and the run's end no longer writes a file each. writeAll() then writes the rest; discard()
   * removes the sub-folder should the run publish none, as does the process's end before either.
   * Once cleared only. A file that cannot be written here is left to writeAll().
   */
  writeAhead(name: string, files: ReadonlyMap<string, Buffer>): void {
    if (!this.cleared || files.size === 0) return;
    let ahead = this.ahead.get(name);
    if (!ahead) {
      try {
        makeDirs(path.join(this.dir, name));
      } catch {
        return; // writeAll() says why
      }
      ahead = { written: new Map(), pending: [] };
      if (this.ahead.size === 0) process.on('exit', this.onExit);
      this.ahead.set(name, ahead);
    }
    const { written, pending } = ahead;
    for (const [file, content] of files) {
      if (file.includes('/')) continue;
      written.set(file, content);
      pending.push(
        writeFile(path.join(this.dir, name, file), this.redactor.bytes(content)).catch(() => {
          written.delete(file);
        }),
      );
    }
  }

  /** Removes what was written ahead into `name`/, for a run that publishes no `name`/. */
  async discard(name: string): Promise<void> {
    const ahead = this.ahead.get(name);
    if (!ahead) return;
    await Promise.all(ahead.pending);
    rmSync(path.join(this.dir, name), { recursive: true, force: true });
    this.settle(name);
  }

  private settle(name: string): void {
    if (!this.ahead.delete(name)) return;
    if (this.ahead.size === 0) process.off('exit', this.onExit);
  }

  /**
   * Takes in what another program wrote into the folder (Allure's report, `name`): every file of
   * it redacted in place, listed as `shown`.
   */
  adopt(name: string, shown: string): void {
    redactTree(path.join(this.dir, name), this.redactor);
    this.files.push(shown);
  }
}

/** A path as the user would type it: relative to the working folder when inside it. */
export function displayPath(file: string, cwd: string): string {
  const relative = path.relative(cwd, file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
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
  'exchanges.har',
  'ctrf-report.json',
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

/**
 * The report folder: the one place that writes reports, as the writers give them. No secret is in
 * them: what the run shows was masked where each secret went or came back (suites/harness/redact.ts),
 * and nothing else is rewritten. A run replaces the folder, so the folder must hold nothing but what
 * a run writes.
 */
import { copyFileSync, existsSync, lstatSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
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
  /**
   * Its report files, each to be written over and renamed into the new folder rather than a file
   * created (see SpareFiles).
   */
  readonly spares: SpareFiles;
  /** Removes what is left of it, through Node's thread pool; resolves once it is gone. */
  remove(): Promise<void>;
}

/**
 * Moves the previous run's reports beside the report folder (reports/latest → reports/previous),
 * replacing the run before it, and carries the Allure history over into the new report folder, so
 * that the next report shows each requirement's trend. checkReportDirs (below) has made sure both
 * folders hold only reports.
 *
 * The run before the previous one is renamed aside (`previous.removing`): its files are the new
 * run's spares, and what is left of it is removed once the run has written its reports (remove()),
 * or as the process ends, whichever comes first.
 */
export function rotateReportDir(reportDir: string, previousReportDir: string): Rotation {
  const nothingAside: Rotation = { spares: new SpareFiles([]), remove: () => Promise.resolve() };
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
    spares: new SpareFiles(filesIn(aside, ALLURE_RESULTS_DIR)),
    remove: () => {
      removing ??= removeInBackground(aside, now);
      return removing;
    },
  };
}

/** The sub-folder of Allure results, whose files are most of a report folder's. */
const ALLURE_RESULTS_DIR = 'allure-results';

/** The plain files of a folder and of one sub-folder of it (absolute paths); none when missing. */
function filesIn(dir: string, sub: string): string[] {
  const files: string[] = [];
  for (const folder of [dir, path.join(dir, sub)]) {
    try {
      for (const entry of readdirSync(folder, { withFileTypes: true }))
        if (entry.isFile()) files.push(path.join(folder, entry.name));
    } catch {
      // missing: no spares there
    }
  }
  return files;
}

/**
 * Files of an old report, each written over and renamed to a file of the new one rather than a new
 * file created. On some disks creating a file is what writing a report costs: on the virtual disk
 * `npm run bench` measures on, from 0.02 ms to 0.75 ms of CPU a file from one minute to the next
 * (a file written over costs 0.05 ms, a rename 0.015 ms), and a default run writes some 170 files,
 * most of them while its checks keep both cores busy: measured pair by pair, a run writing over the
 * files of the run before the previous one took 48 to 96 ms less (100 to 185 ms less CPU) at such
 * minutes, about 20 ms less at cheaper ones. A spare is written before it is renamed, so that a file
 * of the new report holds its own bytes or is not there; one that cannot be written or renamed is
 * left to be removed, and the file created.
 * A spare with another name elsewhere (a hard link: an archive made with `cp -al` or `rsync
 * --link-dest`) is never written over: that name keeps the old report.
 */
export class SpareFiles {
  constructor(private readonly files: string[]) {}

  /** A spare that is a plain file with no other name, or undefined when none is left. */
  private take(): string | undefined {
    for (let spare = this.files.pop(); spare !== undefined; spare = this.files.pop()) {
      try {
        const stat = lstatSync(spare);
        if (stat.isFile() && stat.nlink === 1) return spare;
      } catch {
        // gone: the next one
      }
    }
    return undefined;
  }

  /** Writes `bytes` to `target`, over a spare when one is left. */
  async write(target: string, bytes: Uint8Array): Promise<void> {
    const spare = this.take();
    if (spare !== undefined) {
      try {
        await writeFile(spare, bytes);
        await rename(spare, target);
        return;
      } catch {
        // created below
      }
    }
    await writeFile(target, bytes);
  }

  /** write(), synchronously. */
  writeSync(target: string, bytes: Uint8Array): void {
    const spare = this.take();
    if (spare !== undefined) {
      try {
        writeFileSync(spare, bytes);
        renameSync(spare, target);
        return;
      } catch {
        // created below
      }
    }
    writeFileSync(target, bytes);
  }
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
  /** What clear() left of the run before the previous one: its files to write over, and its removal. */
  private rotation: Rotation | undefined;
  /** The files to write over: none until clear() finds the run before the previous one. */
  private spares = new SpareFiles([]);
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
    this.spares = this.rotation.spares;
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
  write(name: string, content: string): void {
    makeDirs(this.dir);
    this.spares.writeSync(path.join(this.dir, name), Buffer.from(content, 'utf8'));
    this.files.push(name);
  }

  /**
   * Writes files held in memory (a reporter's staged results, by name) in as `name`/;
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
      this.spares.writeSync(target, content);
    }
    this.settle(name);
    this.files.push(`${name}/`);
  }

  /**
   * Writes files into `name`/ before the run publishes it (the attachments of the
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
      const target = path.join(this.dir, name, file);
      pending.push(
        this.spares.write(target, content).catch(() => {
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

  /** Takes in what another program wrote into the folder (Allure's report, `name`), listed as `shown`. */
  adopt(shown: string): void {
    this.files.push(shown);
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

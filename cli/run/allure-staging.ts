/**
 * The Allure results of a run, staged in memory as the checks finish: allure-vitest's reporter
 * (suites/reporter.ts) with a writer that holds its files. Loaded by cli/run/suites.ts as the first
 * test ends (late-reporter.ts), not with the CLI: allure-vitest and allure-js-commons take about
 * 25 ms of the main thread to load, which before vitest starts is time the whole run waits for.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { stringifyEnvInfo, type Writer } from 'allure-js-commons/sdk/reporter';
import type { RunnerTask } from 'vitest';
import type { TestCase } from 'vitest/node';
import { RequirementAllureReporter } from '../../suites/reporter.ts';
import type { AllureFiles } from '../record/record.ts';

/**
 * allure-vitest's reporter, its results held in memory (`files`) rather than written to disk: its
 * own writer makes every result and attachment durable (a temporary file, fsync, rename), all of them
 * on the main thread once the last check ends, for files that publish reads once and writes again
 * into the report folder (about 0.3 s on a slow disk for a default run's 260 files). The results are
 * the same. Should allure-vitest keep its runtime elsewhere one day, its own writer stays in place
 * and writes into its results folder, which collect() then reads.
 *
 * Each test is handled (allure-vitest's handleTask) as soon as it has finished, on the main thread
 * while the checks go on, rather than all of them once the last check ends (about 40 ms then, on the
 * run's critical path); what it wrote is kept aside and put in place, in the order allure-vitest
 * handles the tests at the run's end, when the run ends. A test not finished by then is handled then.
 */
export class StagingAllureReporter extends RequirementAllureReporter {
  private writer: StagingWriter | undefined;
  /** Tests handled as they finished, by task id: the files each wrote and the global messages it left. */
  private readonly finished = new Map<string, { files: AllureFiles; globals: unknown[] }>();

  constructor(
    private readonly staging: ConstructorParameters<typeof RequirementAllureReporter>[0] & {
      resultsDir: string;
    },
    requirements: ConstructorParameters<typeof RequirementAllureReporter>[1],
    private readonly files: AllureFiles,
    private readonly environmentInfo: Record<string, string>,
    private readonly onStaged?: (files: ReadonlyMap<string, Buffer>) => void,
  ) {
    super(staging, requirements);
  }

  override onInit(vitest: Parameters<RequirementAllureReporter['onInit']>[0]): void {
    super.onInit(vitest);
    const runtime = (this as unknown as { allureReporterRuntime?: { writer: Writer } }).allureReporterRuntime;
    const writer = new StagingWriter(this.files);
    if (runtime) {
      runtime.writer = writer;
      this.writer = writer;
    }
    // Written here rather than by onInit (the reporter's config has none): through the writer in use.
    (runtime?.writer ?? writer).writeEnvironmentInfo(this.environmentInfo);
  }

  onTestCaseResult(test: TestCase): void {
    const task = (test as unknown as { task?: RunnerTask }).task;
    const globals = this.globalMessages();
    const writer = this.writer;
    if (!writer || !task || task.type !== 'test' || !globals || this.finished.has(task.id)) return;
    const files: AllureFiles = new Map();
    const before = globals.length;
    writer.target = files;
    try {
      super.handleTask(task);
    } catch {
      // Left to the run's end, where allure-vitest handles it as it always has.
      globals.splice(before);
      return;
    } finally {
      writer.target = this.files;
    }
    this.finished.set(task.id, { files, globals: globals.splice(before) });
    this.onStaged?.(files);
  }

  override handleTask(task: RunnerTask): void {
    const done = task.type === 'test' ? this.finished.get(task.id) : undefined;
    if (!done) {
      super.handleTask(task);
      return;
    }
    for (const [name, content] of done.files) this.files.set(name, content);
    this.globalMessages()?.push(...done.globals);
  }

  /** allure-vitest's global messages of the run so far (hooks that failed), or undefined should it keep them elsewhere. */
  private globalMessages(): unknown[] | undefined {
    const messages = (this as unknown as { globalRuntimeMessages?: unknown }).globalRuntimeMessages;
    return Array.isArray(messages) ? messages : undefined;
  }

  /** Once the run has ended: the results, read back from the folder when they were written there. */
  collect(): void {
    if (this.writer) return;
    readTree(this.staging.resultsDir, '', this.files);
  }
}

/** The files of a folder tree into `files`, by their path relative to it ("a/b.json"); none when it is missing. */
function readTree(dir: string, prefix: string, files: AllureFiles): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) readTree(file, `${prefix}${name}/`, files);
    else files.set(`${prefix}${name}`, readFileSync(file));
  }
}

/**
 * allure-js-commons' Writer, holding what its FileSystemWriter would write into a results folder in
 * memory instead: file name → the same bytes.
 */
export class StagingWriter implements Writer {
  /** Where the files go (the run's files, or those of one test while it is handled). */
  constructor(public target: AllureFiles) {}

  private json(name: string, data: unknown): void {
    this.target.set(name, Buffer.from(JSON.stringify(data), 'utf-8'));
  }

  writeResult(result: Parameters<Writer['writeResult']>[0]): void {
    this.json(`${result.uuid}-result.json`, result);
  }

  writeGroup(result: Parameters<Writer['writeGroup']>[0]): void {
    this.json(`${result.uuid}-container.json`, result);
  }

  writeAttachment(distFileName: string, content: Buffer): void {
    this.target.set(distFileName, content);
  }

  writeAttachmentFromPath(distFileName: string, from: string): void {
    this.target.set(distFileName, readFileSync(from));
  }

  writeEnvironmentInfo(info: Parameters<Writer['writeEnvironmentInfo']>[0]): void {
    this.target.set('environment.properties', Buffer.from(stringifyEnvInfo(info), 'utf-8'));
  }

  writeCategoriesDefinitions(categories: Parameters<Writer['writeCategoriesDefinitions']>[0]): void {
    this.json('categories.json', categories);
  }

  writeGlobals(distFileName: string, info: Parameters<Writer['writeGlobals']>[1]): void {
    this.json(distFileName, info);
  }
}

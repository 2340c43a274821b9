/**
 * The suites' Allure reporter: allure-vitest's, with the Allure data of each check made here, on the
 * main thread, from what the check left in its task's meta (harness/requirement.ts), rather than by
 * allure-vitest's runtime in the worker:
 *
 * - the labels of its requirement (id, level, severity, operation, feature), the case of its row,
 *   the requirement's source and rationale as its description, the RFCs it cites as links;
 * - its notes, as steps;
 * - its last exchanges (TaskMeta.evidence, masked by the worker), as attachments that read as HTTP.
 *
 * allure-vitest's runtime keeps each concurrent test's context in an AsyncLocalStorage, whose hooks
 * run on every promise of every check, and has each label and attachment written, encoded and copied
 * by the worker the checks keep busy: about a sixth of a default run's time (docs/benchmarks.md). So
 * this reporter adds neither allure-vitest's setup file nor its runner to the workers, and a check
 * calls no Allure API. The results are the ones the runtime made.
 *
 * The CLI extends it (cli/run/suites.ts); to see Allure results of the suites run straight with
 * vitest: `npx vitest run --config suites/vitest.config.ts --reporter=default --reporter=./suites/reporter.ts`.
 */
import type { RuntimeMessage } from 'allure-js-commons/sdk';
import AllureVitestReporter, { type AllureVitestReporterConfig } from 'allure-vitest/reporter';
import type { RunnerTask } from 'vitest';
import { loadCatalog, type Requirement } from '../catalog/catalog.ts';
import { evidenceMessages, noteMessages, requirementMessages } from './harness/allure.ts';

/** allure-vitest's key in a task's meta for the messages of its runtime (allure-vitest/dist/runtime.js). */
const MESSAGES_KEY = 'allureRuntimeMessages';

export class RequirementAllureReporter extends AllureVitestReporter {
  private readonly byId: () => ReadonlyMap<string, Requirement>;
  private readonly done = new WeakSet<RunnerTask>();

  /** `requirements`: the catalog the checks were declared from (by default spec/requirements.yaml). */
  constructor(config: AllureVitestReporterConfig = {}, requirements?: readonly Requirement[]) {
    super(config);
    let byId: Map<string, Requirement> | undefined;
    this.byId = () => {
      byId ??= new Map((requirements ?? loadCatalog().requirements).map((r) => [r.id, r]));
      return byId;
    };
    // allure-vitest's onInit adds its setup file (the runtime) and its runner (the AsyncLocalStorage)
    // to every project; both are private methods of its reporter, so they are shadowed here.
    Object.assign(this, { registerSetupFile() {}, enableConcurrencySupport() {} });
  }

  override handleTask(task: RunnerTask): void {
    if (task.type === 'test' && !this.done.has(task)) {
      this.done.add(task);
      const made = this.messagesOf(task);
      if (made.length > 0) {
        const meta = task.meta as { [MESSAGES_KEY]?: RuntimeMessage[] };
        meta[MESSAGES_KEY] = [...(meta[MESSAGES_KEY] ?? []), ...made];
      }
    }
    super.handleTask(task);
  }

  /** The Allure messages of a check: its requirement's labels, then its notes and evidence, at its end. */
  private messagesOf(task: RunnerTask): RuntimeMessage[] {
    const { requirementId, case: caseLabel, notes, evidence } = task.meta;
    const r = requirementId === undefined ? undefined : this.byId().get(requirementId);
    const end = (task.result?.startTime ?? Date.now()) + (task.result?.duration ?? 0);
    return [
      ...(r ? requirementMessages(r, caseLabel) : []),
      ...noteMessages(notes ?? [], end),
      ...evidenceMessages(evidence ?? [], end, task.result?.state === 'pass'),
    ];
  }
}

export default RequirementAllureReporter;

/**
 * A vitest reporter whose module is loaded once the run is under way rather than before it starts.
 * vitest takes its reporters as it starts; this one stands in, and its reporter is made by `make`
 * when load() is first called (suites.ts calls it as the first test ends, when the main thread has
 * time to spare). What vitest reports before then is kept, and handed over in order once the
 * reporter is there; onTestRunEnd waits for it, and fails as the reporter's loading failed.
 *
 * It forwards the hooks in LATE_HOOKS, the ones the reporter it stands in for has
 * (test/cli/late-reporter.test.ts holds that list to the reporter's own hooks).
 */
import type { Reporter } from 'vitest/node';

/** The hooks forwarded: those of allure-vitest's reporter and of cli/run/allure-staging.ts. */
export const LATE_HOOKS = ['onInit', 'onTestCaseResult', 'onTestRunEnd'] as const;

type Args<K extends (typeof LATE_HOOKS)[number]> = Parameters<NonNullable<Reporter[K]>>;

export class LateReporter<R extends Reporter> implements Pick<Reporter, (typeof LATE_HOOKS)[number]> {
  private reporter: R | undefined;
  private loading: Promise<R> | undefined;
  private readonly waiting: ((reporter: R) => unknown)[] = [];

  constructor(private readonly make: () => Promise<R>) {}

  /** Makes the reporter (once), hands it what was reported so far, and resolves with it. */
  load(): Promise<R> {
    this.loading ??= this.make().then((reporter) => {
      this.reporter = reporter;
      for (const hook of this.waiting.splice(0)) hook(reporter);
      return reporter;
    });
    return this.loading;
  }

  onInit(...args: Args<'onInit'>): void {
    this.forward((r) => r.onInit?.(...args));
  }

  onTestCaseResult(...args: Args<'onTestCaseResult'>): void {
    this.forward((r) => r.onTestCaseResult?.(...args));
  }

  async onTestRunEnd(...args: Args<'onTestRunEnd'>): Promise<void> {
    const reporter = await this.load();
    await reporter.onTestRunEnd?.(...args);
  }

  private forward(hook: (reporter: R) => unknown): void {
    if (this.reporter) hook(this.reporter);
    else this.waiting.push(hook);
  }
}

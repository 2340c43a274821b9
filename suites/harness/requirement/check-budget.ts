import { ConformanceError } from '../evidence/errors.ts';
import type { Pace } from '../http/pace.ts';

/**
 * The time budget of a check: `budgetMs` of the run's own time, not counting the time the run was held
 * back by its pace (a deployment's rate limit, --rate-limit: pace.ts). Past it, the check's requests
 * are abandoned and it fails, saying so. Its signal is aborted when the test's is.
 */
export class CheckBudget {
  private readonly controller = new AbortController();
  readonly signal: AbortSignal;
  private readonly started = performance.now();
  private readonly heldAtStart: number;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    outer: AbortSignal,
    private readonly budgetMs: number,
    private readonly pace: Pace,
  ) {
    this.signal = AbortSignal.any([outer, this.controller.signal]);
    this.heldAtStart = pace.heldTime();
  }

  /** The check's own time so far: since it started, less the time the run was held back. */
  private usedMs(): number {
    return performance.now() - this.started - (this.pace.heldTime() - this.heldAtStart);
  }

  /** The check, or its failure for running out of budget, whichever comes first. */
  race<T>(check: Promise<T>, last: () => { method: string; url: string } | undefined): Promise<T> {
    const expiry = new Promise<never>((_, reject) => {
      const look = () => {
        const left = this.budgetMs - this.usedMs();
        if (left > 0) {
          this.timer = setTimeout(look, Math.ceil(left));
          return;
        }
        const request = last();
        const error = new ConformanceError({
          expected: `the check done within its time budget of ${Math.round(this.budgetMs / 1000)} s (its requests' timeouts added up, the time waited for the deployment's rate limit not counted)`,
          received: `still running after ${Math.round(this.usedMs() / 1000)} s${request ? `; its last request: ${request.method} ${request.url}` : ''}`,
          reproduce: request ? `curl -i -sS -X ${request.method} '${request.url}'` : '(no request was sent)',
        });
        this.controller.abort(error);
        reject(error);
      };
      this.timer = setTimeout(look, this.budgetMs);
    });
    expiry.catch(() => undefined);
    return Promise.race([check, expiry]);
  }

  /** Abandons the check's requests in flight: the check ends for `reason` (first-look.ts keyRefused). */
  abort(reason: unknown): void {
    this.controller.abort(reason);
  }

  end(): void {
    clearTimeout(this.timer);
  }
}

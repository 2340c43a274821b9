/**
 * ANY-RESPONSE-TIME (--max-response-time): like ANY-NO-5XX, judged across every check. Each check's
 * client keeps the answers slower than the budget (suites/harness/http/client.ts); the roll-up fails the
 * requirement on the first of them, naming the request, its time and the check that met it.
 */

import { pathAndQuery } from '../../suites/harness/evidence/url.ts';
import type { SlowAnswer } from '../../suites/harness/http/client.ts';

export type { SlowAnswer };

/** The requirement that every answer arrives within --max-response-time. */
export const RESPONSE_TIME_ID = 'ANY-RESPONSE-TIME';

/** The slow answers one check saw: the first few, and how many in all. */
export interface SlowAnswers {
  readonly count: number;
  readonly first: readonly SlowAnswer[];
}

/**
 * The failure of ANY-RESPONSE-TIME from every check's slow answers (the slowest first kept one is
 * shown), or undefined when no check saw one.
 */
export function slowAnswerFailure(
  outcomes: readonly {
    readonly requirementId?: string | undefined;
    readonly name: string;
    readonly slowAnswers?: SlowAnswers;
  }[],
): { message: string; expected: string; received: string; reproduce: string } | undefined {
  const seen = outcomes.flatMap((o) =>
    (o.slowAnswers?.first ?? []).map((a) => ({ ...a, checking: o.requirementId ?? o.name })),
  );
  if (seen.length === 0) return undefined;
  const total = outcomes.reduce((sum, o) => sum + (o.slowAnswers?.count ?? 0), 0);
  const slowest = seen.reduce((a, b) => (b.ms > a.ms ? b : a));
  const received = `${slowest.method} ${pathAndQuery(slowest.url)}: ${slowest.ms} ms to answer ${slowest.status} (seen while checking ${slowest.checking})${
    total > 1 ? `; ${total - 1} more answer${total === 2 ? '' : 's'} over the budget` : ''
  }`;
  const expected = `every answer within ${slowest.budgetMs} ms (--max-response-time)`;
  return {
    message: `expected ${expected}; received ${received}`,
    expected,
    received,
    reproduce: slowest.reproduce,
  };
}

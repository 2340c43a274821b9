/**
 * How the outputs of a run read its results beside the verdict: grouped by operation, blocked
 * requirements by the failure that blocks them, the options that change what a run checks. Pure
 * functions of the record, shared by the console, the reports and the Allure results.
 */
import type { Config } from '../../suites/harness/config/config.ts';
import { blockingRoots } from './blocking.ts';
import { isBlockedResult, type RequirementResult } from './rollup.ts';

/** The key byCause() files blocked requirements under when no failed requirement explains them. */
export const UNJUDGED_CAUSE = '';

/**
 * How many of a failed requirement's checks failed, as the console and Allure say it ("2 of 3
 * checks failed"), or that none did, when its rule broke in an answer another check received (a
 * model finding: the check is named in `received`); undefined for a requirement of one check.
 */
export function failedChecksText(r: RequirementResult): string | undefined {
  const checks = r.tests.passed + r.tests.failed + r.tests.skipped;
  if (r.tests.failed === 0) return "its checks passed; another check's answer broke its rule";
  return checks > 1 ? `${r.tests.failed} of ${checks} checks failed` : undefined;
}

/**
 * Blocked requirements by the failed requirement that is their cause, following chains (blocked by a
 * requirement that is itself blocked). A requirement blocked only by requirements that were not
 * judged (not selected, skipped) is filed under UNJUDGED_CAUSE.
 */
export function byCause(results: readonly RequirementResult[]): Map<string, RequirementResult[]> {
  const byId = new Map(results.map((r) => [r.id, r]));
  const causes = new Map<string, RequirementResult[]>();
  for (const r of results.filter(isBlockedResult)) {
    const found = blockingRoots(r, byId);
    for (const cause of found.length > 0 ? found : [UNJUDGED_CAUSE]) {
      causes.set(cause, [...(causes.get(cause) ?? []), r]);
    }
  }
  return causes;
}

/**
 * The failed requirements in the order to fix them (the console's and summary.md's "from the top"):
 * causes before consequences. One whose failure keeps others from being judged comes first (the
 * more it blocks, the sooner), gating before not gating, then catalog order.
 */
export function inFixOrder(results: readonly RequirementResult[]): RequirementResult[] {
  const causes = byCause(results);
  const order = new Map(results.map((r, i) => [r.id, i]));
  const blocks = (r: RequirementResult) => causes.get(r.id)?.length ?? 0;
  return results
    .filter((r) => r.status === 'failed')
    .sort(
      (a, b) =>
        blocks(b) - blocks(a) ||
        Number(b.gating) - Number(a.gating) ||
        (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0),
    );
}

/** The operation a requirement belongs to, as a heading: "GET /pets (listPets)" or "any operation". */
export function operationLabel(operation: string, operations: ReadonlyMap<string, string>): string {
  if (operation === 'any') return 'any operation';
  const route = operations.get(operation);
  return route ? `${route} (${operation})` : operation;
}

/** Results grouped by operation, groups in the order the catalog first names them. */
export function byOperation(results: readonly RequirementResult[]): Map<string, RequirementResult[]> {
  const groups = new Map<string, RequirementResult[]>();
  for (const r of results) {
    const list = groups.get(r.operation) ?? [];
    list.push(r);
    groups.set(r.operation, list);
  }
  return groups;
}

/** The options that change what a run checks or trusts, as typed: "--read-only --only LIST". */
export function optionsText(config: Config): string {
  return [
    config.readOnly ? '--read-only' : '',
    config.strict ? '--strict' : '',
    config.authRequired ? '--auth-required' : '',
    config.only.length ? `--only ${config.only.join(',')}` : '',
    config.exclude.length ? `--exclude ${config.exclude.join(',')}` : '',
    config.network?.tls?.insecure ? '--insecure' : '',
    config.retries ? `--retries ${config.retries}` : '',
    config.maxResponseTimeMs === undefined ? '' : `--max-response-time ${config.maxResponseTimeMs}`,
    config.rateLimit === undefined ? '' : `--rate-limit ${config.rateLimit}`,
    config.concurrency === undefined ? '' : `--concurrency ${config.concurrency}`,
  ]
    .filter(Boolean)
    .join(' ');
}

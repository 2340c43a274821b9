/**
 * From test outcomes to one result per requirement of the catalog, and from those to the verdict.
 * Pure functions: the reporters, the console and the tests all see the same roll-up.
 */
import type { Catalog, Level } from '../../catalog/catalog.ts';
import { EXCLUDED, NOT_SELECTED, selectionSkipReason } from '../../catalog/select.ts';
import { pathAndQuery } from '../../suites/harness/evidence/url.ts';
import { resolveBlocking } from './blocking.ts';
import { flakinessOf } from './flaky.ts';
import { untilFiveHundred } from './intermittent.ts';
import {
  describeFailure,
  isBlockedResult,
  NO_5XX_ID,
  type NotJudgedCause,
  type RequirementResult,
  type RollUp,
  type Status,
  type TestOutcome,
  type Verdict,
} from './results.ts';
import { RESPONSE_TIME_ID, slowAnswerFailure } from './slow.ts';

export type {
  Failure,
  Finding,
  NotJudgedCause,
  RequirementResult,
  RollUp,
  ServerErrorSeen,
  Status,
  TestOutcome,
  Verdict,
} from './results.ts';
export { describeFailure, EXCLUDED, isBlockedResult, NO_5XX_ID, NOT_SELECTED };

/** Whether a failure of this level fails the run. */
export function gates(level: Level, strict: boolean): boolean {
  return level === 'MUST' || (level === 'SHOULD' && strict);
}

/** Whether a result's level gates the run. */
function gatesResult(r: Pick<RequirementResult, 'level'>, strict: boolean): boolean {
  return gates(r.level, strict);
}

/** The requirement a deployment answering from more than one store fails: a pet created is then shown. */
const STORES_ID = 'CREATE-PERSISTED';

/** The cause that rate limits are not judged for (RateLimited, suites/harness/evidence/errors.ts). */
export const RATE_LIMIT = 'rate-limit';

/**
 * The cause that kept a requirement's checks from being judged, when one did: a rate limit it could
 * not wait out, or another of the deployment's (a key not given, a full store).
 */
function notJudgedBy(tests: readonly TestOutcome[]): NotJudgedCause | undefined {
  const limited = tests.find((t) => t.rateLimited !== undefined)?.rateLimited;
  if (limited !== undefined) return { cause: RATE_LIMIT, message: limited.message };
  return tests.find((t) => t.notJudged !== undefined)?.notJudged;
}

/**
 * One result per catalog requirement, in catalog order: failed if any of its tests failed, else
 * passed if any passed, else skipped with the reason its tests gave. A requirement --only leaves
 * out is skipped "not selected by --only", one --exclude leaves out "excluded by --exclude", whatever ran.
 */
export function rollUp(
  catalog: Pick<Catalog, 'requirements' | 'get'>,
  outcomes: readonly TestOutcome[],
  options: {
    readonly only: readonly string[];
    readonly exclude?: readonly string[];
    readonly strict: boolean;
  },
): RollUp {
  const byId = new Map<string, TestOutcome[]>();
  const suiteWarnings: string[] = [];
  for (const outcome of outcomes) {
    if (outcome.requirementId === undefined) {
      suiteWarnings.push(
        `${outcome.file}: test "${outcome.name}" carries no requirement id; its result is ignored`,
      );
      continue;
    }
    if (!catalog.get(outcome.requirementId)) {
      suiteWarnings.push(
        `${outcome.file}: test "${outcome.name}" names ${outcome.requirementId}, which is not in the catalog; its result is ignored`,
      );
      continue;
    }
    const list = byId.get(outcome.requirementId) ?? [];
    list.push(outcome);
    byId.set(outcome.requirementId, list);
  }

  // A requirement's checks as declared, not as they finished: its first failure is the same every run.
  for (const list of byId.values())
    list.sort((a, b) => a.file.localeCompare(b.file) || (a.declared ?? 0) - (b.declared ?? 0));

  const unjudged: string[] = [];
  const rateLimited: string[] = [];
  const notJudged: string[] = [];
  let rateLimitedPace: number | undefined;
  const fiveHundreds = outcomes.flatMap((o) =>
    (o.serverErrors ?? []).map((e) => ({ ...e, checking: o.requirementId ?? o.name })),
  );
  // A 5xx that the same request, sent again, did not get: the deployment fails now and then.
  const comeAndGo = outcomes.find((o) => o.comeAndGo !== undefined)?.comeAndGo;
  // A pet found by one show and not by another: more than one store answers (STORES_ID's).
  const stores = outcomes.find((o) => o.moreThanOneStore !== undefined)?.moreThanOneStore;
  const findings = outcomes.flatMap((o) =>
    (o.findings ?? []).map((f) => ({ ...f, checking: o.requirementId ?? o.name })),
  );
  const results = catalog.requirements.map((r): RequirementResult => {
    const tests = byId.get(r.id) ?? [];
    const count = (s: Status) => tests.filter((t) => t.state === s).length;
    const base = {
      id: r.id,
      level: r.level,
      title: r.title,
      operation: r.operation,
      tests: { passed: count('passed'), failed: count('failed'), skipped: count('skipped') },
      durationMs: tests.reduce((sum, t) => sum + t.durationMs, 0),
    };
    const leftOut = selectionSkipReason(r.id, options);
    if (leftOut !== undefined) return { ...base, status: 'skipped', message: leftOut, gating: false };
    const failed = tests.filter((t) => t.state === 'failed');
    const slow = r.id === RESPONSE_TIME_ID && failed.length === 0 ? slowAnswerFailure(outcomes) : undefined;
    if (slow !== undefined)
      return { ...base, status: 'failed', ...slow, gating: gates(r.level, options.strict) };
    if (r.id === NO_5XX_ID && fiveHundreds.length > 0 && (failed.length === 0 || comeAndGo !== undefined)) {
      // A 5xx seen by any check breaks this MUST ("no request the suite sends … is answered with a 5xx").
      // One that comes and goes (the same request answered otherwise when sent again) is shown by the
      // few lines that send a request until it gets one: a GET, when one was answered 5xx.
      const ordered =
        comeAndGo === undefined
          ? fiveHundreds
          : [
              ...fiveHundreds.filter((e) => e.method === 'GET'),
              ...fiveHundreds.filter((e) => e.method !== 'GET'),
            ];
      const [first, ...others] = ordered as [(typeof fiveHundreds)[0], ...typeof fiveHundreds];
      const fails =
        comeAndGo === undefined
          ? ''
          : `; the deployment fails now and then: ${comeAndGo.method} ${pathAndQuery(comeAndGo.url)}, answered ${comeAndGo.status}, was answered ${comeAndGo.again} when sent again`;
      const received = `${first.method} ${pathAndQuery(first.url)} answered ${first.status} (seen while checking ${first.checking})${
        others.length > 0 ? `; ${others.length} more 5xx seen by other checks` : ''
      }${fails}`;
      const expected = 'no 5xx status to any request the suite sends';
      const reproduce =
        comeAndGo === undefined
          ? first.reproduce
          : untilFiveHundred(
              first.reproduce,
              `The deployment fails now and then: ${comeAndGo.method} ${pathAndQuery(comeAndGo.url)} was answered ${comeAndGo.status}, and ${comeAndGo.again} when sent again.`,
            );
      return {
        ...base,
        status: 'failed',
        message: describeFailure({ message: received, expected, received }),
        expected,
        received,
        reproduce,
        gating: gates(r.level, options.strict),
      };
    }
    if (stores !== undefined && r.id === STORES_ID) {
      // More than one store behind the address: named once, here, whatever its own checks met.
      return {
        ...base,
        status: 'failed',
        message: describeFailure({ message: stores.received, ...stores }),
        expected: stores.expected,
        received: stores.received,
        reproduce: stores.reproduce,
        gating: gates(r.level, options.strict),
      };
    }
    const failedOnStores =
      failed.length > 0 && stores !== undefined && failed.every((t) => t.aboutStoredPets);
    if (failedOnStores) {
      // Its checks failed on pets the run created, which one store kept and another did not.
      const evidence = failed.flatMap((t) => t.failures)[0];
      return {
        ...base,
        status: 'skipped',
        blockedBy: [STORES_ID],
        message: `blocked by ${STORES_ID}: ${evidence?.received ?? describeFailure(evidence)} (the deployment answers from more than one store)`,
        ...(evidence?.expected === undefined ? {} : { expected: evidence.expected }),
        ...(evidence?.received === undefined ? {} : { received: evidence.received }),
        ...(evidence?.reproduce === undefined ? {} : { reproduce: evidence.reproduce }),
        gating: gates(r.level, options.strict),
      };
    }
    const found = findings.filter((f) => f.requirementId === r.id);
    if (failed.length === 0 && found.length > 0) {
      // Its rule broken in an answer another check received: it fails, naming that check.
      const [first] = found as [(typeof found)[0], ...typeof found];
      const others = new Set(found.map((f) => f.checking)).size - 1;
      const seen = ` (seen while checking ${first.checking}${others > 0 ? `, and by ${others} other check(s)` : ''})`;
      // Every finding names requirements that would explain it better: settled below, once known.
      const unless = found.every((f) => f.unless !== undefined)
        ? [...new Set(found.flatMap((f) => f.unless ?? []))]
        : undefined;
      return {
        ...base,
        status: 'failed',
        message: `${describeFailure({ ...first, message: first.received })}${seen}`,
        expected: first.expected,
        received: `${first.received}${seen}`,
        reproduce: first.reproduce,
        gating: gates(r.level, options.strict),
        ...(unless ? { foundUnless: unless } : {}),
      };
    }
    if (failed.length > 0) {
      const failures = failed.flatMap((t) => t.failures);
      const first = failures.find((f) => f.reproduce !== undefined) ?? failures[0];
      const ofTotal = tests.length > 1 ? ` (${failed.length} of ${tests.length} checks failed)` : '';
      return {
        ...base,
        status: 'failed',
        message: `${describeFailure(first)}${ofTotal}`,
        ...(first?.expected === undefined ? {} : { expected: first.expected }),
        ...(first?.received === undefined ? {} : { received: first.received }),
        ...(first?.reproduce === undefined ? {} : { reproduce: first.reproduce }),
        gating: gates(r.level, options.strict),
      };
    }
    const blockedTests = tests.filter((t) => t.state === 'skipped' && t.blockedBy !== undefined);
    if (blockedTests.length > 0) {
      const [first] = blockedTests as [TestOutcome, ...TestOutcome[]];
      const evidence = first.failures[0];
      const ofTotal = tests.length > 1 ? ` (${blockedTests.length} of ${tests.length} checks blocked)` : '';
      return {
        ...base,
        status: 'skipped',
        // Blocked on an answer about a pet the run created, where more than one store answers: by that.
        blockedBy: [
          ...new Set(
            blockedTests.flatMap((t) =>
              stores !== undefined && t.aboutStoredPets ? [STORES_ID] : (t.blockedBy ?? []),
            ),
          ),
        ],
        message: `${first.note ?? 'blocked'}${ofTotal}`,
        ...(evidence?.expected === undefined ? {} : { expected: evidence.expected }),
        ...(evidence?.received === undefined ? {} : { received: evidence.received }),
        ...(evidence?.reproduce === undefined ? {} : { reproduce: evidence.reproduce }),
        ...(first.ownFault === undefined ? {} : { ownFault: first.ownFault }),
        gating: gates(r.level, options.strict),
      };
    }
    const unjudgedBy = notJudgedBy(tests);
    if (unjudgedBy !== undefined) {
      // Not judged, never failed: a 429 is the deployment protecting itself, a key not given or a
      // full store no fault of the contract's; the run names the cause once (run/judge.ts).
      if (gates(r.level, options.strict)) {
        notJudged.push(r.id);
        if (unjudgedBy.cause === RATE_LIMIT) rateLimited.push(r.id);
        for (const t of tests) {
          const pace = t.rateLimited?.paceRate;
          if (pace !== undefined) rateLimitedPace = Math.min(rateLimitedPace ?? pace, pace);
        }
      }
      return {
        ...base,
        status: 'skipped',
        message: `not judged: ${unjudgedBy.message}`,
        notJudged: unjudgedBy,
        gating: false,
      };
    }
    if (tests.some((t) => t.state === 'passed'))
      return { ...base, status: 'passed', gating: false, ...flakinessOf(tests) };
    if (tests.length > 0) {
      const reasons = [...new Set(tests.map((t) => t.note?.trim() || 'skipped by the suite'))];
      return { ...base, status: 'skipped', message: reasons.join('; '), gating: false };
    }
    unjudged.push(r.id);
    return { ...base, status: 'skipped', message: 'no test reported on this requirement', gating: false };
  });

  // Every blockedBy then names failed requirements only (cli/blocking.ts); a check blocked by one
  // that was not judged is not judged either, for the same cause.
  const judged = resolveBlocking(explainedFindings(results));
  for (const r of judged)
    if (
      r.notJudged !== undefined &&
      r.blockedBy === undefined &&
      gatesResult(r, options.strict) &&
      !notJudged.includes(r.id)
    )
      notJudged.push(r.id);
  const totals = {
    passed: judged.filter((r) => r.status === 'passed').length,
    failed: judged.filter((r) => r.status === 'failed').length,
    skipped: judged.filter((r) => r.status === 'skipped').length,
    blocked: judged.filter(isBlockedResult).length,
  };
  const order = new Map(catalog.requirements.map((r, i) => [r.id, i]));
  notJudged.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
  const verdict: Verdict = judged.some((r) => (r.status === 'failed' || isBlockedResult(r)) && r.gating)
    ? 'non-conformant'
    : notJudged.length > 0
      ? 'could-not-judge'
      : 'conformant';
  return {
    results: judged,
    verdict,
    totals,
    unjudged,
    notJudged,
    rateLimited,
    ...(rateLimitedPace === undefined ? {} : { rateLimitedPace }),
    suiteWarnings,
  };
}

/**
 * A requirement failed only by findings that another requirement's failure explains (a pet lost
 * among concurrent creates, in a store that loses pets created alone as well) is blocked by that
 * failure instead: the finding is its evidence, and the fault is named once.
 *
 * The explaining failure may itself be one of these (a page missing a pet the store lost among
 * concurrent creates: LIST-LIMIT-FILLS unless CREATE-CONCURRENT, which fails unless
 * CREATE-PERSISTED), so they are settled in turn: one is failed once none of its explanations can
 * still fail, blocked once one has failed. What is left (explanations in a circle) fails.
 */
function explainedFindings(
  results: readonly (RequirementResult & { foundUnless?: string[] })[],
): RequirementResult[] {
  const failed = new Set(
    results.filter((r) => r.status === 'failed' && r.foundUnless === undefined).map((r) => r.id),
  );
  const open = new Map(
    results
      .filter((r) => r.status === 'failed' && r.foundUnless !== undefined)
      .map((r) => [r.id, r.foundUnless!]),
  );
  const blocked = new Set<string>();
  for (let settled = true; settled && open.size > 0; ) {
    settled = false;
    for (const [id, unless] of open) {
      if (unless.some((u) => failed.has(u))) blocked.add(id);
      else if (!unless.some((u) => open.has(u))) failed.add(id);
      else continue;
      open.delete(id);
      settled = true;
    }
  }
  for (const id of open.keys()) failed.add(id);
  return results.map(({ foundUnless, ...r }) => {
    if (!blocked.has(r.id)) return r;
    const by = (foundUnless ?? []).filter((id) => failed.has(id));
    return {
      ...r,
      status: 'skipped',
      blockedBy: by,
      message: `blocked by ${by.join(', ')}: ${r.received ?? r.message ?? ''}`,
    };
  });
}

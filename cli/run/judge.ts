/**
 * Stage 5 of a run: the judgement. The roll-up itself (record/rollup.ts) is pure; this stage adds
 * what tells "the server failed" from "the suite broke" (suite files that did not load, requirements
 * no test reported on, errors that escaped the tests) and, with --baseline, the baseline's gate.
 */
import type { Catalog } from '../../catalog/catalog.ts';
import type { Config } from '../../suites/harness/config/config.ts';
import { againstBaseline, type Comparable } from '../across/diff.ts';
import { applyExpected, type ExpectedFile, type ExpectedOutcome } from '../record/expected.ts';
import type { BaselineOutcome } from '../record/record.ts';
import { type RerunOutcome, type RerunSource, rerunOutcome } from '../record/rerun.ts';
import { isBlockedResult, RATE_LIMIT, type RollUp, rollUp } from '../record/rollup.ts';
import { type RunMade, runAgainCommand } from '../record/suggest.ts';
import type { Checked } from './checks.ts';
import type { Baseline } from './plan.ts';

export type Judgement =
  /**
   * The run judged: the roll-up, the baseline's view of it (--baseline), and what is worth a
   * warning without changing the verdict. The exit status follows from them (record/record.ts exitOf).
   */
  | {
      readonly kind: 'judged';
      readonly rollUp: RollUp;
      readonly baseline?: BaselineOutcome;
      /** The rerun subcommand: each earlier failure, fixed or not. */
      readonly rerun?: RerunOutcome;
      /** --expected: the failures it excuses, its stale entries, and the gate. */
      readonly expected?: ExpectedOutcome;
      /**
       * Could not judge (the roll-up's verdict could-not-judge): why, in one line, each cause named
       * once. The run keeps what it judged, and exits 2.
       */
      readonly cannotJudge?: string;
      readonly warnings: readonly string[];
    }
  /** The suite itself broke: the run cannot judge (exit 2); `reason` in one line, the lines say more. */
  | { readonly kind: 'broken'; readonly reason: string; readonly problems: readonly string[] };

export function judge(
  catalog: Pick<Catalog, 'requirements' | 'get'>,
  checked: Checked,
  config: Pick<Config, 'only' | 'exclude' | 'strict'>,
  baseline?: Baseline,
  more: {
    /** The rerun subcommand's earlier run. */
    readonly rerun?: RerunSource;
    /** --expected, as read. */
    readonly expected?: ExpectedFile;
    /** When the run started: an expected deviation's expiry is judged on that day (UTC). */
    readonly startedAt?: Date;
    /** What the run was made of: a suggested command (a lower --rate-limit) runs it again so. */
    readonly made?: RunMade;
  } = {},
): Judgement {
  const { suiteRun } = checked;
  const summary = rollUp(catalog, checked.outcomes, config);
  // An exception of a check itself is a bug of the suite, not the server's fault.
  const suiteBug = checked.outcomes.find((o) => o.suiteError !== undefined);
  if (suiteBug && !suiteRun.deadlineHit) {
    const reason = `the suite failed in ${suiteBug.name}: ${suiteBug.suiteError}`;
    return { kind: 'broken', reason, problems: [reason] };
  }
  // A run cut at its deadline has unfinished checks, which fail: the verdict stands.
  if (!suiteRun.deadlineHit) {
    const problems: string[] = [];
    if (suiteRun.startError) problems.push(`the suites did not run: ${suiteRun.startError}`);
    for (const m of suiteRun.brokenModules)
      problems.push(`suite file ${m.file} failed to load: ${m.message}`);
    if (summary.unjudged.length > 0) {
      const ids = summary.unjudged;
      const shown = ids.length > 8 ? `${ids.slice(0, 8).join(', ')}, …` : ids.join(', ');
      problems.push(`no test reported on ${ids.length} requirement(s): ${shown}`);
    }
    if (problems.length > 0)
      return { kind: 'broken', reason: `the suite itself broke: ${problems[0]}`, problems };
  }
  const warnings = suiteRun.unhandledErrors.map((e) => `an error escaped the suite's tests: ${firstLine(e)}`);
  if (suiteRun.deadlineHit) {
    warnings.push('the run reached its deadline and was cut short; unfinished checks count as failed');
  }
  // A rerun says of each earlier failure whether it is fixed; its verdict is over what it checked.
  const again =
    more.rerun === undefined ? {} : { rerun: rerunOutcome(more.rerun, summary.results, config.strict) };
  // With a baseline, the verdict stays what it is; the exit status follows the new failures only.
  const known = baseline === undefined ? undefined : applyBaseline(baseline, summary.results, config.strict);
  // Expected deviations excuse failures on top: of the new ones with a baseline, of every one without.
  const expected =
    more.expected === undefined
      ? undefined
      : applyExpected(more.expected, summary.results, {
          strict: config.strict,
          today: (more.startedAt ?? new Date()).toISOString().slice(0, 10),
          gatingBad:
            known?.newFailures ??
            summary.results
              .filter((r) => r.gating && (r.status === 'failed' || isBlockedResult(r)))
              .map((r) => r.id),
        });
  // Nothing gating failed, but a cause of the deployment's (a rate limit, a key not given, a full
  // store) kept gating requirements from being judged: neither verdict can be given. What was judged
  // is kept, and the reason names each cause once.
  const cannotJudge = summary.verdict === 'could-not-judge' ? unjudgedReason(summary, more.made) : undefined;
  return {
    kind: 'judged',
    rollUp: summary,
    ...(cannotJudge === undefined ? {} : { cannotJudge }),
    ...(known ? { baseline: known } : {}),
    ...(expected ? { expected } : {}),
    ...again,
    warnings,
  };
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? text;
}

/** The run's results against the baseline: its gate, and which gating failures are new, known, fixed. */
export function applyBaseline(
  baseline: Baseline,
  results: readonly Comparable[],
  strict: boolean,
): BaselineOutcome {
  const diff = againstBaseline(baseline.summary.results, results, strict);
  return {
    file: baseline.given,
    startedAt: baseline.summary.startedAt,
    target: baseline.summary.target,
    gate: diff.newFailures.length > 0 ? 'failed' : 'passed',
    ...diff,
  };
}

/** "A, B, C, D, E, …": the first five ids. */
function someIds(ids: readonly string[]): string {
  return `${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', …' : ''}`;
}

/**
 * Why a run could not judge, in one line: each cause that kept gating requirements unjudged, once,
 * the most of them first. A rate limit suggests the command that runs again at the pace the run came
 * down to; a key not given says to give one; any other cause says what the deployment answered.
 */
export function unjudgedReason(summary: RollUp, made?: RunMade): string {
  const byCause = new Map<string, { message: string; ids: string[] }>();
  for (const id of summary.notJudged) {
    const cause = summary.results.find((r) => r.id === id)?.notJudged;
    if (cause === undefined) continue;
    const entry = byCause.get(cause.cause) ?? { message: cause.message, ids: [] };
    entry.ids.push(id);
    byCause.set(cause.cause, entry);
  }
  const parts = [...byCause].sort(([, a], [, b]) => b.ids.length - a.ids.length);
  return parts
    .map(([cause, { message, ids }]) => {
      const kept = `${ids.length} gating requirement${ids.length === 1 ? '' : 's'} (${someIds(ids)})`;
      if (cause === RATE_LIMIT)
        return `the deployment's rate limit kept ${kept} from being judged; ${paceSuggestion(summary, made)}`;
      if (cause === 'api-key') return message;
      return `${message}: ${kept} not judged`;
    })
    .join('; ');
}

/** What to run at a pace the deployment allows: the whole command, when the run's settings are known. */
function paceSuggestion(summary: RollUp, made?: RunMade): string {
  const rate = summary.rateLimitedPace;
  if (rate === undefined) return 'run again with --rate-limit at a pace the deployment allows';
  const pace = Math.max(1, Math.floor(rate));
  const why = '(the pace the run had come down to), or lower';
  if (made === undefined) return `run again with --rate-limit ${pace} ${why}`;
  return `run again at that pace ${why}: ${runAgainCommand(made, { 'rate-limit': pace })}`;
}

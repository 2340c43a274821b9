/**
 * Blocked never points nowhere. A check whose precondition failed is reported blocked by the
 * requirements that judge that precondition (suites/harness/requirement/blocked.ts); this settles, once every
 * requirement has its own result, which of them actually carries the fault:
 *
 * - a blocker that failed stays; one that is itself blocked is replaced by the failed requirements
 *   that block it (blocking never runs through a chain);
 * - a requirement left with no failed blocker (its blockers passed their own checks, were not run, or
 *   are blocked in a circle with it) met a failure no other requirement judged: it fails itself, with
 *   the evidence its check kept (blocking never runs in a circle, and never points at a pass); one
 *   blocked on suspicion (suites/harness/requirement/blocked.ts suspected) fails in the words its check gave;
 * - a failed requirement that keeps a gating one from being judged gates the verdict itself, so that
 *   a non-conformant verdict always names a failed gating requirement (a SHOULD blocking a MUST
 *   without --strict).
 *
 * Afterwards every id in a `blockedBy` names a failed requirement.
 */
import { describeFailure, isBlockedResult, type RequirementResult } from './results.ts';

/**
 * The roots of a blocked result: the failed requirements it reaches through its blockers, following
 * those that are blocked in turn (never through itself, never round a circle), each once, in the
 * order found. None when no failed requirement explains it.
 */
export function blockingRoots(r: RequirementResult, byId: ReadonlyMap<string, RequirementResult>): string[] {
  const walk = (at: RequirementResult, seen: ReadonlySet<string>): string[] =>
    (at.blockedBy ?? []).flatMap((id) => {
      const blocker = byId.get(id);
      if (!blocker || seen.has(id)) return [];
      if (blocker.status === 'failed') return [id];
      return isBlockedResult(blocker) ? walk(blocker, new Set([...seen, id])) : [];
    });
  return [...new Set(walk(r, new Set([r.id])))];
}

export function resolveBlocking(results: readonly RequirementResult[]): RequirementResult[] {
  let current = [...results];
  for (;;) {
    const byId = new Map(current.map((r) => [r.id, r]));
    const order = new Map(current.map((r, i) => [r.id, i]));
    const rooted = current.map((r) => {
      if (!isBlockedResult(r)) return r;
      const found = blockingRoots(r, byId);
      if (found.length === 0) return r;
      found.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
      return { ...r, blockedBy: found };
    });
    const rootedById = new Map(rooted.map((r) => [r.id, r]));
    const orphans = rooted.filter((r) => isBlockedResult(r) && blockingRoots(r, byId).length === 0);
    if (orphans.length === 0) return promoteGatingBlockers(rooted).map(withoutSuspicion);
    // Blocked by a requirement a cause of the deployment's kept from being judged (a rate limit, a
    // full store): not judged either, for that cause, rather than failing for a precondition.
    const unjudged = orphans.filter((r) => unjudgedBlocker(r, rootedById) !== undefined);
    if (unjudged.length > 0) {
      const ids = new Set(unjudged.map((r) => r.id));
      current = rooted.map((r) => (ids.has(r.id) ? notJudgedToo(r, unjudgedBlocker(r, rootedById)!) : r));
      continue;
    }
    // Those whose blockers are all settled (passed, skipped, not run) fail first; only when none is
    // left do the ones in a circle fail, and what hung on the circle is then blocked by them.
    const settled = orphans.filter((r) =>
      (r.blockedBy ?? []).every((id) => !isBlockedResult(rootedById.get(id))),
    );
    const failing = new Set(
      (settled.length > 0 ? settled : orphans.filter((r) => onCircle(r, rootedById))).map((r) => r.id),
    );
    current = rooted.map((r) => (failing.has(r.id) ? failsItself(r, rootedById) : r));
  }
}

/** A result once blocking is resolved: a block on suspicion that stands is a block like any other. */
function withoutSuspicion(r: RequirementResult): RequirementResult {
  if (r.ownFault === undefined) return r;
  const { ownFault: _, ...rest } = r;
  return rest;
}

/** Whether following blocked blockers from `r` leads back to `r`. */
function onCircle(r: RequirementResult, byId: ReadonlyMap<string, RequirementResult>): boolean {
  const seen = new Set<string>();
  const walk = (at: RequirementResult): boolean =>
    (at.blockedBy ?? []).some((id) => {
      if (id === r.id) return true;
      const next = byId.get(id);
      if (next === undefined || seen.has(id) || !isBlockedResult(next)) return false;
      seen.add(id);
      return walk(next);
    });
  return walk(r);
}

/** The first blocker of `r` that was not judged, when one was not. */
function unjudgedBlocker(
  r: RequirementResult,
  byId: ReadonlyMap<string, RequirementResult>,
): RequirementResult | undefined {
  return (r.blockedBy ?? []).map((id) => byId.get(id)).find((b) => b?.notJudged !== undefined);
}

/** A blocked requirement whose blocker was not judged: not judged for the blocker's cause. */
function notJudgedToo(r: RequirementResult, blocker: RequirementResult): RequirementResult {
  const { blockedBy: _by, ownFault: _fault, expected: _e, received: _r, ...rest } = r;
  const cause = blocker.notJudged!;
  return {
    ...rest,
    status: 'skipped',
    message: `not judged: it needs ${blocker.id}, which was not judged (${cause.message})`,
    notJudged: cause,
    gating: false,
  };
}

/** A blocked requirement that no failed requirement explains: its check met a failure of its own. */
function failsItself(r: RequirementResult, byId: ReadonlyMap<string, RequirementResult>): RequirementResult {
  const { blockedBy = [], ownFault, ...rest } = r;
  const detail = describeFailure({
    message: r.message ?? '',
    ...(r.expected === undefined ? {} : { expected: r.expected }),
    ...(r.received === undefined ? {} : { received: r.received }),
  });
  const passed = blockedBy.filter((id) => byId.get(id)?.status === 'passed');
  const circle = blockedBy.filter((id) => isBlockedResult(byId.get(id)));
  const notRun = blockedBy.filter((id) => !passed.includes(id) && !circle.includes(id));
  const why = [
    passed.length > 0
      ? `${ownFault === undefined ? 'although ' : ''}${passed.join(', ')} passed ${passed.length > 1 ? 'their' : 'its'} own checks`
      : '',
    notRun.length > 0
      ? `${passed.length > 0 ? 'and ' : ''}${notRun.map((id) => `${id} ${skipNote(byId.get(id))}`).join(', ')}`
      : '',
    circle.length > 0
      ? `${passed.length + notRun.length > 0 ? 'and ' : ''}${circle.join(', ')} could not judge it either (blocked in turn by this one)`
      : '',
  ]
    .filter(Boolean)
    .join(' ');
  // Blocked on suspicion: the answer breaks this check's own rule unless a blocker failed, and none did.
  const message =
    ownFault === undefined
      ? `${detail} (a precondition of this check failed, ${why})`
      : `${detail} (${ownFault}, and ${why})`;
  return { ...rest, status: 'failed', message };
}

function skipNote(r: RequirementResult | undefined): string {
  if (!r) return 'was not run';
  return r.message ? `was not judged (${r.message})` : 'was not judged';
}

/**
 * A failed requirement that blocks a gating one gates the verdict: the run cannot be conformant while
 * a gating requirement is unjudged, and the verdict then names what to fix.
 */
function promoteGatingBlockers(results: readonly RequirementResult[]): RequirementResult[] {
  const keeps = new Map<string, string[]>();
  for (const r of results) {
    if (!isBlockedResult(r) || !r.gating) continue;
    for (const id of r.blockedBy ?? []) keeps.set(id, [...(keeps.get(id) ?? []), r.id]);
  }
  return results.map((r) => {
    const kept = keeps.get(r.id);
    if (r.status !== 'failed' || r.gating || !kept) return r;
    return {
      ...r,
      gating: true,
      message: `${r.message ?? ''} (gating: it keeps ${kept.join(', ')} from being judged)`,
    };
  });
}

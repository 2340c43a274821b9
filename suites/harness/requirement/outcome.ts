/**
 * How a check ended, as its test reports it: passed, skipped (not judged: the check's own reason, a
 * rate limit it could not wait out, a precondition another requirement judges) or failed; and what
 * it leaves in task.meta (meta.ts) for the CLI's record, whatever the ending.
 */
import type { TaskMeta } from 'vitest';
import type { Requirement } from '../../../catalog/catalog.ts';
import {
  type ConformanceError,
  HTTP_MESSAGE_ID,
  isBrokenMessage,
  isConformanceError,
  isRateLimited,
} from '../evidence/errors.ts';
import { redact } from '../evidence/redact.ts';
import type { Client } from '../http/client.ts';
import { isBlocked } from './blocked.ts';
import { isNotJudged } from './not-judged.ts';
import { isExplained } from './second-opinion.ts';

/** Retried attempts a test keeps as evidence (the rest are counted). */
const MAX_RETRIED_KEPT = 5;

/**
 * A check's own reason not to judge (CheckContext.skip: "the list is empty, so there is no pet to
 * show"), thrown through the check and turned into vitest's skip once the check is over.
 */
export class SkipCheck extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'SkipCheck';
  }
}

export type Ending =
  | { readonly kind: 'passed' }
  | { readonly kind: 'skipped'; readonly reason: string }
  | { readonly kind: 'failed'; readonly error: unknown };

/**
 * The ending of a check that threw `thrown` (undefined: it passed), what blocked it or kept it from
 * being judged written into `meta`. A blocked check is never blocked by itself: what blocks the others is its own failure.
 * `aborted`: the test was cancelled, so an exception is not the suite's own bug.
 */
export function endingOf(thrown: unknown, r: Requirement, meta: TaskMeta, aborted: boolean): Ending {
  if (thrown === undefined) return { kind: 'passed' };
  if (thrown instanceof SkipCheck) return { kind: 'skipped', reason: thrown.reason };
  if (isRateLimited(thrown)) {
    // The deployment protecting itself is never its fault: not judged, and the run says so.
    meta.rateLimited = {
      message: thrown.message,
      reproduce: thrown.init.reproduce,
      ...(thrown.init.paceRate === undefined ? {} : { paceRate: thrown.init.paceRate }),
    };
    return { kind: 'skipped', reason: `not judged: ${thrown.message}` };
  }
  if (isNotJudged(thrown)) {
    meta.notJudged = { cause: thrown.kind, message: thrown.message, reproduce: thrown.reproduce };
    return { kind: 'skipped', reason: `not judged: ${thrown.message}` };
  }
  const block = blockOf(thrown);
  if (block) {
    if (block.by.includes(r.id)) return { kind: 'failed', error: block.failure };
    meta.blockedBy = [...block.by];
    const { expected, received, reproduce } = block.failure;
    meta.blockedEvidence = { expected, received, reproduce };
    if (block.ownFault !== undefined) meta.blockedOwnFault = block.ownFault;
    return { kind: 'skipped', reason: block.message };
  }
  if (isConformanceError(thrown)) return { kind: 'failed', error: thrown };
  // Any other error's text may quote an answer (JSON.parse quotes the body it refused).
  maskThrown(thrown);
  if (!aborted) meta.suiteError = describeThrown(thrown);
  return { kind: 'failed', error: thrown };
}

/** What blocks a check that threw `err`: a Blocked, or an answer that is not a complete HTTP message (ANY-HTTP-MESSAGE's). */
function blockOf(
  err: unknown,
): { by: readonly string[]; failure: ConformanceError; message: string; ownFault?: string } | undefined {
  if (isBlocked(err))
    return {
      by: err.by,
      failure: err.asFailure(),
      message: err.message,
      ...(err.ownFault === undefined ? {} : { ownFault: err.ownFault }),
    };
  if (isExplained(err)) return { by: err.by, failure: err.failure, message: err.message };
  if (isBrokenMessage(err))
    return {
      by: [HTTP_MESSAGE_ID],
      failure: err,
      message: `blocked by ${HTTP_MESSAGE_ID}: ${err.received} (${err.expected})`,
    };
  return undefined;
}

/**
 * What the check's client saw, into `meta` whatever its ending: its requests counted, its retried
 * attempts; and, unless the first look found no API there (`noApi`: its answers say nothing of the
 * API), its 5xx answers, its findings and its slow answers.
 */
export function recordWhatItSaw(meta: TaskMeta, api: Client, noApi: boolean): void {
  meta.exchangeCount = api.exchanges.length;
  if (!noApi) {
    if (api.serverErrors.length > 0) meta.serverErrors = [...api.serverErrors];
    if (api.findings.length > 0) meta.findings = [...api.findings];
    if (api.slowCount > 0) {
      meta.slowAnswers = [...api.slowAnswers];
      meta.slowCount = api.slowCount;
    }
  }
  if (api.retried.length > 0) {
    meta.retried = api.retried.slice(0, MAX_RETRIED_KEPT);
    meta.retryCount = api.retried.length;
  }
}

/**
 * An error's message, and the head of its stack that repeats it, masked in place as a server's text
 * before vitest sends them on; the stack's frames are the suite's own paths.
 */
function maskThrown(err: unknown): void {
  if (!(err instanceof Error)) return;
  try {
    err.message = redact(err.message);
    if (typeof err.stack === 'string') {
      const frames = err.stack.search(/\n\s+at /);
      const head = frames < 0 ? err.stack : err.stack.slice(0, frames);
      err.stack = `${redact(head)}${frames < 0 ? '' : err.stack.slice(frames)}`;
    }
  } catch {}
}

/** "TypeError: x is undefined (at suites/list/list.checks.ts:12:5)": what a person fixing the suite needs. */
function describeThrown(err: unknown): string {
  if (!(err instanceof Error)) return `a non-Error value was thrown: ${String(err)}`;
  // The first frame outside the harness and the libraries: the check's own line.
  const frame = err.stack
    ?.split('\n')
    .slice(1)
    .map((line) => line.trim().replace(/^at\s+/, ''))
    .find((line) => !/node_modules|node:|suites\/harness\//.test(line) && /\.[cm]?[jt]s:\d+/.test(line));
  return `${err.name}: ${err.message}${frame ? ` (${frame})` : ''}`;
}

import { describeResponse } from '../contract/expect.ts';
import { ConformanceError, isBrokenMessage, isConformanceError, isRateLimited } from '../evidence/errors.ts';
import { shownUrl } from '../evidence/exchange.ts';
import { redact } from '../evidence/redact.ts';
import { pathAndQuery } from '../evidence/url.ts';
import type { ApiResponse } from '../http/client.ts';

/**
 * Thrown when what a check needs cannot be had: the pets it reads could not be created, the /v1
 * prefix is not served. The check is not judged: requirement() reports it as skipped with a note
 * "blocked by CREATE-OK: POST /pets answered 500 …" and meta.blockedBy = ['CREATE-OK'], and the
 * roll-up shows it under the requirement whose failure blocks it.
 *
 * `by` names the requirements whose own checks judge what went wrong; when the check that meets the
 * problem IS one of them, requirement() turns it into that check's failure (a check is never blocked
 * by itself). `evidence` is the response that shows it, as a failure would carry it.
 *
 * `ownFault`, when given, says the check suspects `by` without knowing: the answer breaks this
 * check's own rule unless one of `by` failed (a short page is the list's fault, unless the store lost
 * the pets it would have held). When none of `by` fails, the roll-up reports the check failed with
 * its evidence and these words, not "a precondition failed" (cli/record/blocking.ts).
 */
export class Blocked extends Error {
  /** What came back; "POST /pets answered 500, empty body" by default. Masked as the server's text. */
  readonly received: string;

  constructor(
    readonly by: readonly string[],
    /** What was needed, as a failure's `expected` would say it. */
    readonly needed: string,
    readonly evidence: ApiResponse,
    received = `${evidence.request.method} ${pathAndQuery(shownUrl(evidence.request))} answered ${describeResponse(evidence)}`,
    /** Why the check fails itself when none of `by` fails ("a fault of the list unless the store lost pets"). */
    readonly ownFault?: string,
  ) {
    const masked = redact(received);
    // The ids and `needed` are the suite's own words: only what came back is masked.
    super(`blocked by ${by.join(', ')}: ${masked} (${needed})`);
    this.received = masked;
    this.name = 'Blocked';
  }

  /** The same problem as a failure of the check that met it. */
  asFailure(): ConformanceError {
    return new ConformanceError({
      expected: this.needed,
      received: this.received,
      reproduce: this.evidence.reproduce,
      exchanges: [this.evidence.exchange],
    });
  }
}

/** Whether a value is a Blocked, also across module copies (isolated test files). */
export function isBlocked(value: unknown): value is Blocked {
  return value instanceof Blocked || (value instanceof Error && value.name === 'Blocked' && 'by' in value);
}

/** Throws Blocked: `by` could not give this check what it needs. */
export function blocked(by: readonly string[], res: ApiResponse, needed: string, received?: string): never {
  throw new Blocked(by, needed, res, received);
}

/**
 * Throws a Blocked that is this check's failure unless one of `by` fails: the answer breaks the
 * check's rule, or a fault `by` judges explains it and the check cannot tell which. `ownFault` is
 * what the failure says when `by` all pass ("a page shorter than its limit is the list's fault unless
 * the store lost pets"); the roll-up adds which of `by` passed.
 */
export function suspected(
  by: readonly string[],
  res: ApiResponse,
  expected: string,
  ownFault: string,
  received?: string,
): never {
  throw new Blocked(by, expected, res, received, ownFault);
}

/**
 * Errors that end a generated check at once rather than count as a failing case: no answer at all,
 * an answer that is not a complete HTTP message (ANY-HTTP-MESSAGE's), a precondition that could not
 * be had, or a request the deployment's rate limit kept from an answer (the check is not judged).
 */
export function endsTheCheck(err: unknown): boolean {
  return (
    isBlocked(err) ||
    isBrokenMessage(err) ||
    isRateLimited(err) ||
    (isConformanceError(err) && err.expected.startsWith('a complete HTTP response'))
  );
}

import type { ExchangeRecord } from './exchange.ts';
import { redact } from './redact.ts';

export interface ConformanceErrorInit {
  /** What a conformant server does here, e.g. "status 400–499". */
  readonly expected: string;
  /** What came back, e.g. "200, JSON array of 100 items". */
  readonly received: string;
  /** A ready-to-paste curl command that sends the request again (secrets masked where the suite put them). */
  readonly reproduce: string;
  /** The exchanges that show it, masked (the last few of the test). */
  readonly exchanges?: readonly ExchangeRecord[];
}

/**
 * The one error a check throws when the server does not do what the contract says (STYLE point 8).
 * A server that hangs, resets or sends garbage fails with it too: it is a failed requirement, not a
 * broken suite. Its own enumerable properties are `expected`, `received`, `reproduce` and, when
 * known, `exchanges`; they survive vitest's error serialisation, so reporters read them directly.
 * The message is the same three lines:
 *
 *     expected: status 400–499
 *     received: 200, JSON array of 100 items
 *     reproduce: curl -sS 'http://127.0.0.1:8080/v1/pets?limit=101'
 */
export class ConformanceError extends Error {
  declare readonly expected: string;
  declare readonly received: string;
  declare readonly reproduce: string;
  declare readonly exchanges?: readonly ExchangeRecord[];

  /**
   * `received` quotes what came back: it is masked as the server's text (redact.ts). `expected` is
   * the suite's own words and `reproduce` a curl line masked where the key was put (toCurl): neither
   * is searched, so that a key that is also a word does not rewrite them.
   */
  constructor(init: ConformanceErrorInit) {
    const { expected, reproduce } = init;
    const received = redact(init.received);
    super(`expected: ${expected}\nreceived: ${received}\nreproduce: ${reproduce}`);
    this.expected = expected;
    this.received = received;
    this.reproduce = reproduce;
    if (init.exchanges && init.exchanges.length > 0) this.exchanges = init.exchanges;
  }
}
// On the prototype, so that the own enumerable properties are exactly the evidence.
Object.defineProperty(ConformanceError.prototype, 'name', {
  value: 'ConformanceError',
  writable: true,
  configurable: true,
});

/** Whether a value is a ConformanceError, also across module copies (isolated test files). */
export function isConformanceError(value: unknown): value is ConformanceError {
  return (
    value instanceof ConformanceError ||
    (value instanceof Error &&
      value.name === 'ConformanceError' &&
      typeof (value as { reproduce?: unknown }).reproduce === 'string')
  );
}

/** The requirement that every answer is a complete HTTP message (spec/requirements.yaml). */
export const HTTP_MESSAGE_ID = 'ANY-HTTP-MESSAGE';

/**
 * An answer that is not a complete HTTP message: its body cut short, longer or shorter than its
 * Content-Length, or bytes that do not parse as HTTP. ANY-HTTP-MESSAGE's to judge: the check that
 * met it is blocked by that requirement (requirement.ts) rather than failed, whatever its own rule.
 */
export class BrokenMessage extends ConformanceError {}
Object.defineProperty(BrokenMessage.prototype, 'brokenMessage', { value: true });

/** Whether a value is a BrokenMessage (an answer that is not a complete HTTP message). */
export function isBrokenMessage(value: unknown): value is BrokenMessage {
  return isConformanceError(value) && (value as { brokenMessage?: unknown }).brokenMessage === true;
}

/**
 * The server closed the connection of a request given `closedIsRefusal` before any answer began: its
 * refusal of that request (a CONNECT to a server that opens no tunnels), for its check to read.
 */
export class ClosedWithoutAnswer extends ConformanceError {}
Object.defineProperty(ClosedWithoutAnswer.prototype, 'closedWithoutAnswer', { value: true });

/** Whether a value is a ClosedWithoutAnswer. */
export function isClosedWithoutAnswer(value: unknown): value is ClosedWithoutAnswer {
  return (
    isConformanceError(value) && (value as { closedWithoutAnswer?: unknown }).closedWithoutAnswer === true
  );
}

/** What a request the deployment's rate limit kept from an answer met (RateLimited). */
export interface RateLimitedInit {
  readonly method: string;
  readonly path: string;
  /** Why it was given up: "was refused 5 times (429, Retry-After 1) over 61 s, longer than …". */
  readonly reason: string;
  /** The run's pace when it gave up, in requests a second (pace.ts), when the deployment had cut it. */
  readonly paceRate?: number;
  readonly reproduce: string;
}

/**
 * A request the deployment kept refusing for the rate (429, or 503 with Retry-After) longer than a
 * run waits: its check is not judged (requirement.ts), never failed, since a rate limit is the
 * deployment protecting itself, not a fault of the contract. The run says so and suggests
 * --rate-limit.
 */
export class RateLimited extends Error {
  declare readonly init: RateLimitedInit;

  constructor(init: RateLimitedInit) {
    super(
      redact(
        `rate-limited: ${init.method} ${init.path} ${init.reason}${init.paceRate === undefined ? '' : `; the run's pace was down to ${init.paceRate} requests a second`}`,
      ),
    );
    this.name = 'RateLimited';
    Object.defineProperty(this, 'init', { value: init });
  }
}

/** Whether a value is a RateLimited, also across module copies. */
export function isRateLimited(value: unknown): value is RateLimited {
  return value instanceof RateLimited || (value instanceof Error && value.name === 'RateLimited');
}

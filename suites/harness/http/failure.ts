/**
 * An attempt that got no complete answer, in words and in kind: what the client does next depends on
 * where it broke (client.ts). Before its connection was made, the request was never written and may
 * be sent again whatever its method; a connection broken while a large body was still being written
 * says the server stopped reading it (its answer may have come first); a reset before any answer
 * says "not so many at once"; a broken answer is ANY-HTTP-MESSAGE's.
 */
import { formatBytes } from '../evidence/exchange.ts';
import type { CapacitySignal } from './capacity.ts';
import type { PriorRequest } from './connections.ts';
import { type Attempt, NotWritten } from './network.ts';

/** The attempt's own deadline (client.ts): the request got no complete answer within the timeout. */
export class Timeout {
  constructor(readonly ms: number) {}
}

/** An attempt that got no complete answer. */
export interface FailedAttempt {
  /** What happened, in one sentence: "connection refused (ECONNREFUSED) after 2 ms, before …". */
  readonly error: string;
  readonly durationMs: number;
  /** What came before it broke. */
  readonly partial: { status?: number; headers?: Record<string, string>; body?: Buffer };
  readonly headersAt?: number;
  /** No answer began (no status line), and the check did not stop the request itself. */
  readonly beforeAnswer: boolean;
  /** The answer is not a complete HTTP message (isBroken): ANY-HTTP-MESSAGE's to judge. */
  readonly broken: boolean;
  /**
   * The connection was refused, reset or closed before any answer began, or never made: not by the
   * check, nor by a timeout of a request the server had: no HTTP message at all, ANY-HTTP-MESSAGE's
   * to judge too.
   */
  readonly dropped: boolean;
  /** The request was never written on a connection: sent again, it is sent once, whatever its method. */
  readonly notWritten: boolean;
  /** The connection broke while the body was still being written: the server stopped reading it. */
  readonly bodyCut: boolean;
  /** What it says of how many requests the deployment takes at once (capacity.ts). */
  readonly capacity?: CapacitySignal;
  /** The request before it on its connection (connections.ts). */
  readonly prior?: PriorRequest;
}

/** Codes of a connection closed under the client (by a reset, or a close while it wrote). */
const CLOSED = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);
/** Codes of a connection that was never made in time. */
const NOT_CONNECTED = new Set(['UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT']);

/**
 * What a failed attempt was: `err` as undici rejected it, `reason` what aborted it (a Timeout, the
 * check's signal, NotWritten), `stopped` whether the check stopped it, `waitedMs` its time.
 */
export function failedAttempt(
  attempt: Attempt,
  err: unknown,
  stopped: { reason: unknown } | undefined,
  waitedMs: number,
): FailedAttempt {
  const { status, headers, headersAt, size } = attempt;
  const reason = attempt.abortReason ?? err;
  const timeout = reason instanceof Timeout;
  const phase =
    status === undefined
      ? 'before the status line and headers arrived'
      : `after status ${status} and ${formatBytes(size)} of body`;
  const what = timeout
    ? `no complete response within ${reason.ms} ms (timed out ${phase})`
    : reason instanceof NotWritten
      ? `${reason.message} (${Math.round(waitedMs)} ms)`
      : stopped
        ? `the request was abandoned after ${waitedMs} ms ${phase}: the test was stopped (${describeError(stopped.reason)})`
        : `${describeError(err)} after ${waitedMs} ms, ${phase}`;
  const capacity = stopped ? undefined : capacitySignalOf(attempt, reason);
  const notWritten = capacity !== undefined && attempt.connectedAt === undefined;
  const bodyCut =
    !stopped &&
    status === undefined &&
    attempt.connectedAt !== undefined &&
    !attempt.bodyWritten &&
    closed(err);
  return {
    error: what,
    durationMs: waitedMs,
    ...(headersAt === undefined ? {} : { headersAt }),
    beforeAnswer: status === undefined && !stopped,
    broken: !timeout && !stopped && isBroken(err, status !== undefined),
    dropped: status === undefined && !stopped && (!timeout || notWritten),
    notWritten,
    bodyCut,
    ...(capacity && !bodyCut ? { capacity } : {}),
    ...(attempt.prior ? { prior: attempt.prior } : {}),
    partial: {
      ...(status !== undefined ? { status } : {}),
      ...(headers ? { headers } : {}),
      ...(size > 0 ? { body: attempt.body } : {}),
    },
  };
}

/**
 * What a failed attempt says of the deployment's capacity: refused, not connected within the time,
 * let go for a slow connection, or closed before any answer; undefined for anything else (a name
 * not found, a certificate not trusted, a server that took the request and said nothing in time).
 */
function capacitySignalOf(attempt: Attempt, reason: unknown): CapacitySignal | undefined {
  if (attempt.status !== undefined) return undefined;
  if (reason instanceof NotWritten) return 'slow-connect';
  const code = codeOf(reason);
  if (attempt.connectedAt === undefined) {
    if (reason instanceof Timeout || NOT_CONNECTED.has(code)) return 'not-connected';
    if (code === 'ECONNREFUSED') return 'refused';
    return CLOSED.has(code) ? 'reset' : undefined;
  }
  return CLOSED.has(code) ? 'reset' : undefined;
}

function closed(err: unknown): boolean {
  return CLOSED.has(codeOf(err));
}

function codeOf(err: unknown): string {
  const withCause = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  return String(withCause?.code ?? withCause?.cause?.code ?? '');
}

const CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the server',
  EPIPE: 'connection closed by the server while the request was being sent',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  UND_ERR_SOCKET: 'connection closed by the server',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'no headers in time',
  UND_ERR_BODY_TIMEOUT: 'body stalled',
  UND_ERR_HEADERS_OVERFLOW: 'response headers too large',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'body shorter or longer than its Content-Length',
  HPE_INVALID_CONSTANT: 'not an HTTP response',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the certificate is self-signed and not trusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'the certificate is issued by a CA this machine does not trust',
  SELF_SIGNED_CERT_IN_CHAIN: 'the certificate chain ends in a CA this machine does not trust',
  CERT_HAS_EXPIRED: 'the certificate has expired',
  ERR_TLS_CERT_ALTNAME_INVALID: 'the certificate is not valid for this host name',
  ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED: 'the server asks for a client certificate',
};

/** A network error as a short sentence: "connection reset by the server (ECONNRESET)". */
export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const withCause = err as Error & { code?: string; cause?: unknown };
  const code = withCause.code ?? (withCause.cause as { code?: string } | undefined)?.code;
  if (code && CODES[code]) return `${CODES[code]} (${code})`;
  const inner = withCause.cause instanceof Error ? `: ${withCause.cause.message}` : '';
  return `${err.message || err.name}${inner}${code ? ` (${code})` : ''}`;
}

/**
 * Whether a failed attempt met an answer that is not a complete HTTP message: bytes that do not parse
 * as HTTP (llhttp's HPE_ codes: not HTTP at all, Content-Length beside chunked, a bad chunk), a body
 * longer or shorter than its Content-Length, or a connection closed once the answer had begun. A
 * refusal, a timeout or a reset before any answer began are the network's, not the message's.
 */
export function isBroken(err: unknown, answerBegan: boolean): boolean {
  const code = codeOf(err);
  if (code.startsWith('HPE_') || code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') return true;
  return answerBegan && CLOSED.has(code);
}

/**
 * What makes a run's requests findable in a deployment's logs and traces: W3C Trace Context
 * (https://www.w3.org/TR/trace-context/), one trace id for the run and a span id for each exchange,
 * and, when the deployment logs one, the exchange's id in a request-id header of its choosing.
 * Nothing in them is derived from the API key or any other secret: they are fresh random numbers.
 */
import { randomBytes } from 'node:crypto';
import type { Config } from '../config/config.ts';

/** A trace id: 16 random bytes as 32 lower-case hex digits, never all zeros (the spec's invalid value). */
export function newTraceId(): string {
  return nonZeroHex(16);
}

/** A span id: 8 random bytes as 16 lower-case hex digits, never all zeros. */
export function newSpanId(): string {
  return nonZeroHex(8);
}

function nonZeroHex(bytes: number): string {
  for (;;) {
    const hex = randomBytes(bytes).toString('hex');
    if (/[^0]/.test(hex)) return hex;
  }
}

/** `traceparent: 00-<trace-id>-<span-id>-01` (version 00, sampled). */
export function traceparent(traceId: string, spanId: string): string {
  return `00-${traceId}-${spanId}-01`;
}

/** Whether a value is a well-formed traceparent of version 00; its trace and span ids when it is. */
export function parseTraceparent(value: string): { traceId: string; spanId: string } | undefined {
  const m = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/.exec(value);
  if (!m || /^0+$/.test(m[1]!) || /^0+$/.test(m[2]!)) return undefined;
  return { traceId: m[1]!, spanId: m[2]! };
}

/**
 * The headers that make one exchange findable, by lower-case name: the User-Agent of the suite, and
 * with a trace id, the traceparent of a new span and the request-id header carrying the span id.
 */
export function traceHeaders(
  config: Pick<Config, 'userAgent' | 'traceId' | 'requestIdHeader'>,
): Record<string, string> {
  const headers: Record<string, string> = {};
  if (config.userAgent !== undefined) headers['user-agent'] = config.userAgent;
  if (config.traceId !== undefined) {
    const spanId = newSpanId();
    headers.traceparent = traceparent(config.traceId, spanId);
    if (config.requestIdHeader !== undefined) headers[config.requestIdHeader.toLowerCase()] = spanId;
  }
  return headers;
}

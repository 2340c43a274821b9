/**
 * What an answer says of the deployment's limits, read from its status and headers: whether it
 * refuses the request for now (429, 503), how long it asks to wait (Retry-After), and the quota it
 * declares (the RateLimit headers of the IETF httpapi drafts and their X- forerunners). Pure: the
 * pace (pace.ts, lane.ts) decides what to do with it.
 */

/** What an answer tells the pace: its status and (lower-case) headers. */
export interface PaceAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * Whether an answer refuses the request for now: 429 (RFC 6585 §4), or 503, a temporary overload
 * (RFC 9110 §15.6.4) with or without Retry-After. Whether the refusal is the run's pace, or the
 * server's answer after all, is the lane's to learn (lane.ts).
 */
export function isRefusal(answer: PaceAnswer): boolean {
  return answer.status === 429 || answer.status === 503;
}

/** Retry-After as milliseconds from now (delay-seconds or an HTTP-date), or undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, nowEpochMs: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowEpochMs);
}

/** A quota a deployment declares in its answers' headers. */
export interface DeclaredQuota {
  /** Requests allowed in a window. */
  readonly limit?: number;
  readonly windowSeconds?: number;
  /** Requests left in the current window. */
  readonly remaining?: number;
  /** Seconds until the window resets. */
  readonly resetSeconds?: number;
}

/**
 * The quota an answer declares, from the first of these that it carries:
 * - `RateLimit-Policy: "default";q=100;w=60` and `RateLimit: "default";r=5;t=30`
 *   (draft-ietf-httpapi-ratelimit-headers-08 and later, structured fields);
 * - `RateLimit: limit=100, remaining=5, reset=30` with `RateLimit-Policy: 100;w=60` (drafts 06-07);
 * - `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (drafts 00-05), or the same with
 *   `X-` (GitHub, GitLab, nginx modules and most gateways), where a reset larger than a year of
 *   seconds is read as the Unix time it resets at.
 * Undefined when it declares nothing readable.
 */
export function declaredQuota(
  headers: Readonly<Record<string, string>>,
  nowEpochMs = Date.now(),
): DeclaredQuota | undefined {
  const quota: { -readonly [K in keyof DeclaredQuota]: DeclaredQuota[K] } = {};
  const policy = headers['ratelimit-policy'];
  if (policy !== undefined) {
    const params = firstItemParams(policy);
    const q = params.q ?? params.limit ?? leadingNumber(policy);
    if (q !== undefined) quota.limit = q;
    if (params.w !== undefined) quota.windowSeconds = params.w;
  }
  const combined = headers.ratelimit;
  if (combined !== undefined) {
    const params = firstItemParams(combined);
    if (params.limit !== undefined) quota.limit ??= params.limit;
    const remaining = params.r ?? params.remaining;
    const reset = params.t ?? params.reset;
    if (remaining !== undefined) quota.remaining = remaining;
    if (reset !== undefined) quota.resetSeconds = reset;
  }
  for (const prefix of ['ratelimit-', 'x-ratelimit-']) {
    const limit = wholeNumber(headers[`${prefix}limit`]);
    const remaining = wholeNumber(headers[`${prefix}remaining`]);
    const reset = wholeNumber(headers[`${prefix}reset`]);
    if (limit !== undefined) quota.limit ??= limit;
    if (remaining !== undefined) quota.remaining ??= remaining;
    if (reset !== undefined)
      quota.resetSeconds ??= reset > 365 * 24 * 3600 ? Math.max(0, reset - nowEpochMs / 1000) : reset;
  }
  return Object.keys(quota).length === 0 ? undefined : quota;
}

/** The parameters of the first item of a list header: `"p";q=100;w=60, …` or `limit=100, remaining=5`. */
function firstItemParams(value: string): Record<string, number> {
  const params: Record<string, number> = {};
  // Both forms: parameters after ';' of the first item, or comma-separated key=value pairs.
  const first = value.split(',')[0] ?? '';
  const pairs = /[=]/.test(first) && !/;/.test(first) ? value.split(',') : first.split(';');
  for (const pair of pairs) {
    const [key, raw] = pair.split('=').map((s) => s.trim());
    const n = wholeNumber(raw);
    if (key && n !== undefined) params[key.toLowerCase()] = n;
  }
  return params;
}

function leadingNumber(value: string): number | undefined {
  return wholeNumber(value.split(/[;,]/)[0]);
}

function wholeNumber(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  return /^\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : undefined;
}

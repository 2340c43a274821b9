/**
 * Rate limiters in front of the reference, of the shapes gateways use: a token bucket (nginx's
 * limit_req, most API gateways), a fixed window (a counter per window, as in many rate-limit
 * middlewares), each refusing with 429 (with or without Retry-After) or shedding load with 503 and
 * Retry-After, and optionally declaring their quota (IETF httpapi RateLimit headers); a limit of
 * creates alone (a write quota); and refusals that do not depend on the run's pace (a limit shared
 * with other clients who use it up, load shed at random): one request in n. A correct server behind
 * any of them is conformant: the suite must meet the limit, slowly, and judge nothing by it.
 */
import type { ServerResponse } from 'node:http';
import { intercept, type Wrap } from './wrap.ts';

export interface LimiterOptions {
  /**
   * How a refused request is answered: its status, and a Retry-After of the seconds until a request
   * would pass (true), the same as an HTTP-date ('date'), of an hour ('long'), or none (false).
   */
  readonly refuse: { status: 429 | 503; retryAfter: boolean | 'long' | 'date' };
  /** Declare the quota on every answer: RateLimit-Policy and RateLimit (draft 08 structured form). */
  readonly declare?: boolean;
}

/** The time now, in milliseconds. */
const now = () => performance.now();

function refuse(res: ServerResponse, options: LimiterOptions, waitMs: number): void {
  const headers: Record<string, string> = { 'content-type': 'application/problem+json' };
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  if (options.refuse.retryAfter === 'long') headers['retry-after'] = '3600';
  // An HTTP-date has whole seconds: the next whole second `seconds` from now.
  else if (options.refuse.retryAfter === 'date')
    headers['retry-after'] = new Date((Math.floor(Date.now() / 1000) + seconds) * 1000).toUTCString();
  else if (options.refuse.retryAfter) headers['retry-after'] = String(seconds);
  res.writeHead(options.refuse.status, headers);
  res.end(
    options.refuse.status === 429 ? '{"title":"Too Many Requests"}' : '{"title":"Service Unavailable"}',
  );
}

/**
 * A token bucket: `perSecond` tokens a second, at most `burst` saved up; each request takes one, and
 * a request that finds none is refused.
 */
export function tokenBucket(perSecond: number, burst: number, options: LimiterOptions): Wrap {
  let tokens = burst;
  let last = now();
  const take = (): { ok: boolean; waitMs: number; remaining: number; resetS: number } => {
    const t = now();
    tokens = Math.min(burst, tokens + ((t - last) / 1000) * perSecond);
    last = t;
    if (tokens >= 1) {
      tokens -= 1;
      return { ok: true, waitMs: 0, remaining: Math.floor(tokens), resetS: 0 };
    }
    const waitMs = ((1 - tokens) / perSecond) * 1000;
    return { ok: false, waitMs, remaining: 0, resetS: Math.ceil(waitMs / 1000) };
  };
  return limiter(take, options, { quota: burst, windowS: Math.ceil(burst / perSecond) });
}

/** A fixed window: at most `limit` requests in each window of `windowMs`, counted from the first. */
export function fixedWindow(limit: number, windowMs: number, options: LimiterOptions): Wrap {
  let start = now();
  let count = 0;
  const take = () => {
    const t = now();
    if (t - start >= windowMs) {
      start = t;
      count = 0;
    }
    const waitMs = start + windowMs - t;
    const resetS = Math.ceil(waitMs / 1000);
    if (count < limit) {
      count++;
      return { ok: true, waitMs: 0, remaining: limit - count, resetS };
    }
    return { ok: false, waitMs, remaining: 0, resetS };
  };
  return limiter(take, options, { quota: limit, windowS: Math.ceil(windowMs / 1000) });
}

/**
 * Refuses one request in `n` (the n-th, the 2n-th…), whatever the pace: a limit other clients share
 * and use up, or load shed at random. Slowing down does not lower the share refused.
 */
export function oneIn(n: number, options: LimiterOptions): Wrap {
  let count = 0;
  return limiter(() => ({ ok: ++count % n !== 0, waitMs: 1000, remaining: 0, resetS: 1 }), options, {
    quota: n - 1,
    windowS: 1,
  });
}

/**
 * A quota of creates alone (POST), `perSecond` in each second (a fixed window), refused with a bare
 * 429; every other request passes, at any pace.
 */
export function writeQuota(perSecond: number): Wrap {
  const creates = fixedWindow(perSecond, 1_000, { refuse: { status: 429, retryAfter: false } });
  return (handler) => {
    const limited = creates(handler);
    return (req, res) => (req.method === 'POST' ? limited(req, res) : handler(req, res));
  };
}

/** Refuses every request, forever. */
export function refuseEverything(options: LimiterOptions): Wrap {
  return limiter(() => ({ ok: false, waitMs: 1000, remaining: 0, resetS: 1 }), options, {
    quota: 0,
    windowS: 1,
  });
}

function limiter(
  take: () => { ok: boolean; waitMs: number; remaining: number; resetS: number },
  options: LimiterOptions,
  policy: { quota: number; windowS: number },
): Wrap {
  return intercept((req, res) => {
    const taken = take();
    if (options.declare) {
      res.setHeader('ratelimit-policy', `"default";q=${policy.quota};w=${policy.windowS}`);
      res.setHeader('ratelimit', `"default";r=${taken.remaining};t=${taken.resetS}`);
    }
    if (taken.ok) return false;
    req.resume();
    refuse(res, options, taken.waitMs);
    return true;
  });
}

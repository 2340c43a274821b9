/**
 * The run's pace: when each request may start. One Pace for the whole run (the run has one worker, and
 * every client of every check asks the same Pace), so that a deployment that limits its clients is
 * met by the run as a whole, not by each request alone.
 *
 * - A ceiling set from the start: at most `concurrency` requests in flight (--concurrency), and at
 *   most `ratePerSecond` request starts in any second (--rate-limit).
 * - What the deployment says: a 429, or a 503 with Retry-After (load shedding), holds every new
 *   request until its Retry-After has passed (1 s when it gives none, doubled each time the hold did
 *   not help) and halves the pace; each second without one, the pace grows by a quarter again, up to
 *   the ceiling, and ten seconds without one leave the pace to the ceiling again. Refusals of requests
 *   sent before the pace reacted (sent at the old pace) hold the run for their Retry-After but do not
 *   cut the pace again.
 * - What the deployment declares before it refuses: `RateLimit-Policy` and `RateLimit` (IETF httpapi
 *   draft, in its structured form `"p";q=100;w=60` / `"p";r=5;t=30` and its older form
 *   `limit=100, remaining=5, reset=30`), `RateLimit-Limit`/`-Remaining`/`-Reset` and
 *   `X-RateLimit-Limit`/`-Remaining`/`-Reset`: a quota of q requests in w seconds becomes a ceiling
 *   of its own, and when the remaining quota is no more than the requests already in flight, new
 *   requests wait for its reset.
 *
 * Requests start in the order they asked (first come, first served), so a check waits no longer than
 * the requests queued before it.
 */

import type { Config } from '../config/config.ts';

/**
 * Requests a run keeps in flight at most, unless --concurrency says otherwise (one connection each).
 * The widest moment of a default run, the first round of its first phase, sends some 160 requests
 * at once; at 64 a deployment 200 ms away kept the run waiting about two round trips more than at
 * 128 (bench/latency.ts), and above 128 it gained nothing measurable while opening more connections.
 */
export const DEFAULT_CONCURRENCY = 128;

/**
 * How long one request may keep being refused for the rate (429, or 503 with Retry-After) before its
 * check is given up as not judged: the rate limit kept it from an answer (RateLimited).
 */
export function rateLimitPatienceMs(timeoutMs: number): number {
  return Math.max(60_000, 6 * timeoutMs);
}

/** The time source of a Pace (tests give their own). */
export interface Clock {
  /** Milliseconds, monotonic. */
  now(): number;
  /** Calls `fn` after `ms`; returns a function that cancels it. */
  after(ms: number, fn: () => void): () => void;
}

export const realClock: Clock = {
  now: () => performance.now(),
  after(ms, fn) {
    const timer = setTimeout(fn, Math.max(1, Math.ceil(ms)));
    return () => clearTimeout(timer);
  },
};

export interface PaceOptions {
  /** Requests in flight at most (--concurrency). */
  readonly concurrency: number;
  /** Request starts in any 1000 ms at most (--rate-limit); none by default. */
  readonly ratePerSecond?: number;
  /**
   * The longest the pace holds the run for one answer (a Retry-After, a declared reset): a longer one
   * is not waited at all (the request it answered is given up, client.ts), since no request would
   * wait that long. Default: no bound.
   */
  readonly maxHoldMs?: number;
  readonly clock?: Clock;
}

/** What an answer tells the pace: its status and (lower-case) headers; undefined when none came. */
export interface PaceAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
}

/** A request let through: tell the pace how it ended, once. */
export interface Admission {
  /** How long the request waited for the pace before it could start. */
  readonly waitedMs: number;
  /**
   * The request is on its way, at `at` (the clock's time, as its exchange records it): a little after
   * it was admitted, when the event loop came back to it. The ceiling counts it from then, so that the
   * starts it spaces are the requests' own.
   */
  sent(at: number): void;
  /**
   * `again`: the request was refused before (its 503 may be its own trouble, not the deployment
   * shedding load: it does not count as a second refusal in a row).
   */
  done(answer: PaceAnswer | undefined, again?: boolean): void;
}

/**
 * A window is kept this much longer than it is: logs (exchanges.har, a gateway's access log) time a
 * request to the millisecond, and a start exactly a window after another would read as within it.
 */
const LOG_PRECISION_MS = 2;

/** The pace never goes below one request a second, and above this it no longer limits. */
const MIN_RATE = 1;
const UNLIMITED_RATE = 10_000;
/** The pace grows by this factor each second without a refusal… */
const GROWTH_PER_SECOND = 1.25;
/** …and no longer limits once this long has passed without one. */
const FORGET_AFTER_MS = 10_000;
/** A refusal without Retry-After holds the run this long, doubled for each one in a row, at most MAX. */
const DEFAULT_HOLD_MS = 1_000;
const MAX_DEFAULT_HOLD_MS = 30_000;

/** What the pace has met so far: for the run's reports. */
export interface PaceReport {
  /** Answers that refused a request for its rate (429, or 503 with Retry-After). */
  readonly refusals: number;
  /** The time every request spent waiting for the pace, added up. */
  readonly waitedMs: number;
  /** The pace the deployment left the run at (requests a second), when it ever cut it. */
  readonly rate?: number;
  /** The quota the deployment declared (requests in seconds), when it did. */
  readonly declared?: { readonly requests: number; readonly seconds: number };
}

interface Waiter {
  readonly since: number;
  readonly resolve: (admission: Admission) => void;
  readonly reject: (reason: unknown) => void;
  /** The signal of the check that asked: aborted, the waiter leaves the queue. */
  readonly signal?: AbortSignal;
}

/**
 * The run no longer waits for the deployment's limit: it asked for longer than a request waits
 * (a Retry-After past maxHoldMs), or answered nothing but refusals for that long. Every request then
 * gets this instead of an admission (client.ts makes it RateLimited: not judged).
 */
export class PaceGivenUp extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'PaceGivenUp';
  }
}

/** A limit of `limit` starts in any `ms` milliseconds. */
interface Window {
  readonly limit: number;
  readonly ms: number;
}

export class Pace {
  private readonly clock: Clock;
  private readonly concurrency: number;
  private readonly ceiling: Window | undefined;
  private readonly maxHoldMs: number;
  private declared: Window | undefined;
  private inFlight = 0;
  private readonly queue: Waiter[] = [];
  /** Start times of recent requests, oldest first (as far back as the longest window). */
  private readonly starts: number[] = [];
  private lastStart = Number.NEGATIVE_INFINITY;
  /** No request starts before this (a Retry-After, a declared reset). */
  private holdUntil = 0;
  /** The pace after the last cut, and when it was cut; undefined while the deployment never refused. */
  private cut: { rate: number; at: number } | undefined;
  /** When the pace last reacted to a refusal (requests sent before it were sent at the old pace). */
  private reactedAt = Number.NEGATIVE_INFINITY;
  /** Default holds in a row (a refusal without Retry-After of a request sent after the last one). */
  private escalations = 0;
  private refusals = 0;
  /** Answers that were not refusals, counted (a 503 one request keeps getting while others are answered is its own). */
  answered = 0;
  private waited = 0;
  /** Time during which some request waited for the pace: finished spells added up, and the current one's start. */
  private heldMs = 0;
  private heldSince: number | undefined;
  private cancelTimer: (() => void) | undefined;
  /** The signals followed (follow()). */
  private readonly followed = new WeakSet<AbortSignal>();
  /** Why the run no longer waits for the deployment (giveUp()), once it does not. */
  private givenUp: string | undefined;
  /** Since when every answer has been a refusal (undefined after any other answer). */
  private refusedSince: number | undefined;

  constructor(options: PaceOptions) {
    this.clock = options.clock ?? realClock;
    this.concurrency = Math.max(1, Math.floor(options.concurrency));
    this.maxHoldMs = options.maxHoldMs ?? Number.POSITIVE_INFINITY;
    this.ceiling =
      options.ratePerSecond === undefined ? undefined : { limit: options.ratePerSecond, ms: 1_000 };
  }

  /** Resolves when a request may start; rejects with the signal's reason when it is aborted first. */
  admit(signal?: AbortSignal): Promise<Admission> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.givenUp !== undefined) return Promise.reject(new PaceGivenUp(this.givenUp));
    return new Promise<Admission>((resolve, reject) => {
      const waiter: Waiter = { since: this.clock.now(), resolve, reject, ...(signal ? { signal } : {}) };
      if (signal) this.follow(signal);
      if (this.queue.length === 0) this.heldSince = waiter.since;
      this.queue.push(waiter);
      this.pump();
    });
  }

  /**
   * Takes the waiters of `signal` out of the queue, with its reason, when it is aborted: one listener
   * per signal (a check's requests share its signal, and Node warns past ten listeners on one).
   */
  private follow(signal: AbortSignal): void {
    if (this.followed.has(signal)) return;
    this.followed.add(signal);
    signal.addEventListener(
      'abort',
      () => {
        const leaving = this.queue.filter((w) => w.signal === signal);
        if (leaving.length === 0) return;
        for (const w of leaving) this.queue.splice(this.queue.indexOf(w), 1);
        for (const w of leaving) w.reject(signal.reason);
        this.pump();
      },
      { once: true },
    );
  }

  /** Ends the run's waiting: every request waiting and every one asking later is refused with `reason`. */
  private giveUp(reason: string): void {
    if (this.givenUp !== undefined) return;
    this.givenUp = reason;
    const waiting = this.queue.splice(0);
    for (const w of waiting) w.reject(new PaceGivenUp(reason));
    this.pump();
  }

  /** The current pace in requests a second, or undefined when it does not limit. */
  rate(now = this.clock.now()): number | undefined {
    if (!this.cut || now - this.cut.at >= FORGET_AFTER_MS) return undefined;
    const grown = this.cut.rate * GROWTH_PER_SECOND ** (Math.max(0, now - this.cut.at) / 1_000);
    return grown >= UNLIMITED_RATE ? undefined : grown;
  }

  report(): PaceReport {
    const rate = this.rate();
    return {
      refusals: this.refusals,
      waitedMs: Math.round(this.waited),
      ...(rate === undefined ? {} : { rate: Math.round(rate * 10) / 10 }),
      ...(this.declared
        ? { declared: { requests: this.declared.limit, seconds: this.declared.ms / 1_000 } }
        : {}),
    };
  }

  /** When the next request may start, from now on. */
  private nextStartAt(now: number): number {
    let at = Math.max(now, this.holdUntil);
    for (const window of [this.ceiling, this.declared]) {
      if (!window || this.starts.length < window.limit) continue;
      // The start `limit` starts back must have left the window, as a log to the millisecond shows it.
      const oldest = this.starts[this.starts.length - window.limit]!;
      at = Math.max(at, oldest + window.ms + LOG_PRECISION_MS);
    }
    const rate = this.rate(now);
    if (rate !== undefined) at = Math.max(at, this.lastStart + 1_000 / rate);
    return at;
  }

  /**
   * How long, in all, some request has waited for the pace (the run was held back by it): the time
   * budgets of checks do not count it (requirement.ts, generate.ts, sequences.ts).
   */
  heldTime(now = this.clock.now()): number {
    return this.heldMs + (this.heldSince === undefined ? 0 : now - this.heldSince);
  }

  private pump(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    try {
      this.admitWhatMay();
    } finally {
      if (this.queue.length === 0 && this.heldSince !== undefined) {
        this.heldMs += this.clock.now() - this.heldSince;
        this.heldSince = undefined;
      }
    }
  }

  private admitWhatMay(): void {
    while (this.queue.length > 0 && this.inFlight < this.concurrency) {
      const now = this.clock.now();
      const at = this.nextStartAt(now);
      if (at > now) {
        this.cancelTimer = this.clock.after(at - now, () => this.pump());
        return;
      }
      const waiter = this.queue.shift()!;
      this.start(now, waiter);
    }
  }

  private start(now: number, waiter: Waiter): void {
    this.inFlight++;
    this.lastStart = now;
    this.starts.push(now);
    // Kept as long as a window (or the last second, for the pace's own measure) may need them.
    const span = Math.max(1_000, this.ceiling?.ms ?? 0, this.declared?.ms ?? 0);
    const old = this.starts.findIndex((t) => t > now - span);
    if (old > 0) this.starts.splice(0, old);
    const waitedMs = now - waiter.since;
    this.waited += waitedMs;
    let ended = false;
    let startedAt = now;
    waiter.resolve({
      waitedMs,
      sent: (at) => {
        if (at <= startedAt) return;
        // Moved to when it was sent, the starts kept in order.
        const i = this.starts.lastIndexOf(startedAt);
        if (i >= 0) this.starts.splice(i, 1);
        let j = this.starts.length;
        while (j > 0 && this.starts[j - 1]! > at) j--;
        this.starts.splice(j, 0, at);
        if (this.lastStart === startedAt) this.lastStart = at;
        startedAt = at;
      },
      done: (answer, again = false) => {
        if (ended) return;
        ended = true;
        this.inFlight--;
        if (answer) this.learn(answer, startedAt, again);
        this.pump();
      },
    });
  }

  /**
   * What an answer to a request started at `startedAt` tells the pace. A refusal of a request sent
   * before the pace last reacted tells nothing new (it was sent at the old pace): it holds the run
   * for its own Retry-After, and neither cuts the pace again nor lengthens a default hold.
   */
  private learn(answer: PaceAnswer, startedAt: number, again: boolean): void {
    const now = this.clock.now();
    const sentSince = startedAt >= this.reactedAt;
    if (isRefusal(answer)) {
      this.refusals++;
      this.refusedSince ??= now;
      const retryAfter = retryAfterMs(answer.headers['retry-after'], Date.now());
      if (retryAfter !== undefined && retryAfter > this.maxHoldMs)
        this.giveUp(
          `the deployment asked to wait ${Math.round(retryAfter / 1000)} s (${answer.status}, Retry-After ${answer.headers['retry-after']}), longer than a run waits (${Math.round(this.maxHoldMs / 1000)} s)`,
        );
      else if (now - this.refusedSince > this.maxHoldMs)
        this.giveUp(
          `the deployment answered nothing but ${answer.status} for ${Math.round((now - this.refusedSince) / 1000)} s, longer than a run waits (${Math.round(this.maxHoldMs / 1000)} s)`,
        );
      if (retryAfter !== undefined) this.hold(now, retryAfter);
      if (sentSince) {
        this.reactedAt = now;
        if (retryAfter === undefined) {
          this.escalations++;
          this.hold(now, Math.min(MAX_DEFAULT_HOLD_MS, DEFAULT_HOLD_MS * 2 ** (this.escalations - 1)));
        }
        // A 503 this request got before may be its own trouble (client.ts), not load shed.
        if (answer.status === 429 || !again) {
          const current = this.rate(now) ?? this.recentRate(now);
          this.cut = { rate: Math.max(MIN_RATE, current / 2), at: now };
        }
      }
    } else {
      if (sentSince) this.escalations = 0;
      this.answered++;
      this.refusedSince = undefined;
    }
    this.learnDeclared(answer.headers, now);
  }

  /** The pace of the last second's starts, in requests a second (over the time they took, when less). */
  private recentRate(now: number): number {
    const recent = this.starts.filter((t) => t > now - 1_000);
    if (recent.length === 0) return MIN_RATE * 2;
    const span = Math.max(100, now - recent[0]!);
    return (recent.length * 1_000) / span;
  }

  private learnDeclared(headers: Readonly<Record<string, string>>, now: number): void {
    const quota = declaredQuota(headers);
    if (!quota) return;
    if (quota.limit !== undefined && quota.windowSeconds !== undefined && quota.limit > 0)
      this.declared = { limit: quota.limit, ms: quota.windowSeconds * 1_000 };
    // Nothing left for the requests already in flight: wait for the window to reset.
    if (quota.remaining !== undefined && quota.resetSeconds !== undefined && quota.remaining <= this.inFlight)
      this.hold(now, quota.resetSeconds * 1_000);
  }

  /** Holds every new request `ms` from now, unless that is longer than the pace holds (maxHoldMs). */
  private hold(now: number, ms: number): void {
    if (ms <= this.maxHoldMs) this.holdUntil = Math.max(this.holdUntil, now + ms);
  }
}

/** Whether an answer refuses the request for the rate it came at: 429, or 503 with Retry-After. */
export function isRefusal(answer: PaceAnswer): boolean {
  return answer.status === 429 || (answer.status === 503 && answer.headers['retry-after'] !== undefined);
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

/**
 * The run's pace (pace.ts): one per run, shared by every client of every check, as the connection
 * pool is, so that the run as a whole meets the deployment's rate limit.
 */
export function runPace(config: Pick<Config, 'runId' | 'rateLimit' | 'concurrency' | 'timeoutMs'>): Pace {
  const key = Symbol.for('petstore-conformance.paces');
  const holder = globalThis as { [key]?: Map<string, Pace> };
  holder[key] ??= new Map();
  const id = JSON.stringify([config.runId, config.rateLimit, config.concurrency]);
  let pace = holder[key].get(id);
  if (pace === undefined) {
    pace = new Pace({
      concurrency: config.concurrency ?? DEFAULT_CONCURRENCY,
      maxHoldMs: rateLimitPatienceMs(config.timeoutMs),
      ...(config.rateLimit === undefined ? {} : { ratePerSecond: config.rateLimit }),
    });
    holder[key].set(id, pace);
  }
  return pace;
}

/**
 * The run's own clock, in milliseconds: performance.now() less the time the run was held back by its
 * pace. Time budgets of checks are measured on it, so that a deployment's rate limit slows a run
 * rather than cutting its checks short.
 */
export function runClock(
  config: Pick<Config, 'runId' | 'rateLimit' | 'concurrency' | 'timeoutMs'>,
): () => number {
  const pace = runPace(config);
  return () => performance.now() - pace.heldTime();
}

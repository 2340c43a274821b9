/**
 * The run's pace: when each request may start. One Pace for the whole run (the run has one worker, and
 * every client of every check asks the same Pace), so that a deployment that limits its clients is
 * met by the run as a whole, not by each request alone.
 *
 * - A ceiling set from the start: at most `concurrency` requests in flight (--concurrency), and at
 *   most `ratePerSecond` request starts in any second (--rate-limit).
 * - What the deployment says with its answers: a 429 or a 503 (lane.ts). The run's own lane holds
 *   and paces every request; once only one kind of request (an operation: POST /pets) is refused
 *   while the others are answered, that kind gets a lane of its own and the others go on at their
 *   pace. Refusals whose share does not depend on the pace make each refused request wait alone.
 * - What the deployment says below HTTP: connections refused, not made in time, made only after TCP
 *   sent its SYN again, or reset before any answer lower the concurrency (capacity.ts).
 * - What the deployment declares before it refuses: `RateLimit-Policy` and `RateLimit` (IETF httpapi
 *   draft), `RateLimit-Limit`/`-Remaining`/`-Reset` and their `X-` forms (quota.ts): a quota of q
 *   requests in w seconds becomes a ceiling of its own, and when the remaining quota is no more than
 *   the requests already in flight, new requests wait for its reset.
 *
 * Requests start in the order they asked (first come, first served) among those their lanes let go,
 * so a check waits no longer than the requests of its kind queued before it.
 */

import type { Config } from '../config/config.ts';
import { Capacity, type CapacityReport, type CapacitySignal } from './capacity.ts';
import { Lane, type LaneReport } from './lane.ts';
import { declaredQuota, isRefusal, type PaceAnswer, retryAfterMs } from './quota.ts';

export type { CapacitySignal } from './capacity.ts';
export { type DeclaredQuota, declaredQuota, isRefusal, type PaceAnswer, retryAfterMs } from './quota.ts';

/**
 * Requests a run keeps in flight at most, unless --concurrency says otherwise (one connection each).
 * The widest moment of a default run, the first round of its first phase, sends some 160 requests
 * at once; at 64 a deployment 200 ms away kept the run waiting about two round trips more than at
 * 128 (bench/latency.ts), and above 128 it gained nothing measurable while opening more connections.
 */
export const DEFAULT_CONCURRENCY = 128;

/**
 * How long one request may keep being refused for the rate (429, 503) before its check is given up
 * as not judged: the rate limit kept it from an answer (RateLimited).
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
  /** How the concurrency meets the deployment's capacity (tests give their own). */
  readonly capacity?: Capacity;
}

/** What a request asks the pace for. */
export interface Ask {
  /** Its kind of request (kindOf): a lane of its own once that kind alone is refused. */
  readonly kind?: string;
  /** Not before this time (the clock's): a refused request waiting its own Retry-After. */
  readonly notBefore?: number;
  /**
   * Its place in the queue: when it first asked (the clock's time). A request sent again keeps the
   * place it had, ahead of those that asked after it.
   */
  readonly place?: number;
}

/** How a request ended, as the pace hears of it. */
export type PaceOutcome =
  /** An answer; `again`: the request was refused before (a 503 it keeps getting may be its own). */
  | { readonly answer: PaceAnswer; readonly again?: boolean }
  /** No answer: the deployment did not take the request (capacity.ts). */
  | { readonly capacity: CapacitySignal }
  /** No answer, for another reason (a timeout, a broken answer, the check stopped). */
  | undefined;

/** What the pace makes of how a request ended. */
export type PaceVerdict =
  /** The answer is the request's own: hand it to its check. */
  | { readonly kind: 'answer' }
  /** Refused for now: send it again, not before `notBefore` (its lanes may hold it longer). */
  | { readonly kind: 'refused'; readonly notBefore: number }
  /** The deployment did not take it, and took fewer requests at once since: send it again. */
  | { readonly kind: 'resend' }
  /** Nothing the pace can do about it. */
  | { readonly kind: 'failed' };

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
   * Its connection was there `ms` after it was sent: false when that was slow (capacity.ts), and the
   * request is not to be written on it (it ends with done({ capacity: 'slow-connect' })).
   */
  connected(ms: number): boolean;
  done(outcome: PaceOutcome): PaceVerdict;
}

/**
 * A window is kept this much longer than it is: logs (exchanges.har, a gateway's access log) time a
 * request to the millisecond, and a start exactly a window after another would read as within it.
 */
const LOG_PRECISION_MS = 2;
/** Answers of other kinds, not refused, that show one kind's refusals to be its own limit. */
const OTHERS_ANSWERED = 10;
/** The kind of the requests asked for without one (the harness's own tests). */
const ANY_KIND = 'any';

/** What one kind of request met, for the run's reports. */
export interface KindReport extends LaneReport {
  /** "POST /pets", "GET /pets/{id}" (kindOf). */
  readonly kind: string;
  /** Refusals by status ("429", "503"), each waited out and sent again. */
  readonly refusals: Readonly<Record<string, number>>;
  /** This kind alone was limited: it had a lane of its own, and the others went on at their pace. */
  readonly own?: true;
}

/** What the pace has met so far: for the run's reports. */
export interface PaceReport {
  /** Answers that refused a request for now (429, 503), each waited out and sent again. */
  readonly refusals: number;
  /** The same by status: "429", "503". */
  readonly byStatus: Readonly<Record<string, number>>;
  /**
   * How long the run was held back by the deployment: the time during which a request waited for a
   * Retry-After, a pace the deployment cut, its declared quota or the concurrency it came down to
   * (not for --rate-limit or --concurrency alone).
   */
  readonly waitedMs: number;
  /** The run's pace now (requests a second), when the deployment cut it and it has not grown back. */
  readonly rate?: number;
  /** The run's own lane: the lowest pace it was cut to, whether its refusals kept their share… */
  readonly lane: LaneReport;
  /** The quota the deployment declared (requests in seconds), when it did. */
  readonly declared?: { readonly requests: number; readonly seconds: number };
  /** Each kind of request that was refused, with what it met. */
  readonly kinds: readonly KindReport[];
  /** The concurrency the deployment's capacity brought the run down to, when it did. */
  readonly capacity?: CapacityReport;
}

interface Waiter {
  readonly since: number;
  /** Its place in the queue (Ask.place). */
  readonly place: number;
  readonly kind: string;
  readonly notBefore: number;
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
  private readonly capacity: Capacity;
  private readonly ceiling: Window | undefined;
  private readonly maxHoldMs: number;
  private declared: Window | undefined;
  /** No request starts before this: a declared quota's reset. */
  private declaredHold = 0;
  private inFlight = 0;
  private readonly queue: Waiter[] = [];
  /** Start times of recent requests, oldest first (as far back as the longest window). */
  private readonly starts: number[] = [];
  /** The run's own lane, which every request goes through. */
  private readonly lane = new Lane();
  /** The lanes of the kinds limited on their own. */
  private readonly lanes = new Map<string, Lane>();
  /** Refusals by kind and status. */
  private readonly refusalsByKind = new Map<string, Record<string, number>>();
  /** Answers that were not refusals, counted (a 503 one request keeps getting while others are answered is its own). */
  answered = 0;
  /** Refusals, counted. */
  refusals = 0;
  /** Time during which some request waited for the pace: finished spells added up, and the current one's start. */
  private heldMs = 0;
  private heldSince: number | undefined;
  /** The same, for the deployment's limits alone. */
  private limitedMs = 0;
  private limitedSince: number | undefined;
  private cancelTimer: (() => void) | undefined;
  /** The signals followed (follow()). */
  private readonly followed = new WeakSet<AbortSignal>();
  /** Why the run no longer waits for the deployment (giveUp()), once it does not. */
  private givenUp: string | undefined;
  /** Since when every answer has been a refusal (undefined after any other answer). */
  private refusedSince: number | undefined;

  constructor(options: PaceOptions) {
    this.clock = options.clock ?? realClock;
    this.capacity = options.capacity ?? new Capacity(Math.max(1, Math.floor(options.concurrency)));
    this.maxHoldMs = options.maxHoldMs ?? Number.POSITIVE_INFINITY;
    this.ceiling =
      options.ratePerSecond === undefined ? undefined : { limit: options.ratePerSecond, ms: 1_000 };
  }

  /** Resolves when a request may start; rejects with the signal's reason when it is aborted first. */
  admit(signal?: AbortSignal, ask: Ask = {}): Promise<Admission> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.givenUp !== undefined) return Promise.reject(new PaceGivenUp(this.givenUp));
    return new Promise<Admission>((resolve, reject) => {
      const since = this.clock.now();
      const waiter: Waiter = {
        since,
        place: ask.place ?? since,
        kind: ask.kind ?? ANY_KIND,
        notBefore: ask.notBefore ?? 0,
        resolve,
        reject,
        ...(signal ? { signal } : {}),
      };
      if (signal) this.follow(signal);
      if (this.queue.length === 0) this.heldSince = waiter.since;
      let at = this.queue.length;
      while (at > 0 && this.queue[at - 1]!.place > waiter.place) at--;
      this.queue.splice(at, 0, waiter);
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

  /** The run's pace in requests a second (its own lane's), or undefined when it does not limit. */
  rate(now = this.clock.now()): number | undefined {
    return this.lane.rate(now);
  }

  /** The pace of the lane `kind` goes through: its own when it has one, else the run's. */
  rateOf(kind: string, now = this.clock.now()): number | undefined {
    return (this.lanes.get(kind) ?? this.lane).rate(now);
  }

  /** The concurrency now: --concurrency, or what the deployment's capacity brought it down to. */
  concurrency(): number {
    return this.capacity.limit;
  }

  report(): PaceReport {
    const now = this.clock.now();
    const rate = this.rate(now);
    const byStatus: Record<string, number> = {};
    let refusals = 0;
    const kinds: KindReport[] = [];
    for (const [kind, counts] of this.refusalsByKind) {
      for (const [status, n] of Object.entries(counts)) {
        byStatus[status] = (byStatus[status] ?? 0) + n;
        refusals += n;
      }
      const own = this.lanes.get(kind);
      kinds.push({ kind, refusals: { ...counts }, ...(own ? { ...own.report(), own: true as const } : {}) });
    }
    const capacity = this.capacity.report();
    return {
      refusals,
      byStatus,
      waitedMs: Math.round(this.limitedMs + (this.limitedSince === undefined ? 0 : now - this.limitedSince)),
      ...(rate === undefined ? {} : { rate: Math.round(rate * 10) / 10 }),
      lane: this.lane.report(),
      ...(this.declared
        ? { declared: { requests: this.declared.limit, seconds: this.declared.ms / 1_000 } }
        : {}),
      kinds,
      ...(capacity ? { capacity } : {}),
    };
  }

  /** The pace's clock: the time a place in its queue is given in (Ask.place). */
  now(): number {
    return this.clock.now();
  }

  /**
   * How long, in all, some request has waited for the pace (the run was held back by it): the time
   * budgets of checks do not count it (requirement.ts, generate.ts, sequences.ts).
   */
  heldTime(now = this.clock.now()): number {
    return this.heldMs + (this.heldSince === undefined ? 0 : now - this.heldSince);
  }

  /** When any request may start as far as the run's ceilings and the deployment's declared quota go. */
  private windowsAt(now: number, deployment: boolean): number {
    let at = deployment ? Math.max(now, this.declaredHold) : now;
    for (const window of deployment ? [this.ceiling, this.declared] : [this.ceiling]) {
      if (!window || this.starts.length < window.limit) continue;
      // The start `limit` starts back must have left the window, as a log to the millisecond shows it.
      const oldest = this.starts[this.starts.length - window.limit]!;
      at = Math.max(at, oldest + window.ms + LOG_PRECISION_MS);
    }
    return at;
  }

  /** When a waiter may start, from now on: its lanes, its own wait, the windows (`windowsAt`). */
  private startAt(w: Waiter, now: number, windowsAt: number): number {
    let at = Math.max(windowsAt, w.notBefore, this.lane.nextStartAt(now));
    const own = this.lanes.get(w.kind);
    if (own) at = Math.max(at, own.nextStartAt(now));
    return at;
  }

  private pump(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    try {
      this.admitWhatMay();
    } finally {
      const now = this.clock.now();
      if (this.queue.length === 0 && this.heldSince !== undefined) {
        this.heldMs += now - this.heldSince;
        this.heldSince = undefined;
      }
      this.measureLimited(now);
    }
  }

  private admitWhatMay(): void {
    while (this.queue.length > 0 && this.inFlight < this.capacity.limit) {
      const now = this.clock.now();
      const windowsAt = this.windowsAt(now, true);
      let next = Number.POSITIVE_INFINITY;
      let ready = -1;
      for (let i = 0; i < this.queue.length && ready < 0; i++) {
        const at = this.startAt(this.queue[i]!, now, windowsAt);
        if (at <= now) ready = i;
        else next = Math.min(next, at);
      }
      if (ready < 0) {
        this.cancelTimer = this.clock.after(next - now, () => this.pump());
        return;
      }
      const [waiter] = this.queue.splice(ready, 1);
      this.start(now, waiter!);
    }
  }

  /**
   * Keeps the time the deployment held the run: a request waiting that the run's own ceilings would
   * have let go (a Retry-After, a cut pace, a declared quota, the concurrency it came down to).
   */
  private measureLimited(now: number): void {
    const limited = this.queue.length > 0 && this.limitedNow(now);
    if (limited && this.limitedSince === undefined) this.limitedSince = now;
    if (!limited && this.limitedSince !== undefined) {
      this.limitedMs += now - this.limitedSince;
      this.limitedSince = undefined;
    }
  }

  private limitedNow(now: number): boolean {
    const { limit, ceiling } = this.capacity;
    if (this.inFlight >= limit) return limit < ceiling && this.inFlight < ceiling;
    const first = this.queue[0]!;
    const free = this.windowsAt(now, false);
    return free <= now && this.startAt(first, now, this.windowsAt(now, true)) > now;
  }

  private start(now: number, waiter: Waiter): void {
    this.inFlight++;
    this.starts.push(now);
    // Kept as long as a window may need them.
    const span = Math.max(1_000, this.ceiling?.ms ?? 0, this.declared?.ms ?? 0);
    const old = this.starts.findIndex((t) => t > now - span);
    if (old > 0) this.starts.splice(0, old);
    const kind = waiter.kind;
    const own = this.lanes.get(kind);
    // The epoch of the lane that paces it: its kind's own, or the run's.
    const runEpoch = this.lane.started(now);
    const epoch = own ? own.started(now) : runEpoch;
    const sentAtLimit = this.capacity.limit;
    const waitedMs = now - waiter.since;
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
        startedAt = at;
      },
      connected: (ms) => !this.capacity.slowConnect(startedAt, sentAtLimit, ms, this.clock.now()),
      done: (outcome) => {
        if (ended) return { kind: 'failed' };
        ended = true;
        this.inFlight--;
        const verdict = this.learn(outcome, { kind, startedAt, sentAtLimit, epoch });
        this.pump();
        return verdict;
      },
    });
  }

  /** What the end of a request sent at `sent` tells the pace, and what it means for the request. */
  private learn(
    outcome: PaceOutcome,
    sent: { kind: string; startedAt: number; sentAtLimit: number; epoch: number },
  ): PaceVerdict {
    const now = this.clock.now();
    if (outcome === undefined) return { kind: 'failed' };
    if ('capacity' in outcome) {
      const again = this.capacity.signal(outcome.capacity, sent.startedAt, sent.sentAtLimit, now);
      return { kind: again ? 'resend' : 'failed' };
    }
    const { answer } = outcome;
    this.learnDeclared(answer.headers, now);
    if (!isRefusal(answer)) {
      this.capacity.answered(now - sent.startedAt);
      this.answer(sent, now);
      return { kind: 'answer' };
    }
    const retryAfter = retryAfterMs(answer.headers['retry-after'], Date.now());
    const verdict = this.laneFor(sent).refused(
      {
        status: answer.status,
        ...(retryAfter === undefined ? {} : { retryAfterMs: retryAfter }),
        epoch: sent.epoch,
        sentAt: sent.startedAt,
        kind: sent.kind,
        again: outcome.again === true,
      },
      now,
    );
    if (verdict.answer) {
      this.answer(sent, now);
      return { kind: 'answer' };
    }
    this.refusals++;
    const counts = this.refusalsByKind.get(sent.kind) ?? {};
    counts[String(answer.status)] = (counts[String(answer.status)] ?? 0) + 1;
    this.refusalsByKind.set(sent.kind, counts);
    this.refusedSince ??= now;
    if (retryAfter !== undefined && retryAfter > this.maxHoldMs)
      this.giveUp(
        `the deployment asked to wait ${Math.round(retryAfter / 1000)} s (${answer.status}, Retry-After ${answer.headers['retry-after']}), longer than a run waits (${Math.round(this.maxHoldMs / 1000)} s)`,
      );
    else if (now - this.refusedSince > this.maxHoldMs)
      this.giveUp(
        `the deployment answered nothing but ${answer.status} for ${Math.round((now - this.refusedSince) / 1000)} s, longer than a run waits (${Math.round(this.maxHoldMs / 1000)} s)`,
      );
    return { kind: 'refused', notBefore: verdict.notBefore };
  }

  /** An answer of `sent` that is its own: its lanes hear of it, and the run's refusals in a row end. */
  private answer(sent: { kind: string; epoch: number; startedAt: number }, now: number): void {
    const own = this.lanes.get(sent.kind);
    own?.answered(sent.epoch, sent.kind, sent.startedAt, now);
    // The run's own lane counts the kinds it paces alone; it measures what got through of every kind.
    this.lane.answered(own ? undefined : sent.epoch, sent.kind, sent.startedAt, now);
    this.answered++;
    this.refusedSince = undefined;
  }

  /**
   * The lane a refusal of `sent` goes to: the kind's own; or, when only that kind is refused now while
   * the others are answered, a lane of its own made from the run's; else the run's.
   */
  private laneFor(sent: { kind: string }): Lane {
    const own = this.lanes.get(sent.kind);
    if (own) return own;
    if (this.lane.onlyRefused(sent.kind, OTHERS_ANSWERED)) {
      const split = this.lane.split(sent.kind, this.clock.now());
      this.lanes.set(sent.kind, split);
      return split;
    }
    return this.lane;
  }

  private learnDeclared(headers: Readonly<Record<string, string>>, now: number): void {
    const quota = declaredQuota(headers);
    if (!quota) return;
    if (quota.limit !== undefined && quota.windowSeconds !== undefined && quota.limit > 0)
      this.declared = { limit: quota.limit, ms: quota.windowSeconds * 1_000 };
    // Nothing left for the requests already in flight: wait for the window to reset.
    if (
      quota.remaining !== undefined &&
      quota.resetSeconds !== undefined &&
      quota.remaining <= this.inFlight &&
      quota.resetSeconds * 1_000 <= this.maxHoldMs
    )
      this.declaredHold = Math.max(this.declaredHold, now + quota.resetSeconds * 1_000);
  }
}

/**
 * The kind of a request, for its lane (pace.ts) and the reports: its method and its path under the
 * base URL, each segment after the first that holds a digit written `{id}` (POST /pets, GET
 * /pets/{id}, GET /store/orders). The query is left out; so is a whole URL's origin and base path.
 */
export function kindOf(method: string, path: string, baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  const under = path.startsWith(base) ? path.slice(base.length) : path.replace(/^https?:\/\/[^/]+/, '');
  const segments = (under.split('?')[0] ?? '').split('/').filter((s) => s !== '');
  const shown = segments.map((s, i) => (i > 0 && /\d/.test(s) ? '{id}' : s));
  return `${method.toUpperCase()} /${shown.join('/')}`;
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

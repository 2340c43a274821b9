/**
 * How many requests the deployment takes at once: the run's concurrency (--concurrency, 128 by
 * default), lowered when the deployment says "not so many at once" below HTTP, as it is lowered for
 * a rate limit above it (lane.ts):
 *
 * - a connection refused, or not made within the request's time (the listen queue full: the
 *   kernel drops what it cannot hold);
 * - a connection made only after TCP sent its SYN again (RFC 6298 §2.1: one second at least): the
 *   listen queue overflowed, and the requests queued behind it wait seconds or are dropped. Such a
 *   connection is let go before the request is written on it (client.ts), and the request is sent
 *   again at the lower concurrency;
 * - a connection reset before any answer began.
 *
 * Each lowers the concurrency once for the requests sent at it (the others were sent before the run
 * knew): to half, or to the number of requests that got their connection at once since the last
 * time, when fewer (what the deployment took). It never grows back in the run: the deployment said
 * what it takes. Only at one request at a time is what the deployment still cannot take a finding
 * (client.ts).
 */

/** What the deployment did that says "not so many at once". */
export type CapacitySignal = 'refused' | 'not-connected' | 'slow-connect' | 'reset';

/**
 * A connection that took this long waited for TCP's retransmitted SYN (RFC 6298 §2.1: after one
 * second; the tenth less is the margin of the clocks that time it)…
 */
export const SLOW_CONNECT_MS = 900;
/**
 * …or this many of the quickest answer's time, when more: a connection takes three round trips at most
 * (TCP's, then TLS 1.2's two), and an answer one at least.
 */
const CONNECT_ROUND_TRIPS = 4;

export interface CapacityReport {
  /** --concurrency, or the default. */
  readonly from: number;
  /** The concurrency the run came down to. */
  readonly to: number;
  /** What the deployment did, counted. */
  readonly signals: Readonly<Partial<Record<CapacitySignal, number>>>;
}

/** The concurrency is divided by this at each reaction: the deployment took far fewer at once. */
const CUT = 8;
/** Signals of requests sent at the current concurrency before it is lowered: one lost SYN is no overflow. */
const SIGNALS_TO_REACT = 2;
/** Quick connections remembered (when their request was sent, and when they came). */
const QUICK_KEPT = 256;

export class Capacity {
  /** Requests in flight at most, now. */
  limit: number;
  /** When the concurrency was last lowered: requests sent before were sent at the old one. */
  private reactedAt = Number.NEGATIVE_INFINITY;
  /** When the requests that got their connection at once (made quickly, or kept alive) were sent, and got it. */
  private readonly quick: { sentAt: number; at: number }[] = [];
  /** Signals of requests sent since the last reaction. */
  private pending = 0;
  /** The quickest answer so far, in ms: the round trip a connection takes at least. */
  private quickestAnswer: number | undefined;
  private readonly signals: Partial<Record<CapacitySignal, number>> = {};

  constructor(
    readonly ceiling: number,
    private readonly loop: LoopWatch = loopWatch(),
  ) {
    this.limit = ceiling;
  }

  /** An answer came `ms` after its request was sent. */
  answered(ms: number): void {
    this.quickestAnswer = Math.min(this.quickestAnswer ?? ms, ms);
  }

  /**
   * The request sent at `sentAt` (when the concurrency was `sentAtLimit`) got its connection `ms`
   * later, at `now`: whether that was slow (TCP sent its SYN again) while other requests got theirs
   * at once, and the request was sent at more than one at a time. A slow one is let go before the
   * request is written on it (the deployment may never read it: a full listen queue leaves such
   * connections unaccepted for seconds), and its signal follows (signal('slow-connect')).
   */
  slowConnect(sentAt: number, sentAtLimit: number, ms: number, now: number): boolean {
    const threshold = Math.max(
      SLOW_CONNECT_MS,
      CONNECT_ROUND_TRIPS * (this.quickestAnswer ?? Number.POSITIVE_INFINITY),
    );
    const slow =
      sentAtLimit > 1 &&
      ms >= threshold &&
      // Others got theirs meanwhile: the deployment took them, and not this one…
      this.quick.some((q) => q.at > sentAt && q.at < now) &&
      // …and it came that late: not only told late by the worker's own event loop, which may have
      // stalled just before (a connection made during a stall is told of when it ends).
      this.loop.earliest(now) - sentAt >= threshold;
    if (!slow) {
      this.quick.push({ sentAt, at: now });
      if (this.quick.length > QUICK_KEPT) this.quick.shift();
    }
    return slow;
  }

  /**
   * The deployment did not take the request sent at `sentAt` (when the concurrency was `sentAtLimit`):
   * the second such request sent at the current concurrency lowers it, once for the requests sent at
   * it, to a quarter. Returns whether the request, never answered, is worth sending again: it was sent
   * above one at a time.
   */
  signal(kind: CapacitySignal, sentAt: number, sentAtLimit: number, now: number): boolean {
    this.signals[kind] = (this.signals[kind] ?? 0) + 1;
    if (sentAt >= this.reactedAt && this.limit > 1 && ++this.pending >= SIGNALS_TO_REACT) {
      this.limit = Math.max(1, Math.floor(this.limit / CUT));
      this.reactedAt = now;
      this.pending = 0;
    }
    return sentAtLimit > 1;
  }

  /** Whether the deployment ever said "not so many at once"; what it cost. */
  report(): CapacityReport | undefined {
    if (Object.keys(this.signals).length === 0) return undefined;
    return { from: this.ceiling, to: this.limit, signals: { ...this.signals } };
  }
}

/** Ticks of the event loop this far apart mean it stalled (a busy worker, a long collection). */
const STALL_MS = 100;
const TICK_MS = 25;

/** The worker's event loop, watched for stalls. */
export interface LoopWatch {
  /**
   * The earliest time something told of at `now` (performance.now()) may have happened: the start of
   * a stall that just ended (or is still under way, for a time read in it), else `now`.
   */
  earliest(now: number): number;
}

/**
 * Watches the worker's event loop: a timer every TICK_MS (unref'd: it keeps nothing alive), and the
 * gaps between its ticks longer than STALL_MS. One per worker.
 */
function loopWatch(): LoopWatch {
  const key = Symbol.for('petstore-conformance.loop-watch');
  const holder = globalThis as { [key]?: LoopWatch };
  if (holder[key]) return holder[key];
  let last = performance.now();
  let lastGap: { from: number; to: number } | undefined;
  setInterval(() => {
    const now = performance.now();
    if (now - last > STALL_MS) lastGap = { from: last, to: now };
    last = now;
  }, TICK_MS).unref();
  const watch: LoopWatch = {
    earliest(now) {
      // A stall under way: the loop has not ticked for a while.
      if (now - last > STALL_MS) return last;
      if (lastGap && now - lastGap.to <= 2 * TICK_MS) return lastGap.from;
      return now;
    },
  };
  holder[key] = watch;
  return watch;
}

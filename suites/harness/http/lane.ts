/**
 * What a deployment's refusals (429, 503) tell the pace about one lane of requests: the run's own
 * lane, which every request goes through, or the lane of one kind of request (an operation: POST
 * /pets) once the refusals have shown that only that kind is limited (pace.ts). A lane says when
 * its next request may start, and what each refusal means:
 *
 * - **A limit of the rate**: refusals that stop when the lane slows down. The first one holds the
 *   lane for its Retry-After (1 s when it gives none, doubled while nothing but refusals come) and
 *   cuts its pace to what the deployment let through (the answers of the last two seconds, less a
 *   tenth), at most half the pace it refused; each second without a refusal the pace grows by a
 *   quarter, and ten seconds without one leave it free again. Refusals of requests sent before the
 *   lane reacted tell nothing new (they were sent at the old pace): they hold the lane for their
 *   Retry-After, no more.
 * - **Refusals that keep their share whatever the pace** (a shared limit other clients use up, load
 *   shed at random): once requests sent at a cut pace are refused about as often as those before the
 *   cut, the lane stops cutting and lifts its cut; each refused request then waits its own
 *   Retry-After (1 s when it gives none) while the others go on.
 * - **A 503 that is the server's answer**: a 503 without Retry-After whose share does not depend on
 *   the pace, or that still comes at the lowest pace, is not a refusal (ANY-NO-5XX's to judge).
 *
 * The lane counts the answers of the requests sent at each of its paces (an epoch: from one cut to
 * the next) by kind of request, for these judgements and for the pace to see when only one kind is
 * refused.
 */

/** The pace never goes below one request a second… */
export const MIN_RATE = 1;
/** …and above this it no longer limits. */
const UNLIMITED_RATE = 10_000;
/** The pace grows by this factor each second without a refusal… */
const GROWTH_PER_SECOND = 1.25;
/** …and no longer limits once this long has passed without one. */
const FORGET_AFTER_MS = 10_000;
/** A refusal without Retry-After holds the lane this long, doubled for each one in a row, at most MAX. */
export const DEFAULT_HOLD_MS = 1_000;
const MAX_DEFAULT_HOLD_MS = 30_000;
/** What the deployment let through is measured over this window. */
const THROUGHPUT_WINDOW_MS = 2_000;
/** A cut pace keeps this share of what the deployment let through, to stay under its limit. */
const THROUGHPUT_MARGIN = 0.9;
/**
 * Answers of requests sent at one pace before the lane judges what slowing down did: enough to tell
 * one refusal in seven from none (about three expected).
 */
export const MIN_SAMPLES = 20;
/**
 * Refusals keep their share whatever the pace when requests sent at a cut pace are refused at least
 * this share as often as those before the cut… A rate limit refusing a share s of a pace refuses
 * 2s − 1 of half that pace: at least 0.6 s only when s ≥ 0.71, which leaves 2s − 1 ≥ 0.43, above
 * MAX_INDEPENDENT_SHARE.
 */
const SAME_SHARE = 0.6;
/** …and the share is at most this (a rate limit far exceeded refuses most requests at any pace). */
const MAX_INDEPENDENT_SHARE = 0.3;

/** A refusal as the lane hears of it. */
export interface Refused {
  readonly status: number;
  /** Its Retry-After in milliseconds, when it gave one that could be read. */
  readonly retryAfterMs?: number;
  /** The lane's epoch when the request was sent; undefined when it was sent through another lane. */
  readonly epoch: number | undefined;
  /** The kind of request (pace.ts kindOf). */
  readonly kind: string;
  /** This request was refused before: a 503 it keeps getting may be its own, not load shed. */
  readonly again: boolean;
}

/** What a refusal means for its request: the server's answer after all, or a wait before it is sent again. */
export type Verdict =
  | { readonly answer: true }
  | {
      readonly answer: false;
      /** The request may be sent again from then on (the lane's own hold may keep it longer). */
      readonly notBefore: number;
    };

interface Counts {
  answered: number;
  refused: number;
  readonly byKind: Map<string, { answered: number; refused: number }>;
}

/** What a lane learned, for the run's reports. */
export interface LaneReport {
  /** The lowest pace it was cut to (requests a second), when it was ever cut. */
  readonly lowestRate?: number;
  /** Its refusals kept their share whatever the pace: each refused request waited alone. */
  readonly independent?: true;
  /** Its 503s without Retry-After were the server's answers (the share did not depend on the pace). */
  readonly answered503?: true;
}

export class Lane {
  /** No request of the lane starts before this (a Retry-After). */
  holdUntil = 0;
  /** Bumped at each cut: the pace a request was sent at. */
  epoch = 0;
  /** Refusals keep their share whatever the pace: they wait alone, the lane is not cut. */
  private independent = false;
  /** 503s without Retry-After are the server's answers in this lane. */
  private bare503Answers = false;
  /** The pace after the last cut, and when it was cut; undefined while the lane is not cut. */
  private cut: { rate: number; at: number } | undefined;
  private escalations = 0;
  private lastStart = Number.NEGATIVE_INFINITY;
  /** Starts of the last second, oldest first (the lane's own pace, when it has not been cut). */
  private readonly starts: number[] = [];
  /** When the answers (not refusals) of the last THROUGHPUT_WINDOW_MS came, oldest first. */
  private readonly answeredAt: number[] = [];
  private readonly counts = new Map<number, Counts>();
  private lowestRate: number | undefined;
  private firstStart: number | undefined;

  constructor(private readonly growth = GROWTH_PER_SECOND) {}

  /** The lane's pace now (requests a second), or undefined when it does not limit. */
  rate(now: number): number | undefined {
    if (!this.cut || now - this.cut.at >= FORGET_AFTER_MS) return undefined;
    const grown = this.cut.rate * this.growth ** (Math.max(0, now - this.cut.at) / 1_000);
    return grown >= UNLIMITED_RATE ? undefined : grown;
  }

  /** When the lane's next request may start, from `now` on. */
  nextStartAt(now: number): number {
    let at = Math.max(now, this.holdUntil);
    const rate = this.rate(now);
    if (rate !== undefined) at = Math.max(at, this.lastStart + 1_000 / rate);
    return at;
  }

  /** Whether the lane holds or paces its requests now (the deployment, not the run's own ceiling). */
  limits(now: number): boolean {
    return this.holdUntil > now || this.rate(now) !== undefined;
  }

  /** A request of the lane starts now; returns the epoch it is sent in. */
  started(now: number): number {
    this.firstStart ??= now;
    this.lastStart = now;
    this.starts.push(now);
    while (this.starts.length > 0 && this.starts[0]! <= now - 1_000) this.starts.shift();
    return this.epoch;
  }

  /** A request sent in `epoch` was answered (not refused). */
  answered(epoch: number | undefined, kind: string, now: number): void {
    if (epoch === this.epoch) this.escalations = 0;
    this.answeredAt.push(now);
    while (this.answeredAt.length > 0 && this.answeredAt[0]! <= now - THROUGHPUT_WINDOW_MS)
      this.answeredAt.shift();
    if (epoch !== undefined) this.add(epoch, kind, 'answered');
  }

  /** A request was refused: what it means, and the lane's reaction. */
  refused(r: Refused, now: number): Verdict {
    if (r.epoch !== undefined) this.add(r.epoch, r.kind, 'refused');
    const bare503 = r.status === 503 && r.retryAfterMs === undefined;
    if (bare503 && this.bare503Answers) return { answer: true };
    if (this.independent) return bare503 ? this.answer503() : this.alone(r, now);
    // Sent at an older pace: it holds the lane for its own Retry-After, and tells nothing new.
    if (r.epoch !== this.epoch) {
      if (r.retryAfterMs !== undefined) this.hold(now, r.retryAfterMs);
      return { answer: false, notBefore: now };
    }
    if (this.cut && this.cut.rate <= MIN_RATE && this.rate(now) !== undefined) {
      // At the lowest pace and still refused: a bare 503 is then the server's answer.
      if (bare503) return this.answer503();
    } else if (this.epoch > 0) {
      const judged = this.judgeEpoch();
      if (judged === 'undecided') return this.alone(r, now);
      if (judged === 'independent') {
        this.independent = true;
        this.cut = undefined;
        this.holdUntil = Math.min(this.holdUntil, now);
        return bare503 ? this.answer503() : this.alone(r, now);
      }
    }
    // A 503 this request got before may be its own trouble: it holds, and does not cut again.
    this.react(r, now, r.status === 429 || !r.again);
    return { answer: false, notBefore: now };
  }

  /** Whether, in the epoch now, only `kind` was refused while enough others were answered. */
  onlyRefused(kind: string, minOthers: number): boolean {
    const now = this.counts.get(this.epoch);
    if (!now || now.answered + now.refused < MIN_SAMPLES) return false;
    let others = 0;
    for (const [k, c] of now.byKind) {
      if (k === kind) continue;
      if (c.refused > 0) return false;
      others += c.answered;
    }
    return others >= minOthers && (now.byKind.get(kind)?.refused ?? 0) > 0;
  }

  /**
   * A lane of its own for `kind`, taking over what this lane learned of it (its hold, its pace, the
   * counts of its requests); this lane lets go of its limit, as the others were not refused.
   */
  split(kind: string, now: number): Lane {
    const own = new Lane(this.growth);
    own.holdUntil = this.holdUntil;
    own.epoch = this.epoch;
    own.cut = this.cut;
    own.escalations = this.escalations;
    own.lastStart = this.lastStart;
    own.lowestRate = this.lowestRate;
    own.firstStart = this.firstStart;
    for (const [epoch, c] of this.counts) {
      const mine = c.byKind.get(kind);
      if (!mine) continue;
      own.add(epoch, kind, 'answered', mine.answered);
      own.add(epoch, kind, 'refused', mine.refused);
      c.answered -= mine.answered;
      c.refused -= mine.refused;
      c.byKind.delete(kind);
    }
    this.cut = undefined;
    this.lowestRate = undefined;
    this.holdUntil = Math.min(this.holdUntil, now);
    this.escalations = 0;
    return own;
  }

  report(): LaneReport {
    return {
      ...(this.lowestRate === undefined ? {} : { lowestRate: Math.round(this.lowestRate * 10) / 10 }),
      ...(this.independent ? { independent: true as const } : {}),
      ...(this.bare503Answers ? { answered503: true as const } : {}),
    };
  }

  /**
   * What slowing down did to the refusals: the share of the requests sent at the pace now, against
   * the share at the pace before it. Undecided until enough answers of the pace now came.
   */
  private judgeEpoch(): 'undecided' | 'independent' | 'rate' {
    const now = this.counts.get(this.epoch);
    const before = this.counts.get(this.epoch - 1);
    if (!now || now.answered + now.refused < MIN_SAMPLES) return 'undecided';
    const share = now.refused / (now.answered + now.refused);
    const shareBefore =
      before && before.answered + before.refused > 0
        ? before.refused / (before.answered + before.refused)
        : 1;
    return share <= MAX_INDEPENDENT_SHARE && share >= SAME_SHARE * shareBefore ? 'independent' : 'rate';
  }

  /** A bare 503 that is the server's answer, from now on in this lane. */
  private answer503(): Verdict {
    this.bare503Answers = true;
    return { answer: true };
  }

  /** The refused request waits its own Retry-After (DEFAULT_HOLD_MS without one); the lane goes on. */
  private alone(r: Refused, now: number): Verdict {
    return { answer: false, notBefore: now + (r.retryAfterMs ?? DEFAULT_HOLD_MS) };
  }

  /** Holds the lane for the refusal's Retry-After (or a default hold, longer in a row) and, when `cut`, cuts its pace. */
  private react(r: Refused, now: number, cut: boolean): void {
    if (r.retryAfterMs !== undefined) this.hold(now, r.retryAfterMs);
    else {
      this.escalations++;
      this.hold(now, Math.min(MAX_DEFAULT_HOLD_MS, DEFAULT_HOLD_MS * 2 ** (this.escalations - 1)));
    }
    if (!cut) return;
    const current = this.rate(now) ?? this.recentRate(now);
    const through = this.throughput(now);
    const rate = Math.max(MIN_RATE, Math.min(current / 2, through * THROUGHPUT_MARGIN));
    this.cut = { rate, at: now };
    this.lowestRate = Math.min(this.lowestRate ?? rate, rate);
    this.epoch++;
  }

  /** Answers (not refusals) a second over the last THROUGHPUT_WINDOW_MS, or since the lane's first start. */
  private throughput(now: number): number {
    const since = Math.max(1_000, Math.min(THROUGHPUT_WINDOW_MS, now - (this.firstStart ?? now)));
    return (this.answeredAt.filter((t) => t > now - THROUGHPUT_WINDOW_MS).length * 1_000) / since;
  }

  /** The pace of the last second's starts, in requests a second (over the time they took, when less). */
  private recentRate(now: number): number {
    const recent = this.starts.filter((t) => t > now - 1_000);
    if (recent.length === 0) return MIN_RATE * 2;
    const span = Math.max(100, now - recent[0]!);
    return (recent.length * 1_000) / span;
  }

  private hold(now: number, ms: number): void {
    this.holdUntil = Math.max(this.holdUntil, now + ms);
  }

  /** Adds one answer or refusal of `kind` to `epoch`'s counts. */
  private add(epoch: number, kind: string, what: 'answered' | 'refused', n = 1): void {
    let c = this.counts.get(epoch);
    if (!c) {
      c = { answered: 0, refused: 0, byKind: new Map() };
      this.counts.set(epoch, c);
      this.counts.delete(epoch - 3);
    }
    let k = c.byKind.get(kind);
    if (!k) {
      k = { answered: 0, refused: 0 };
      c.byKind.set(kind, k);
    }
    k[what] += n;
    c[what] += n;
  }
}

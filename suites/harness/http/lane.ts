/**
 * What a deployment's refusals (429, 503) tell the pace about one lane of requests: the run's own
 * lane, which every request goes through, or the lane of one kind of request (an operation: POST
 * /pets) once the refusals have shown that only that kind is limited (pace.ts). A lane says when
 * its next request may start, and what each refusal means:
 *
 * - **A limit of the rate**: refusals that stop when the lane slows down. The first one holds the
 *   lane for its Retry-After, and cuts its pace to what the deployment let through (the answers of
 *   the last two seconds), at most three quarters of the pace it refused. A refusal without
 *   Retry-After holds the lane only when nothing got through to pace by (1 s, doubled while nothing
 *   but refusals come). Each second without a refusal the pace grows by a quarter, up to what got
 *   through; that cap doubles every five seconds without one, so a limit that went away is soon
 *   free again. Refusals of requests sent before the lane reacted tell nothing new (they were sent
 *   at the old pace): each waits its own Retry-After. What got through is measured once enough was
 *   answered; before that, a cut halves the pace.
 * - **Refusals that keep their share whatever the pace** (a limit other clients share and use up,
 *   load shed at random): when a few refusals keep coming at the pace that got through, the lane
 *   tries half that pace for a while. Still refused about as often there, the refusals are not the
 *   run's rate: the lane lifts its cut, and each refused request waits its own Retry-After (1 s
 *   when it gives none) while the others go on. Not refused there, it is a limit after all: the lane
 *   goes back to the pace that got through and does not try again.
 * - **A 503 that is the server's answer**: a 503 without Retry-After whose share does not depend on
 *   the pace, or that still comes at the lowest pace, is not a refusal (ANY-NO-5XX's to judge).
 *
 * What slowing down did is judged on the requests sent at a pace the lane set (an epoch: from one
 * cut to the next), before its cap first doubled: the probes above it are refused by any limit.
 */

/** The pace never goes below one request a second… */
export const MIN_RATE = 1;
/** …and above this it no longer limits. */
const UNLIMITED_RATE = 10_000;
/** The pace grows by this factor each second without a refusal, up to its cap… */
const GROWTH_PER_SECOND = 1.25;
/** …which doubles each time this long passes without one: the lane probes above what got through. */
const CAP_DOUBLES_AFTER_MS = 5_000;
/** A refusal without Retry-After holds the lane this long, doubled for each one in a row, at most MAX. */
export const DEFAULT_HOLD_MS = 1_000;
const MAX_DEFAULT_HOLD_MS = 30_000;
/** What the deployment let through is measured over this window (or since the lane's first request)… */
const THROUGHPUT_WINDOW_MS = 2_000;
/** …and no shorter than this. */
const MIN_THROUGHPUT_SPAN_MS = 250;
/** A cut is at most this share of the pace that was refused. */
const CUT = 0.75;
/**
 * Answers of requests sent at one pace before the lane judges what slowing down did: enough to tell
 * one refusal in ten from none most of the time.
 */
export const MIN_SAMPLES = 20;
/** A share of refusals above this, at the pace that got through, is a limit exceeded, not a few left over. */
const SMALL_SHARE = 0.3;
/** Refused at half the pace at least this share as often as before: the share does not depend on the pace. */
const SAME_SHARE = 0.5;

/** A refusal as the lane hears of it. */
export interface Refused {
  readonly status: number;
  /** Its Retry-After in milliseconds, when it gave one that could be read. */
  readonly retryAfterMs?: number;
  /** The lane's epoch when the request was sent; undefined when it was sent through another lane. */
  readonly epoch: number | undefined;
  /** When it was sent (the clock's time). */
  readonly sentAt: number;
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

/** The answers and refusals of the requests sent at one pace (an epoch), before its cap first doubled. */
interface Counts {
  answered: number;
  refused: number;
  readonly byKind: Map<string, { answered: number; refused: number }>;
}

/** Epochs whose counts are kept, the latest ones. */
const EPOCHS_KEPT = 4;

/** What a lane learned, for the run's reports. */
export interface LaneReport {
  /** The lowest pace it was cut to (requests a second), when it was ever cut. */
  readonly lowestRate?: number;
  /** Its refusals kept their share whatever the pace: each refused request waited alone. */
  readonly independent?: true;
  /** Its 503s without Retry-After were the server's answers (the share did not depend on the pace). */
  readonly answered503?: true;
}

/**
 * How the lane meets refusals now: free (never cut), paced at a cut (a limit of the rate), trying
 * half its pace (are the refusals the run's rate?), or letting refused requests wait alone.
 */
type Mode =
  | { readonly kind: 'free' }
  | { readonly kind: 'cut'; readonly tried: boolean }
  | { readonly kind: 'trial'; readonly share: number; readonly back: number }
  | { readonly kind: 'independent' };

export class Lane {
  /** No request of the lane starts before this (a Retry-After). */
  holdUntil = 0;
  /** Bumped at each cut: the pace a request was sent at. */
  epoch = 0;
  private mode: Mode = { kind: 'free' };
  /** 503s without Retry-After are the server's answers in this lane. */
  private bare503Answers = false;
  /**
   * The pace after the last cut, when it was cut, and the most it grows to (what got through then);
   * undefined while the lane is not cut.
   */
  private cut: { rate: number; at: number; cap: number; grows: boolean } | undefined;
  private escalations = 0;
  private lastStart = Number.NEGATIVE_INFINITY;
  /** Starts of the last second, oldest first (the lane's own pace, when it has not been cut). */
  private readonly starts: number[] = [];
  /** When the answers (not refusals) of the last THROUGHPUT_WINDOW_MS came, and their kind, oldest first. */
  private readonly answeredAt: { at: number; kind: string }[] = [];
  private readonly counts = new Map<number, Counts>();
  private lowestRate: number | undefined;
  private firstStart: number | undefined;
  private wasIndependent = false;

  /** The lane's pace now (requests a second), or undefined when it does not limit. */
  rate(now: number): number | undefined {
    if (!this.cut) return undefined;
    if (!this.cut.grows) return this.cut.rate;
    const since = Math.max(0, now - this.cut.at);
    const cap = this.cut.cap * 2 ** Math.floor(since / CAP_DOUBLES_AFTER_MS);
    const grown = Math.min(cap, this.cut.rate * GROWTH_PER_SECOND ** (since / 1_000));
    return grown >= UNLIMITED_RATE ? undefined : grown;
  }

  /** When the lane's next request may start, from `now` on. */
  nextStartAt(now: number): number {
    let at = Math.max(now, this.holdUntil);
    const rate = this.rate(now);
    if (rate !== undefined) at = Math.max(at, this.lastStart + 1_000 / rate);
    return at;
  }

  /** A request of the lane starts now; returns the epoch it is sent in. */
  started(now: number): number {
    this.firstStart ??= now;
    this.lastStart = now;
    this.starts.push(now);
    while (this.starts.length > 0 && this.starts[0]! <= now - 1_000) this.starts.shift();
    return this.epoch;
  }

  /** A request sent at `sentAt`, in `epoch`, was answered (not refused). */
  answered(epoch: number | undefined, kind: string, sentAt: number, now: number): void {
    if (epoch === this.epoch) this.escalations = 0;
    this.answeredAt.push({ at: now, kind });
    while (this.answeredAt.length > 0 && this.answeredAt[0]!.at <= now - THROUGHPUT_WINDOW_MS)
      this.answeredAt.shift();
    if (epoch !== undefined && this.atSetPace(epoch, sentAt)) this.add(epoch, kind, 'answered');
    if (this.mode.kind === 'trial') this.endTrial(now);
  }

  /** A request was refused: what it means, and the lane's reaction. */
  refused(r: Refused, now: number): Verdict {
    if (r.epoch !== undefined && this.atSetPace(r.epoch, r.sentAt)) this.add(r.epoch, r.kind, 'refused');
    const bare503 = r.status === 503 && r.retryAfterMs === undefined;
    if (bare503 && this.bare503Answers) return { answer: true };
    if (this.mode.kind === 'independent') return bare503 ? this.answer503() : this.alone(r, now);
    // Sent at an older pace: the lane reacted since; it waits its own Retry-After, and tells nothing new.
    if (r.epoch !== this.epoch) return this.alone(r, now);
    // At the lowest pace and still refused: a bare 503 is then the server's answer.
    if (this.cut && this.cut.rate <= MIN_RATE && bare503) return this.answer503();
    if (this.mode.kind === 'trial') return this.judgeTrial(r, now, bare503);
    if (this.mode.kind === 'cut' && this.atSetPace(r.epoch, r.sentAt)) {
      const counts = this.counts.get(this.epoch)!;
      const total = counts.answered + counts.refused;
      // Too few answers at this pace to say what it did: this request waits, the lane goes on
      // (unless nothing gets through at all: the lane then holds, longer each time).
      if (total < MIN_SAMPLES && this.throughput(now) > 0) return this.alone(r, now);
      if (total < MIN_SAMPLES) return this.react(r, now, false);
      const share = counts.refused / total;
      if (share <= SMALL_SHARE && !this.mode.tried) return this.startTrial(r, now, share);
    }
    // A 503 this request got before may be its own trouble: it holds, and does not cut again.
    return this.react(r, now, r.status === 429 || !r.again);
  }

  /** Whether, in the epoch now, only `kind` was refused while at least `minOthers` of other kinds were answered. */
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
    const own = new Lane();
    own.holdUntil = this.holdUntil;
    own.epoch = this.epoch;
    own.mode = this.mode;
    own.cut = this.cut;
    own.escalations = this.escalations;
    own.lastStart = this.lastStart;
    own.lowestRate = this.lowestRate;
    own.firstStart = this.firstStart;
    own.answeredAt.push(...this.answeredAt.filter((a) => a.kind === kind));
    for (const [epoch, c] of this.counts) {
      const mine = c.byKind.get(kind);
      if (!mine) continue;
      own.add(epoch, kind, 'answered', mine.answered);
      own.add(epoch, kind, 'refused', mine.refused);
      c.answered -= mine.answered;
      c.refused -= mine.refused;
      c.byKind.delete(kind);
    }
    this.mode = { kind: 'free' };
    this.cut = undefined;
    this.lowestRate = undefined;
    this.holdUntil = Math.min(this.holdUntil, now);
    this.escalations = 0;
    return own;
  }

  report(): LaneReport {
    return {
      ...(this.lowestRate === undefined ? {} : { lowestRate: Math.round(this.lowestRate * 10) / 10 }),
      ...(this.wasIndependent ? { independent: true as const } : {}),
      ...(this.bare503Answers ? { answered503: true as const } : {}),
    };
  }

  /**
   * Whether a request sent at `sentAt` in `epoch` was sent at a pace the lane set: in the epoch now,
   * before its cap first doubled (the probes above it are refused by any limit).
   */
  private atSetPace(epoch: number, sentAt: number): boolean {
    if (epoch !== this.epoch) return false;
    return !this.cut?.grows || sentAt - this.cut.at < CAP_DOUBLES_AFTER_MS;
  }

  /**
   * A few refusals keep coming at the pace that got through: half that pace, not growing, for
   * MIN_SAMPLES answers, to see whether they depend on the pace at all.
   */
  private startTrial(r: Refused, now: number, share: number): Verdict {
    const back = this.cut!.rate;
    this.setCut(now, back / 2, back / 2, false);
    this.mode = { kind: 'trial', share, back };
    return this.alone(r, now);
  }

  /** Refused at half the pace: the request waits alone, and the trial ends once enough were answered there. */
  private judgeTrial(r: Refused, now: number, bare503: boolean): Verdict {
    this.endTrial(now);
    return bare503 && this.mode.kind === 'independent' ? this.answer503() : this.alone(r, now);
  }

  /**
   * Ends the trial once MIN_SAMPLES requests sent at half the pace were answered or refused: refused
   * about as often as before, the refusals do not depend on the pace (the lane lifts its cut, and
   * refused requests wait alone); less, slowing down helped: a limit after all, paced at what got
   * through again, and not tried again.
   */
  private endTrial(now: number): void {
    const mode = this.mode as Extract<Mode, { kind: 'trial' }>;
    const counts = this.counts.get(this.epoch);
    const total = counts ? counts.answered + counts.refused : 0;
    if (total < MIN_SAMPLES) return;
    if (counts!.refused > 0 && counts!.refused / total >= SAME_SHARE * mode.share) {
      this.mode = { kind: 'independent' };
      this.wasIndependent = true;
      this.cut = undefined;
      this.holdUntil = Math.min(this.holdUntil, now);
      return;
    }
    this.setCut(now, mode.back, mode.back, true);
    this.mode = { kind: 'cut', tried: true };
  }

  /**
   * A bare 503 that is the server's answer, from now on in this lane: its refusals were not the run's
   * rate, so the lane lifts its cut, and a refusal that still comes (429, a 503 with Retry-After)
   * waits alone.
   */
  private answer503(): Verdict {
    this.bare503Answers = true;
    this.mode = { kind: 'independent' };
    this.cut = undefined;
    return { answer: true };
  }

  /** The refused request waits its own Retry-After (DEFAULT_HOLD_MS without one); the lane goes on. */
  private alone(r: Refused, now: number): Verdict {
    return { answer: false, notBefore: now + (r.retryAfterMs ?? DEFAULT_HOLD_MS) };
  }

  /**
   * Holds the lane for the refusal's Retry-After (without one, a default hold, longer in a row, when
   * nothing got through to pace by) and, when `cut`, cuts its pace; the request waits with the lane.
   */
  private react(r: Refused, now: number, cut: boolean): Verdict {
    const through = this.throughput(now);
    if (r.retryAfterMs !== undefined) this.hold(now, r.retryAfterMs);
    else if (through === 0) {
      this.escalations++;
      this.hold(now, Math.min(MAX_DEFAULT_HOLD_MS, DEFAULT_HOLD_MS * 2 ** (this.escalations - 1)));
    }
    if (!cut) return { answer: false, notBefore: now };
    const current = this.rate(now) ?? this.recentRate(now);
    // Too few answers yet to measure what gets through: half the pace, as a start.
    const measured = this.answeredAt.length >= MIN_SAMPLES / 2 || through === 0;
    const rate = Math.max(MIN_RATE, measured ? Math.min(current * CUT, through) : current / 2);
    this.setCut(now, rate, Math.max(rate, through), true);
    if (this.mode.kind === 'free') this.mode = { kind: 'cut', tried: false };
    return { answer: false, notBefore: now };
  }

  /** Paces the lane at `rate` from now on (a new epoch), growing up to `cap` when `grows`. */
  private setCut(now: number, rate: number, cap: number, grows: boolean): void {
    this.cut = { rate, at: now, cap, grows };
    this.lowestRate = Math.min(this.lowestRate ?? rate, rate);
    this.epoch++;
    this.counts.delete(this.epoch - EPOCHS_KEPT);
  }

  /** Answers (not refusals) a second over the last THROUGHPUT_WINDOW_MS, or since the lane's first start. */
  private throughput(now: number): number {
    const span = Math.max(
      MIN_THROUGHPUT_SPAN_MS,
      Math.min(THROUGHPUT_WINDOW_MS, now - (this.firstStart ?? now)),
    );
    return (this.answeredAt.filter((a) => a.at > now - THROUGHPUT_WINDOW_MS).length * 1_000) / span;
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

  /** Adds answers or refusals of `kind` to `epoch`'s counts. */
  private add(epoch: number, kind: string, what: 'answered' | 'refused', n = 1): void {
    let c = this.counts.get(epoch);
    if (!c) {
      c = { answered: 0, refused: 0, byKind: new Map() };
      this.counts.set(epoch, c);
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

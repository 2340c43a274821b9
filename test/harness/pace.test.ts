import { describe, expect, test } from 'vitest';
import {
  type Admission,
  type Clock,
  declaredQuota,
  isRefusal,
  Pace,
  type PaceAnswer,
  PaceGivenUp,
  type PaceVerdict,
  retryAfterMs,
} from '../../suites/harness/http/pace.ts';

/** A clock whose time moves only when the test says so. */
class FakeClock implements Clock {
  time = 0;
  private timers: { at: number; fn: () => void; live: boolean }[] = [];

  now(): number {
    return this.time;
  }

  after(ms: number, fn: () => void): () => void {
    const timer = { at: this.time + ms, fn, live: true };
    this.timers.push(timer);
    return () => {
      timer.live = false;
    };
  }

  /** Moves time forward by `ms`, firing each timer due on the way, in order. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.live && t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      due.live = false;
      this.time = Math.max(this.time, due.at);
      due.fn();
      await settle();
    }
    this.time = end;
    await settle();
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

/** Asks the pace for `n` admissions; records when each was let through. */
function ask(pace: Pace, clock: FakeClock, n: number, signal?: AbortSignal) {
  const admitted: { at: number; admission: Admission }[] = [];
  const rejected: unknown[] = [];
  for (let i = 0; i < n; i++) {
    pace.admit(signal).then(
      (admission) => admitted.push({ at: clock.now(), admission }),
      (reason) => rejected.push(reason),
    );
  }
  return { admitted, rejected };
}

const ok = { status: 200, headers: {} };

describe('a ceiling set from the start', () => {
  test('at most `concurrency` requests are in flight; the next starts when one ends', async () => {
    const clock = new FakeClock();
    const pace = new Pace({ concurrency: 2, clock });
    const { admitted } = ask(pace, clock, 3);
    await settle();
    expect(admitted).toHaveLength(2);
    admitted[0]!.admission.done({ answer: ok });
    await settle();
    expect(admitted).toHaveLength(3);
  });

  test('--rate-limit n: never more than n starts in any 1000 ms', async () => {
    const clock = new FakeClock();
    const pace = new Pace({ concurrency: 100, ratePerSecond: 5, clock });
    const { admitted } = ask(pace, clock, 12);
    await settle();
    for (let t = 0; t < 3_000; t += 10) {
      await clock.advance(10);
      for (const a of admitted) a.admission.done({ answer: ok });
    }
    expect(admitted).toHaveLength(12);
    const times = admitted.map((a) => a.at);
    for (const t of times) expect(times.filter((u) => u >= t && u < t + 1_000).length).toBeLessThanOrEqual(5);
    // and it does not wait longer than it must: the sixth starts as the first leaves the window (as
    // a log to the millisecond shows it: 2 ms more)
    expect(times[5]).toBe(1_002);
  });

  test('requests start in the order they asked', async () => {
    const clock = new FakeClock();
    const pace = new Pace({ concurrency: 1, clock });
    const order: number[] = [];
    for (let i = 0; i < 4; i++)
      void pace.admit().then((a) => {
        order.push(i);
        a.done({ answer: ok });
      });
    await clock.advance(1);
    expect(order).toEqual([0, 1, 2, 3]);
  });

  test('a request whose check was stopped leaves the queue with the signal’s reason', async () => {
    const clock = new FakeClock();
    const pace = new Pace({ concurrency: 1, clock });
    const first = ask(pace, clock, 1);
    const stop = new AbortController();
    const second = ask(pace, clock, 1, stop.signal);
    await settle();
    stop.abort(new Error('the check timed out'));
    await settle();
    expect(second.rejected).toEqual([new Error('the check timed out')]);
    first.admitted[0]!.admission.done({ answer: ok });
    expect(pace.report().refusals).toBe(0);
  });
});

describe('a deployment that refuses for the rate', () => {
  test('a 429 with Retry-After holds every new request until it has passed', async () => {
    const clock = new FakeClock();
    const pace = new Pace({ concurrency: 10, clock });
    const first = ask(pace, clock, 1);
    await settle();
    first.admitted[0]!.admission.done({ answer: { status: 429, headers: { 'retry-after': '2' } } });
    const later = ask(pace, clock, 1);
    await clock.advance(1_999);
    expect(later.admitted).toHaveLength(0);
    await clock.advance(1);
    expect(later.admitted).toHaveLength(1);
  });

  test('a 429 without Retry-After holds 1 s, then 2 s when a request sent after the hold is refused too', async () => {
    const clock = new FakeClock();
    const pace = new Pace({ concurrency: 10, clock });
    const a = ask(pace, clock, 1);
    await settle();
    a.admitted[0]!.admission.done({ answer: { status: 429, headers: {} } });
    const b = ask(pace, clock, 1);
    await clock.advance(1_000);
    expect(b.admitted.map((x) => x.at)).toEqual([1_000]);
    b.admitted[0]!.admission.done({ answer: { status: 429, headers: {} } });
    const c = ask(pace, clock, 1);
    await clock.advance(3_000);
    expect(c.admitted[0]!.at).toBeGreaterThanOrEqual(3_000);
  });

  test('a refusal cuts the pace to what got through, at most three quarters of the pace refused; it grows back by a quarter a second up to what got through, a cap that doubles every 5 s without a refusal', async () => {
    const clock = new FakeClock();
    const pace = new Pace({ concurrency: 100, clock });
    // 40 requests started at once (50 a second over the 800 ms they took), 39 answered, 1 refused
    const burst = ask(pace, clock, 40);
    await clock.advance(800);
    for (const a of burst.admitted.slice(0, 39)) a.admission.done({ answer: ok });
    burst.admitted[39]!.admission.done({ answer: { status: 429, headers: { 'retry-after': '1' } } });
    // 50 × 3/4, under the 48.75 a second that got through (39 answers in the 800 ms since the first start)
    expect(pace.rate()).toBeCloseTo(37.5, 5);
    await clock.advance(1_000);
    expect(pace.rate()).toBeCloseTo(46.875, 5); // 37.5 × 1.25
    await clock.advance(1_000);
    expect(pace.rate()).toBeCloseTo(48.75, 5); // capped at what got through
    await clock.advance(3_000);
    expect(pace.rate()).toBeCloseTo(97.5, 5); // the cap doubled
    await clock.advance(40_000);
    expect(pace.rate()).toBeUndefined(); // no longer limits
    expect(pace.report().refusals).toBe(1);
  });

  test('a bare 429 holds the run only when nothing got through to pace by', async () => {
    const clock = new FakeClock();
    const pace = new Pace({ concurrency: 100, clock });
    const burst = ask(pace, clock, 20);
    await clock.advance(500);
    for (const a of burst.admitted.slice(0, 19)) a.admission.done({ answer: ok });
    burst.admitted[19]!.admission.done({ answer: { status: 429, headers: {} } });
    // paced at what got through (19 a second): the next one starts within 1000/19 ms, not after 1 s
    const next = ask(pace, clock, 1);
    await clock.advance(60);
    expect(next.admitted).toHaveLength(1);
  });

  test('refusals of requests sent at the old pace cut it once, not once each', async () => {
    const clock = new FakeClock();
    const pace = new Pace({ concurrency: 100, clock });
    const burst = ask(pace, clock, 60);
    await clock.advance(500);
    // 60 started at once (120 a second), 40 answered and 20 refused 500 ms later: cut once, to what
    // got through (80 a second), which is less than three quarters of the pace
    for (const a of burst.admitted.slice(0, 40)) a.admission.done({ answer: ok });
    for (const a of burst.admitted.slice(40))
      a.admission.done({ answer: { status: 429, headers: { 'retry-after': '1' } } });
    expect(pace.rate()).toBeCloseTo(80, 5);
  });

  test('a deployment that let nothing through is paced at the lowest pace at once', async () => {
    const clock = new FakeClock();
    const pace = new Pace({ concurrency: 100, clock });
    const burst = ask(pace, clock, 30);
    await clock.advance(500);
    for (const a of burst.admitted) a.admission.done({ answer: { status: 503, headers: {} } });
    expect(pace.rate()).toBe(1);
  });

  test('a 429 and a 503, with or without Retry-After, refuse for now; a 500 or a 404 are answers', () => {
    expect(isRefusal({ status: 503, headers: { 'retry-after': '1' } })).toBe(true);
    expect(isRefusal({ status: 429, headers: {} })).toBe(true);
    expect(isRefusal({ status: 503, headers: {} })).toBe(true);
    expect(isRefusal({ status: 500, headers: { 'retry-after': '1' } })).toBe(false);
    expect(isRefusal({ status: 404, headers: {} })).toBe(false);
  });
});

/**
 * Drives a pace for `ms`: every `every` ms a request of each kind asks; each admitted one is answered
 * 5 ms later by `answer` (its kind, how many of its kind were answered before). Returns the verdicts
 * and how long each request waited for the pace.
 */
async function drive(
  pace: Pace,
  clock: FakeClock,
  opts: {
    readonly kinds: readonly string[];
    readonly ms: number;
    readonly every: number;
    readonly answer: (
      kind: string,
      n: number,
      now: number,
    ) => { status: number; headers: Record<string, string> };
  },
) {
  const seen = new Map<string, number>();
  const verdicts: { kind: string; verdict: PaceVerdict; at: number }[] = [];
  const admittedAt: { kind: string; asked: number; waited: number }[] = [];
  for (let t = 0; t < opts.ms; t += opts.every) {
    for (const kind of opts.kinds) {
      const asked = clock.now();
      void pace.admit(undefined, { kind }).then((a) => {
        admittedAt.push({ kind, asked, waited: a.waitedMs });
        clock.after(5, () => {
          const n = seen.get(kind) ?? 0;
          seen.set(kind, n + 1);
          verdicts.push({
            kind,
            verdict: a.done({ answer: opts.answer(kind, n, clock.now()) }),
            at: clock.now(),
          });
        });
      });
    }
    await clock.advance(opts.every);
  }
  return { verdicts, admittedAt };
}

describe('refusals of every shape', () => {
  test('refusals that keep their share at half the pace and less are not the run’s rate: the cut is lifted, and each refused request waits its own Retry-After', async () => {
    const clock = new FakeClock();
    const pace = new Pace({ concurrency: 1_000, clock });
    let n = 0;
    const oneInSeven = (): PaceAnswer =>
      ++n % 7 === 0 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200, headers: {} };
    // A burst first (many a second), then a request every 10 ms for 20 s.
    await drive(pace, clock, { kinds: ['GET /pets'], ms: 20, every: 1, answer: oneInSeven });
    const { verdicts } = await drive(pace, clock, {
      kinds: ['GET /pets'],
      ms: 20_000,
      every: 10,
      answer: oneInSeven,
    });
    expect(pace.report().lane.independent).toBe(true);
    expect(pace.rate()).toBeUndefined();
    const last = verdicts.filter((v) => v.verdict.kind === 'refused').at(-1)!;
    expect(last.verdict).toEqual({ kind: 'refused', notBefore: last.at + 1_000 });
  });

  test('a rate limit is never taken for refusals that keep their share: paced under it, none come', async () => {
    const clock = new FakeClock();
    const pace = new Pace({ concurrency: 1_000, clock });
    // A fixed window of 20 a second, a request asked every 10 ms (100 a second).
    let window = 0;
    let used = 0;
    const { verdicts } = await drive(pace, clock, {
      kinds: ['GET /pets'],
      ms: 30_000,
      every: 10,
      answer: (_kind, _n, now) => {
        if (now - window >= 1_000) {
          window = now;
          used = 0;
        }
        return ++used <= 20 ? { status: 200, headers: {} } : { status: 429, headers: {} };
      },
    });
    expect(pace.report().lane.independent).toBeUndefined();
    // In the last 10 s the pace kept under the limit: few refusals (probes of the cap), most answered.
    const late = verdicts.filter((v) => v.at > 20_000);
    expect(late.filter((v) => v.verdict.kind === 'answer').length).toBeGreaterThan(150);
    expect(late.filter((v) => v.verdict.kind === 'refused').length).toBeLessThan(late.length / 4);
  });

  test('a limit met by one kind of request paces that kind alone; the others go on at their pace', async () => {
    const clock = new FakeClock();
    const pace = new Pace({ concurrency: 1_000, clock });
    let window = 0;
    let used = 0;
    const { admittedAt } = await drive(pace, clock, {
      kinds: ['POST /pets', 'GET /pets'],
      ms: 20_000,
      every: 20,
      answer: (kind, _n, now) => {
        if (kind !== 'POST /pets') return { status: 200, headers: {} };
        if (now - window >= 1_000) {
          window = now;
          used = 0;
        }
        return ++used <= 3 ? { status: 201, headers: {} } : { status: 429, headers: {} };
      },
    });
    const report = pace.report();
    expect(report.kinds.find((k) => k.kind === 'POST /pets')).toMatchObject({ own: true });
    expect(report.kinds.map((k) => k.kind)).toEqual(['POST /pets']);
    // In the last 5 s every read was let through at once, while the creates waited for their lane, at
    // about the 3 a second that got through.
    const late = admittedAt.filter((a) => a.asked > 15_000);
    expect(late.filter((a) => a.kind === 'GET /pets' && a.waited > 0)).toEqual([]);
    expect(late.filter((a) => a.kind === 'GET /pets').length).toBeGreaterThanOrEqual(249);
    expect(pace.rateOf('POST /pets')).toBeLessThan(4);
  });

  test('a 503 without Retry-After that still comes at the lowest pace is the server’s answer', async () => {
    const clock = new FakeClock();
    const pace = new Pace({ concurrency: 100, clock });
    const burst = ask(pace, clock, 10);
    await clock.advance(100);
    const first = burst.admitted.map((a) => a.admission.done({ answer: { status: 503, headers: {} } }));
    // Nothing got through: the lowest pace at once, held a second.
    expect(first[0]).toEqual({ kind: 'refused', notBefore: 100 });
    expect(pace.rate()).toBe(1);
    const again = ask(pace, clock, 1);
    await clock.advance(1_000);
    expect(again.admitted).toHaveLength(1);
    expect(again.admitted[0]!.admission.done({ answer: { status: 503, headers: {} } })).toEqual({
      kind: 'answer',
    });
    expect(pace.report().lane.answered503).toBe(true);
  });
});

describe('a limit that cannot be waited out', () => {
  test('a Retry-After longer than the pace holds: every request waiting and asking is given up at once', async () => {
    const clock = new FakeClock();
    const pace = new Pace({ concurrency: 1, clock, maxHoldMs: 60_000 });
    const first = ask(pace, clock, 1);
    const queued = ask(pace, clock, 2);
    await settle();
    first.admitted[0]!.admission.done({ answer: { status: 429, headers: { 'retry-after': '3600' } } });
    await settle();
    expect(queued.rejected).toHaveLength(2);
    expect(queued.rejected[0]).toBeInstanceOf(PaceGivenUp);
    expect((queued.rejected[0] as PaceGivenUp).reason).toMatch(
      /asked to wait 3600 s .*longer than a run waits \(60 s\)/,
    );
    const later = ask(pace, clock, 1);
    await settle();
    expect(later.rejected).toHaveLength(1);
  });

  test('nothing but refusals for longer than the pace holds: given up', async () => {
    const clock = new FakeClock();
    const pace = new Pace({ concurrency: 10, clock, maxHoldMs: 5_000 });
    for (let t = 0; t <= 7_000; t += 1_000) {
      const one = ask(pace, clock, 1);
      await clock.advance(1_000);
      one.admitted[0]?.admission.done({ answer: { status: 429, headers: { 'retry-after': '1' } } });
    }
    const late = ask(pace, clock, 1);
    await settle();
    expect((late.rejected[0] as PaceGivenUp).reason).toMatch(/answered nothing but 429 for \d+ s/);
  });

  test('an answer between refusals starts the count again', async () => {
    const clock = new FakeClock();
    const pace = new Pace({ concurrency: 10, clock, maxHoldMs: 5_000 });
    for (let t = 0; t <= 7_000; t += 1_000) {
      const one = ask(pace, clock, 1);
      await clock.advance(1_000);
      one.admitted[0]?.admission.done({
        answer: t % 3_000 === 0 ? ok : { status: 429, headers: { 'retry-after': '1' } },
      });
    }
    const late = ask(pace, clock, 1);
    await clock.advance(2_000);
    expect(late.rejected).toEqual([]);
    expect(late.admitted).toHaveLength(1);
  });
});

describe('a deployment that declares its quota', () => {
  test('no quota left for the requests in flight: new requests wait for the reset', async () => {
    const clock = new FakeClock();
    const pace = new Pace({ concurrency: 10, clock });
    const first = ask(pace, clock, 2);
    await settle();
    first.admitted[0]!.admission.done({
      answer: {
        status: 200,
        headers: { ratelimit: '"default";r=1;t=3', 'ratelimit-policy': '"default";q=50;w=60' },
      },
    });
    const later = ask(pace, clock, 1);
    await clock.advance(2_999);
    expect(later.admitted).toHaveLength(0);
    await clock.advance(1);
    expect(later.admitted).toHaveLength(1);
    expect(pace.report().declared).toEqual({ requests: 50, seconds: 60 });
  });

  test('a declared quota of q in w seconds is kept to before any refusal', async () => {
    const clock = new FakeClock();
    const pace = new Pace({ concurrency: 100, clock });
    const first = ask(pace, clock, 1);
    await settle();
    first.admitted[0]!.admission.done({ answer: { status: 200, headers: { 'ratelimit-policy': '3;w=1' } } });
    const rest = ask(pace, clock, 6);
    await clock.advance(10);
    expect(rest.admitted).toHaveLength(2); // 3 in the window, the first one included
    await clock.advance(1_000);
    expect(rest.admitted).toHaveLength(3 + 2);
  });

  test.each([
    [
      'structured (draft 08+)',
      { ratelimit: '"burst";r=7;t=12', 'ratelimit-policy': '"burst";q=100;w=60' },
      { limit: 100, windowSeconds: 60, remaining: 7, resetSeconds: 12 },
    ],
    [
      'one header, key=value (drafts 06-07)',
      { ratelimit: 'limit=100, remaining=7, reset=12', 'ratelimit-policy': '100;w=60' },
      { limit: 100, windowSeconds: 60, remaining: 7, resetSeconds: 12 },
    ],
    [
      'three headers (drafts 00-05)',
      { 'ratelimit-limit': '100', 'ratelimit-remaining': '7', 'ratelimit-reset': '12' },
      { limit: 100, remaining: 7, resetSeconds: 12 },
    ],
    [
      'X-RateLimit-*, reset in seconds',
      { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '5' },
      { limit: 100, remaining: 0, resetSeconds: 5 },
    ],
    [
      'X-RateLimit-*, reset as a Unix time (GitHub)',
      { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '2000000030' },
      { limit: 60, remaining: 0, resetSeconds: 30 },
    ],
  ])('reads a declared quota: %s', (_, headers, expected) => {
    expect(declaredQuota(headers, 2_000_000_000_000)).toEqual(expected);
  });

  test('no quota header, or one that cannot be read, declares nothing', () => {
    expect(declaredQuota({ 'content-type': 'application/json' })).toBeUndefined();
    expect(declaredQuota({ 'x-ratelimit-remaining': 'lots' })).toBeUndefined();
  });
});

test('Retry-After in seconds or as an HTTP-date', () => {
  expect(retryAfterMs('3', 0)).toBe(3_000);
  expect(retryAfterMs('Wed, 21 Oct 2015 07:28:05 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(
    5_000,
  );
  expect(retryAfterMs('soon', 0)).toBeUndefined();
  expect(retryAfterMs(undefined, 0)).toBeUndefined();
});

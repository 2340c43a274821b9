import { describe, expect, test } from 'vitest';
import {
  type Admission,
  type Clock,
  declaredQuota,
  isRefusal,
  Pace,
  PaceGivenUp,
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

  test('the pace is halved by a refusal, and grows back by a quarter a second, and no longer limits after 10 s without a refusal', async () => {
    const clock = new FakeClock();
    const pace = new Pace({ concurrency: 100, clock });
    // 40 requests started at once, refused 800 ms later: a pace of 50 a second, halved
    const burst = ask(pace, clock, 40);
    for (let i = 0; i < 40; i++) {
      await clock.advance(20);
    }
    for (const a of burst.admitted.slice(0, 39)) a.admission.done({ answer: ok });
    burst.admitted[39]!.admission.done({ answer: { status: 429, headers: { 'retry-after': '1' } } });
    expect(pace.rate()).toBeCloseTo(25, 5);
    await clock.advance(5_000);
    expect(pace.rate()).toBeCloseTo(25 * 1.25 ** 5, 5);
    await clock.advance(5_000);
    expect(pace.rate()).toBeUndefined();
    expect(pace.report().refusals).toBe(1);
  });

  test('refusals of requests sent at the old pace cut it once, not once each', async () => {
    const clock = new FakeClock();
    const pace = new Pace({ concurrency: 100, clock });
    const burst = ask(pace, clock, 60);
    await clock.advance(500);
    // 60 started at once (120 a second), 40 answered and 20 refused 500 ms later: cut once, to what
    // got through (40 a second, less a tenth), which is less than half the pace
    for (const a of burst.admitted.slice(0, 40)) a.admission.done({ answer: ok });
    for (const a of burst.admitted.slice(40))
      a.admission.done({ answer: { status: 429, headers: { 'retry-after': '1' } } });
    expect(pace.rate()).toBeCloseTo(36, 5);
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

// How many requests the deployment takes at once (suites/harness/http/capacity.ts): what says "not so
// many at once", how far the concurrency comes down, and which requests are worth sending again.
import { describe, expect, test } from 'vitest';
import { Capacity, type LoopWatch, SLOW_CONNECT_MS } from '../../suites/harness/http/capacity.ts';

/** An event loop that never stalled. */
const alive: LoopWatch = { earliest: (now) => now };

describe('a slow connection', () => {
  test('made after TCP sent its SYN again, while others were made at once, is slow', () => {
    const c = new Capacity(128, alive);
    c.answered(5);
    expect(c.slowConnect(0, 128, 2, 2)).toBe(false); // made at once
    expect(c.slowConnect(0, 128, 1_040, 1_040)).toBe(true);
  });

  test('is not slow when no other was made meanwhile, nor before any answer told the round trip', () => {
    const lonely = new Capacity(128, alive);
    lonely.answered(5);
    expect(lonely.slowConnect(0, 128, 1_040, 1_040)).toBe(false);
    const unknown = new Capacity(128, alive);
    expect(unknown.slowConnect(0, 128, 2, 2)).toBe(false);
    expect(unknown.slowConnect(0, 128, 1_040, 1_040)).toBe(false);
  });

  test('is not slow when the worker’s own event loop stalled just before it was told of it', () => {
    const stalled: LoopWatch = { earliest: (now) => now - 800 };
    const c = new Capacity(128, stalled);
    c.answered(5);
    c.slowConnect(0, 128, 2, 2);
    expect(c.slowConnect(0, 128, 1_040, 1_040)).toBe(false);
  });

  test('at a distance, takes longer than four answers: a TLS connection 200 ms away is not slow', () => {
    const c = new Capacity(128, alive);
    c.answered(400);
    c.slowConnect(0, 128, 0, 0);
    expect(c.slowConnect(0, 128, 1_200, 1_200)).toBe(false);
    expect(c.slowConnect(0, 128, 1_700, 1_700)).toBe(true);
    expect(SLOW_CONNECT_MS).toBe(900);
  });

  test('is never let go when it was sent one at a time: there is nothing lower to go to', () => {
    const c = new Capacity(1, alive);
    c.answered(5);
    c.slowConnect(0, 1, 2, 2);
    expect(c.slowConnect(0, 1, 1_040, 1_040)).toBe(false);
  });
});

describe('the concurrency', () => {
  test('comes down to an eighth at the second signal of requests sent at it, once for those', () => {
    const c = new Capacity(128, alive);
    expect(c.signal('refused', 0, 128, 10)).toBe(true);
    expect(c.limit).toBe(128); // one lost SYN is no overflow
    c.signal('slow-connect', 0, 128, 11);
    expect(c.limit).toBe(16);
    // Sent before it came down: they tell nothing new.
    c.signal('slow-connect', 5, 128, 12);
    c.signal('slow-connect', 6, 128, 13);
    expect(c.limit).toBe(16);
    c.signal('reset', 20, 16, 30);
    c.signal('not-connected', 21, 16, 31);
    expect(c.limit).toBe(2);
    c.signal('refused', 40, 2, 50);
    c.signal('refused', 41, 2, 51);
    expect(c.limit).toBe(1);
  });

  test('a request the deployment did not take is worth sending again while it was sent above one at a time', () => {
    const c = new Capacity(2, alive);
    expect(c.signal('refused', 0, 2, 1)).toBe(true);
    expect(c.signal('refused', 0, 1, 2)).toBe(false);
  });

  test('the report says where it started, where it came down to, and what the deployment did', () => {
    const c = new Capacity(128, alive);
    expect(c.report()).toBeUndefined();
    c.signal('slow-connect', 0, 128, 1);
    c.signal('slow-connect', 0, 128, 2);
    c.signal('refused', 3, 16, 4);
    expect(c.report()).toEqual({ from: 128, to: 16, signals: { 'slow-connect': 2, refused: 1 } });
  });
});

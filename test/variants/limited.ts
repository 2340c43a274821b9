/**
 * Conformant servers behind rate limiters (servers/limiter.ts): the suite must meet each limit as a
 * whole run, slowly, and judge nothing by it (a 429 is the deployment protecting itself, never a fault
 * of the contract). A limit of one kind of request paces that kind alone, and refusals that do not
 * depend on the pace make each refused request wait its Retry-After while the run goes on: each of
 * those is conformant in under a minute (issue 36).
 */
import { fixedWindow, oneIn, tokenBucket, writeQuota } from './servers/limiter.ts';
import type { Variant } from './variant.ts';

export const limitedVariants: Variant[] = [
  {
    name: 'limited-token-bucket',
    kind: 'conformant',
    does: 'sits behind a token bucket of 20 requests a second, bursts of 40, refused with 429 and Retry-After: 1 (an API gateway, nginx limit_req)',
    breaks: [],
    waits: true,
    server: { wrap: tokenBucket(20, 40, { refuse: { status: 429, retryAfter: true } }) },
  },
  {
    name: 'limited-fixed-window',
    kind: 'conformant',
    does: 'sits behind a fixed window of 60 requests a second, refused with 429 and the seconds left in the window',
    breaks: [],
    waits: true,
    server: { wrap: fixedWindow(60, 1_000, { refuse: { status: 429, retryAfter: true } }) },
  },
  {
    name: 'limited-without-retry-after',
    kind: 'conformant',
    does: 'sits behind a token bucket of 30 requests a second, refused with a bare 429 (no Retry-After)',
    breaks: [],
    waits: true,
    server: { wrap: tokenBucket(30, 30, { refuse: { status: 429, retryAfter: false } }) },
  },
  {
    name: 'limited-shedding-503',
    kind: 'conformant',
    does: 'sheds load above 30 requests a second with 503 and Retry-After: 1',
    breaks: [],
    waits: true,
    server: { wrap: tokenBucket(30, 30, { refuse: { status: 503, retryAfter: true } }) },
  },
  {
    name: 'limited-declared',
    kind: 'conformant',
    does: 'declares a quota of 25 requests a second in RateLimit-Policy and RateLimit on every answer, and refuses with 429 past it',
    breaks: [],
    waits: true,
    server: {
      wrap: tokenBucket(25, 25, { refuse: { status: 429, retryAfter: true }, declare: true }),
    },
  },
  {
    name: 'limited-shared-one-in-seven',
    kind: 'conformant',
    does: 'refuses one request in seven with 429 and Retry-After: 1, whatever the pace (a limit other clients share and use up)',
    breaks: [],
    waits: true,
    server: { wrap: oneIn(7, { refuse: { status: 429, retryAfter: true } }) },
  },
  {
    name: 'limited-shared-http-date',
    kind: 'conformant',
    does: 'refuses one request in seven with 429 and a Retry-After HTTP-date a second ahead, whatever the pace',
    breaks: [],
    waits: true,
    server: { wrap: oneIn(7, { refuse: { status: 429, retryAfter: 'date' } }) },
  },
  {
    name: 'limited-sheds-one-in-ten',
    kind: 'conformant',
    does: 'sheds one request in ten with 503 and Retry-After: 1, whatever the pace',
    breaks: [],
    waits: true,
    server: { wrap: oneIn(10, { refuse: { status: 503, retryAfter: true } }) },
  },
  {
    name: 'limited-write-quota',
    kind: 'conformant',
    does: 'limits creates alone (POST) to 8 a second with a bare 429 (no Retry-After); reads are not limited',
    breaks: [],
    waits: true,
    server: { wrap: writeQuota(8) },
  },
];

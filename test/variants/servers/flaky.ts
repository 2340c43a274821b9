/**
 * A flaky network in front of the reference: the connection of one GET in `n` (counted as they
 * arrive) is reset before any answer, never twice for one request target. Nothing is wrong with what
 * the server answers; a run with --retries is conformant with the requirements those GETs served
 * marked flaky, a run without names the reset.
 *
 * Never twice for one target: a request sent again after a backoff arrives at whatever count the
 * others have reached meanwhile, and one time in `n` that count would be a multiple again (at one
 * request at a time, which the run comes down to as the resets read as "not so many at once", a
 * request was once reset three times and --retries 2 did not suffice). A network that resets one
 * GET in fifteen at random would do that too, more rarely than a test may fail.
 */
import type { Wrap } from './wrap.ts';

export function resetsOneGetIn(n: number): Wrap {
  let gets = 0;
  let next = n;
  const reset = new Set<string>();
  return (handler) => (req, res) => {
    if (req.method === 'GET' && ++gets >= next && !reset.has(req.url ?? '')) {
      reset.add(req.url ?? '');
      next = gets + n;
      req.socket.resetAndDestroy();
      return;
    }
    handler(req, res);
  };
}

/**
 * A flaky network in front of the reference: the connection of one GET in `n` (the nth, the 2nth, …,
 * counted as they arrive) is reset before any answer. Nothing is wrong with what the server answers;
 * a run with --retries is conformant with the requirements those GETs served marked flaky, a run
 * without names the reset.
 */
import type { Wrap } from './wrap.ts';

export function resetsOneGetIn(n: number): Wrap {
  let gets = 0;
  return (handler) => (req, res) => {
    if (req.method === 'GET' && ++gets % n === 0) {
      req.socket.resetAndDestroy();
      return;
    }
    handler(req, res);
  };
}

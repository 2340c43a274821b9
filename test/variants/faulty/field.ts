/**
 * Faults of servers as they are deployed (issue 35), each one cause the run must name once: a
 * route narrower than int64 (a Flask route `<int:id>` matches no negative id), and two workers that
 * each keep a store of their own behind one address (gunicorn with two workers, an in-memory dict
 * each).
 */
import type { Socket } from 'node:net';
import { createReferenceHandler } from '../../../reference-impl/index.ts';
import { answer } from '../servers/body.ts';
import { intercept, type Wrap } from '../servers/wrap.ts';
import type { Variant } from '../variant.ts';

/** GET (and HEAD) of /pets/{a negative id}: not found, as a router whose pattern never matches it answers. */
const negativeIdsUnrouted: Wrap = intercept((req, res) => {
  const path = new URL(req.url ?? '/', 'http://field.invalid').pathname;
  if ((req.method !== 'GET' && req.method !== 'HEAD') || !/\/pets\/-\d+$/.test(path)) return false;
  req.resume();
  answer(res, 404, '{"type":"about:blank","title":"Not Found","status":404}', 'application/problem+json');
  return true;
});

/**
 * Two workers behind one address, each with a store of its own: each connection is served by one of
 * them, in turn, as a pre-fork server hands accepted connections to its workers.
 */
const twoStores: Wrap = (first) => {
  const second = createReferenceHandler();
  const workerOf = new WeakMap<Socket, number>();
  let connections = 0;
  return (req, res) => {
    let worker = workerOf.get(req.socket);
    if (worker === undefined) {
      worker = connections++ % 2;
      workerOf.set(req.socket, worker);
    }
    if (worker === 0) first(req, res);
    else void second.then((handler) => handler(req, res));
  };
};

export const fieldVariants: Variant[] = [
  {
    name: 'negative-ids-unrouted',
    kind: 'faulty',
    does: 'stores pets with negative ids but answers 404 to GET /pets/{a negative id}, as a route <int:id> does',
    breaks: ['SHOW-OK'],
    // A negative pet not found elsewhere (the edges of CREATE-INT64-EXACT, the generated sequences'
    // shows) is this class's, SHOW-OK's: those checks are blocked by it.
    blocks: ['CREATE-INT64-EXACT', 'CREATE-PERSISTED', 'CREATE-CONCURRENT'],
    server: { wrap: negativeIdsUnrouted },
  },
  {
    name: 'two-stores',
    kind: 'faulty',
    does: 'serves each connection from one of two workers, each with a store of its own',
    breaks: ['CREATE-PERSISTED'],
    blocks: 'every other',
    server: { wrap: twoStores },
  },
];

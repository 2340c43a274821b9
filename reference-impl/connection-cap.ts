/**
 * The connection cap, which guards the file descriptors and memory that idle or slow connections
 * hold: at most `maxConnections` are served at once. The first request of a connection beyond it is
 * answered 503 (RFC 9110 §15.6.4, a temporary overload) with `Retry-After: 1` and `Connection: close`;
 * such a connection that sends nothing within OVERFLOW_WAIT_MS is closed; beyond twice the cap,
 * node:http closes new connections at once, unanswered.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { OVERFLOW_WAIT_MS, positiveLimit } from './limits.ts';
import { refuseAndClose } from './lingering-close.ts';

/** Caps the connections of `server`; the function returned answers (and returns true) when a request is over the cap. */
export function capConnections(server: Server, maxConnections: number) {
  server.maxConnections = 2 * positiveLimit('maxConnections', maxConnections);
  let open = 0;
  /** Connections opened beyond the cap, with the timer that closes them if no request comes. */
  const overCap = new WeakMap<Socket, NodeJS.Timeout>();
  server.on('connection', (socket: Socket) => {
    open += 1;
    socket.once('close', () => {
      open -= 1;
    });
    if (open > maxConnections) {
      const timer = setTimeout(() => socket.destroy(), OVERFLOW_WAIT_MS);
      overCap.set(socket, timer);
      socket.once('close', () => clearTimeout(timer));
    }
  });
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const timer = overCap.get(req.socket);
    if (!timer) return false;
    clearTimeout(timer);
    const detail = `the server has ${maxConnections} connections open, the most it serves at once; try again in a second`;
    refuseAndClose(req, res, 503, detail, { 'Retry-After': '1' });
    return true;
  };
}

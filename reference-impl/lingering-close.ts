/**
 * Closing a connection without a reset, which guards the answer a refused client is owed: closing a
 * socket with unread bytes makes the kernel answer them with a reset, which can reach the client
 * before it has read the answer. So the rest of what it sends is read and discarded first, up to
 * LINGER_BYTES or LINGER_MS (a "lingering close", as nginx does it).
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { LINGER_BYTES, LINGER_MS } from './limits.ts';
import { problemJson } from './responses.ts';

/**
 * Answers with a problem and `Connection: close`, without reading the request body. The response is
 * written whole at once, so the client can read it, but ended only after the rest of the request
 * body has been discarded: node:http closes the connection when a `Connection: close` response ends.
 */
export function refuseAndClose(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  detail: string,
  headers?: OutgoingHttpHeaders,
) {
  const body = problemJson(status, detail);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/problem+json',
    'Content-Length': Buffer.byteLength(body),
    Connection: 'close',
  });
  res.write(body);
  let discarded = 0;
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', finish);
    req.off('close', finish);
    req.resume(); // whatever is left is dumped until the socket closes
    res.end();
  };
  const onData = (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > LINGER_BYTES) finish();
  };
  const timer = setTimeout(finish, LINGER_MS);
  req.on('data', onData);
  req.on('end', finish);
  req.on('close', finish);
  req.on('error', () => {});
}

/**
 * Closes a connection whose answer is written: sends what is buffered and a FIN, then reads and
 * discards what the client still sends until it closes its side, LINGER_BYTES have come or
 * LINGER_MS have passed.
 */
export function lingeringClose(socket: Duplex) {
  let discarded = 0;
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  socket.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > LINGER_BYTES) socket.destroy();
  });
  socket.once('end', () => socket.destroy());
  socket.once('close', () => clearTimeout(timer));
  socket.on('error', () => {});
  socket.end();
  socket.resume();
}

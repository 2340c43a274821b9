import { IncomingMessage, type ServerResponse } from 'node:http';
import { parse } from 'lossless-json';
import type { Wrap } from './wrap.ts';

/** Bodies larger than this are not buffered by a variant: the socket is dropped instead. */
const MAX_BUFFERED = 16 * 1024 * 1024;

/** A request whose body has already been read, replayed to the reference with `body` as its body. */
function replay(req: IncomingMessage, body: Buffer): IncomingMessage {
  const copy = new IncomingMessage(req.socket);
  copy.method = req.method;
  copy.url = req.url;
  copy.httpVersionMajor = req.httpVersionMajor;
  copy.httpVersionMinor = req.httpVersionMinor;
  copy.httpVersion = req.httpVersion;
  const headers = { ...req.headers, 'content-length': String(body.length) };
  delete headers['transfer-encoding'];
  copy.headers = headers;
  copy.rawHeaders = Object.entries(headers).flatMap(([k, v]) => [k, String(v)]);
  // Without `complete`, Node takes the end of this copy for an aborted request and destroys the socket.
  copy.complete = true;
  copy.push(body);
  copy.push(null);
  return copy;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The request body parsed losslessly, or undefined when it is not JSON: not UTF-8 included, as the
 * reference reads it (a lenient decode would turn a stray byte into U+FFFD and accept the body).
 */
export function jsonOf(body: Buffer): unknown {
  try {
    return parse(utf8.decode(body));
  } catch {
    return undefined;
  }
}

/** Whether the bytes are UTF-8, as the reference asks of a body. */
export function isUtf8(body: Buffer): boolean {
  try {
    utf8.decode(body);
    return true;
  } catch {
    return false;
  }
}

export interface BodyStep {
  req: IncomingMessage;
  res: ServerResponse;
  body: Buffer;
  /** Passes the request on to the reference, with the same body or another one. */
  forward(body?: Buffer): void;
}

/**
 * Reads the request body of requests that `when` selects, then hands it to `step`, which answers
 * itself or forwards (possibly a changed body) to the reference. Other requests pass untouched.
 */
export function withRequestBody(when: (req: IncomingMessage) => boolean, step: (s: BodyStep) => void): Wrap {
  return (handler) => (req, res) => {
    if (!when(req)) {
      handler(req, res);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BUFFERED) req.socket.destroy();
      else chunks.push(chunk);
    });
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      step({ req, res, body, forward: (next = body) => handler(replay(req, next), res) });
    });
  };
}

/** Answers a JSON (or empty) response directly, without the reference. */
export function answer(res: ServerResponse, status: number, body?: string, type = 'application/json'): void {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = type;
  res.writeHead(status, headers);
  res.end(body);
}

/** True for POST /v1/pets. */
export const isCreateRequest = (req: IncomingMessage) =>
  req.method === 'POST' && /\/pets\/?(\?.*)?$/.test(req.url ?? '');

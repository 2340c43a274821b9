/**
 * Writing responses and reading request bodies: JSON successes, RFC 9457 problem details, a body
 * reader that stops at MAX_BODY_BYTES, and refusals that close the connection without a reset.
 */
import { type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse, STATUS_CODES } from 'node:http';
import type { FieldError } from './contract.ts';
import { LINGER_BYTES, LINGER_MS, MAX_BODY_BYTES, MAX_PET_BYTES } from './limits.ts';

export { MAX_BODY_BYTES };

/** Answers with a JSON body (ANY-JSON-CONTENT-TYPE). HEAD requests get the headers only (node:http). */
export function sendJson(res: ServerResponse, status: number, json: string, headers?: OutgoingHttpHeaders) {
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(json),
  });
  res.end(json);
}

/** The body of an RFC 9457 problem: a plain status, what went wrong, and which fields. */
export function problemJson(status: number, detail: string, errors?: FieldError[]): string {
  return JSON.stringify({
    type: 'about:blank',
    title: STATUS_CODES[status] ?? 'Error',
    status,
    detail,
    ...(errors && errors.length > 0 ? { errors } : {}),
  });
}

/** Answers an error as application/problem+json (ANY-ERROR-JSON). */
export function sendProblem(
  res: ServerResponse,
  status: number,
  detail: string,
  errors?: FieldError[],
  headers?: OutgoingHttpHeaders,
) {
  const body = problemJson(status, detail, errors);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/problem+json',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

/**
 * Reads the whole body, or answers 413 (CREATE-BODY-TOO-LARGE) as soon as it is known to exceed
 * MAX_BODY_BYTES, from Content-Length or while reading, without keeping the rest. Resolves to
 * undefined when the request got its answer already (413) or the client went away.
 */
export function readBody(req: IncomingMessage, res: ServerResponse): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    if (req.destroyed) {
      resolve(undefined); // the client left before the handler got here
      return;
    }
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > MAX_BODY_BYTES) {
      tooLarge(req, res);
      resolve(undefined);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (body: Buffer | undefined) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      resolve(body);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        stop(undefined);
        tooLarge(req, res);
      } else chunks.push(chunk);
    };
    const onEnd = () => stop(Buffer.concat(chunks, size));
    // The client went away before the body ended (an abort or a reset): nobody is left to answer.
    const onClose = () => stop(undefined);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
    // An aborted request is also destroyed with an error; listening keeps it from being thrown.
    req.on('error', () => {});
  });
}

/** 413 (CREATE-BODY-TOO-LARGE): the body is over MAX_BODY_BYTES. */
function tooLarge(req: IncomingMessage, res: ServerResponse) {
  refuseAndClose(
    req,
    res,
    413,
    `the body is larger than ${MAX_BODY_BYTES} bytes, the most this server reads (a pet may take at most ${MAX_PET_BYTES} bytes as JSON)`,
  );
}

/**
 * Answers with a problem and `Connection: close`, without reading the request body. The response is
 * written whole at once, so the client can read it, but ended only after the rest of the request
 * body has been discarded (up to LINGER_BYTES or LINGER_MS): node:http closes the connection when a
 * `Connection: close` response ends, and closing with unread bytes would answer them with a reset.
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

/**
 * The request body limit, which guards the memory a request can make the process hold: a body is
 * read only up to MAX_BODY_BYTES (8 KiB); beyond it the client gets 413 and the rest is discarded.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_BODY_BYTES, MAX_PET_BYTES } from './limits.ts';
import { refuseAndClose } from './lingering-close.ts';

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

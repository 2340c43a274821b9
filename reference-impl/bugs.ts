/**
 * The catch-all, which guards clients from the server's own bugs: nothing in the service throws on
 * any input (ANY-NO-5XX; the tests check that no request reaches this), but were one to, the client
 * gets 500 rather than a hang, the error is reported, and the server keeps serving.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendProblem } from './responses.ts';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** `route` as a Handler whose errors, thrown or rejected, are answered 500 and passed to `onError` (default: stderr). */
export function answeringBugs(
  route: (req: IncomingMessage, res: ServerResponse) => Promise<void> | void,
  onError: (error: unknown) => void = (error) => console.error('reference-impl: internal error:', error),
): Handler {
  const internalError = (res: ServerResponse, error: unknown) => {
    onError(error);
    if (res.headersSent) res.destroy();
    else sendProblem(res, 500, 'the server failed: a bug of the reference implementation');
  };
  return (req, res) => {
    try {
      route(req, res)?.catch((error: unknown) => internalError(res, error));
    } catch (error) {
      internalError(res, error);
    }
  };
}

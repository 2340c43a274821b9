/**
 * The catch-all, which guards clients from the server's own bugs: nothing in the service throws on
 * any input (ANY-NO-5XX; the tests check that no request reaches this), but were one to, the client
 * gets 500 rather than a hang, the error is reported, and the server keeps serving.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendProblem } from './responses.ts';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** `route` as a Handler whose rejections are answered 500 and passed to `onError` (default: stderr, with its stack). */
export function answeringBugs(
  route: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  onError: (error: unknown) => void = console.error,
): Handler {
  return (req, res) => {
    // Stryker disable next-line BlockStatement: only a bug reaches the catch-all
    route(req, res).catch((error: unknown) => {
      onError(error);
      // Stryker disable next-line ConditionalExpression: only a bug reaches the catch-all
      if (res.headersSent) return res.destroy();
      sendProblem(res, 500); // Internal Server Error: a bug of this server's, which its stderr shows
    });
  };
}

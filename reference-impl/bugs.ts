/**
 * The catch-all, which guards clients from the server's own bugs: nothing in the service throws on
 * any input (ANY-NO-5XX; the tests check that no request reaches this), but were one to, the client
 * gets 500 rather than a hang, the error is reported, and the server keeps serving.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendProblem } from './responses.ts';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** `route` as a Handler whose rejections are answered 500 and passed to `onError` (default: stderr). */
export function answeringBugs(
  route: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  // Stryker disable next-line ArrowFunction,StringLiteral: only a bug reaches the catch-all, and what it reports goes to stderr
  onError: (error: unknown) => void = (error) => console.error('reference-impl: internal error:', error),
): Handler {
  return (req, res) => {
    // Stryker disable next-line ArrowFunction,BlockStatement: only a bug reaches the catch-all
    route(req, res).catch((error: unknown) => {
      onError(error);
      // Stryker disable next-line ConditionalExpression: only a bug reaches the catch-all
      if (res.headersSent) return res.destroy();
      // Stryker disable next-line StringLiteral: only a bug reaches the catch-all
      sendProblem(res, 500, 'the server failed: a bug of the reference implementation');
    });
  };
}

/**
 * Hostile variants: servers that hang, reset, drip, flood or refuse everything. The run must end by
 * itself with exit 1 and the affected requirements failed.
 */
import type { IncomingMessage } from 'node:http';
import { answer } from './servers/body.ts';
import { drips, neverAnswers, resetsMidBody, streamHugeList } from './servers/hostile.ts';
import { intercept, rewriteResponse } from './servers/wrap.ts';
import type { Variant } from './variant.ts';

const isListRequest = (req: IncomingMessage) => req.method === 'GET' && /\/pets\/?(\?|$)/.test(req.url ?? '');

export const hostileVariants: Variant[] = [
  {
    name: 'never-answers',
    kind: 'hostile',
    does: 'accepts connections and never answers',
    breaks: ['LIST-OK', 'SHOW-OK', 'VERSION-V1-PREFIX'],
    server: { hostile: neverAnswers },
  },
  {
    name: 'resets-mid-body',
    kind: 'hostile',
    does: 'sends headers and half a body, then resets the connection',
    // Every answer broken: ANY-HTTP-MESSAGE fails, and the checks that met one are blocked by it.
    breaks: ['ANY-HTTP-MESSAGE'],
    server: { hostile: resetsMidBody },
  },
  {
    name: 'drips',
    kind: 'hostile',
    does: 'sends its answers one byte a second',
    breaks: ['LIST-OK', 'CREATE-OK'],
    server: { hostile: drips },
  },
  {
    name: 'huge-list',
    kind: 'hostile',
    does: 'answers the list with a 50 MB JSON array',
    breaks: ['LIST-OK', 'LIST-LIMIT-OVER-MAX'],
    server: {
      wrap: intercept((req, res) => {
        if (!isListRequest(req)) return false;
        streamHugeList(res);
        return true;
      }),
    },
  },
  {
    name: 'invalid-json',
    kind: 'hostile',
    does: 'sends invalid JSON labelled application/json',
    breaks: ['LIST-OK', 'SHOW-OK'],
    server: {
      wrap: rewriteResponse((res) =>
        /json/.test(String(res.headers['content-type']))
          ? { ...res, body: Buffer.from('[{"id": 1, "name": ') }
          : res,
      ),
    },
  },
  {
    name: 'always-503',
    kind: 'hostile',
    does: 'answers 503 to everything',
    breaks: ['ANY-NO-5XX', 'LIST-OK', 'CREATE-OK'],
    server: {
      wrap: intercept((req, res) => {
        req.resume();
        answer(res, 503, '{"title":"Service Unavailable"}', 'application/problem+json');
        return true;
      }),
    },
  },
];

/**
 * The key in a scheme (--api-key-scheme): servers that require `Authorization: <scheme> <key>` in
 * front of the reference (which then requires no key of its own), one conformant, the others each
 * getting one thing of the scheme wrong.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answer } from '../servers/body.ts';
import { intercept } from '../servers/wrap.ts';
import { KEY, type Variant } from '../variant.ts';

const schemeArgs = ['--api-key', KEY, '--api-key-scheme', 'Bearer', '--auth-required'];

/** Lets a request through when `allowed` says so; refuses it with 401 and a problem body otherwise. */
function authorizationGate(allowed: (authorization: string | undefined) => boolean) {
  return intercept((req: IncomingMessage, res: ServerResponse) => {
    if (allowed(req.headers.authorization)) return false;
    req.resume();
    res.setHeader('www-authenticate', 'Bearer');
    answer(res, 401, '{"title":"a valid bearer token is required"}', 'application/problem+json');
    return true;
  });
}

export const schemeVariants: Variant[] = [
  {
    name: 'bearer-required',
    kind: 'conformant',
    does: 'requires the key as Authorization: Bearer …, and refuses a missing or wrong one with 401',
    breaks: [],
    server: { wrap: authorizationGate((value) => value === `Bearer ${KEY}`) },
    args: schemeArgs,
  },
  {
    name: 'any-authorization-accepted',
    kind: 'faulty',
    does: 'requires an Authorization header, but accepts any value of it',
    breaks: ['AUTH-WRONG-KEY-REFUSED'],
    server: { wrap: authorizationGate((value) => value !== undefined) },
    args: schemeArgs,
  },
  {
    name: 'token-scheme-expected',
    kind: 'faulty',
    does: 'expects the key as Authorization: Token … while the run sends Bearer …',
    breaks: ['AUTH-KEY-ACCEPTED'],
    blocks: 'every other',
    server: { wrap: authorizationGate((value) => value === `Token ${KEY}`) },
    args: schemeArgs,
  },
];

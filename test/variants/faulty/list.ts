/** Faulty variants of the list operation (GET /pets): its body and its limit. */
import { answer } from '../servers/body.ts';
import { intercept, isList, rewriteJson, rewriteRequest, type Wrap } from '../servers/wrap.ts';
import type { Variant } from '../variant.ts';

const queryLimit = (url: string | undefined) => new URL(url ?? '/', 'http://x').searchParams.get('limit');

/** Rewrites the limit the reference sees, leaving other requests alone. */
function changeLimit(change: (limit: string | null) => string | null): Wrap {
  return rewriteRequest((req) => {
    if (req.method !== 'GET' || !/\/pets\/?(\?|$)/.test(req.url ?? '')) return;
    const url = new URL(req.url ?? '/', 'http://x');
    const next = change(url.searchParams.get('limit'));
    if (next === null) url.searchParams.delete('limit');
    else url.searchParams.set('limit', next);
    req.url = url.pathname + url.search;
  });
}

const isInt = (s: string | null): s is string => s !== null && /^-?\d+$/.test(s);

/** MUST fault (LIST-LIMIT-OVER-MAX): a limit above 100 is served as if it were 100, with 200. */
export const acceptAnyLimit: Wrap = changeLimit((limit) =>
  isInt(limit) && BigInt(limit) > 100n ? '100' : limit,
);

export const listVariants: Variant[] = [
  {
    name: 'list-name-missing',
    kind: 'faulty',
    does: 'leaves name out of the items of the list',
    breaks: ['ANY-PET-SCHEMA'],
    server: {
      wrap: rewriteJson(
        (body) => (Array.isArray(body) ? body.map(({ name: _name, ...rest }) => rest) : body),
        (req, res) => isList(req) && res.status === 200,
      ),
    },
  },
  {
    name: 'list-wrapped',
    kind: 'faulty',
    does: 'wraps the list in an object: {"items": [...]}',
    breaks: ['LIST-OK'],
    blocks: [
      'ANY-PET-SCHEMA',
      'LIST-LIMIT-AT-MOST',
      'LIST-LIMIT-FILLS',
      'LIST-LIMIT-DEFAULT',
      'LIST-LIMIT-BELOW-ONE',
      'LIST-LIMIT-PAGE-MAX',
    ],
    server: {
      wrap: rewriteJson(
        (body) => ({ items: body }),
        (req, res) => isList(req) && res.status === 200,
      ),
    },
  },
  {
    name: 'limit-ignored',
    kind: 'faulty',
    does: 'ignores limit and always answers up to 100 pets',
    breaks: ['LIST-LIMIT-AT-MOST', 'LIST-LIMIT-BELOW-ONE'],
    server: { wrap: changeLimit((limit) => (isInt(limit) && Number(limit) <= 100 ? null : limit)) },
  },
  {
    name: 'limit-plus-one',
    kind: 'faulty',
    does: 'answers one pet more than limit asks for',
    breaks: ['LIST-LIMIT-AT-MOST'],
    server: {
      wrap: changeLimit((limit) =>
        isInt(limit) && Number(limit) >= 1 && Number(limit) < 100 ? String(Number(limit) + 1) : limit,
      ),
    },
  },
  {
    name: 'limit-minus-one',
    kind: 'faulty',
    does: 'answers one pet fewer than limit asks for, though more exist',
    breaks: ['LIST-LIMIT-FILLS'],
    server: {
      wrap: changeLimit((limit) =>
        isInt(limit) && Number(limit) > 1 && Number(limit) <= 100 ? String(Number(limit) - 1) : limit,
      ),
    },
  },
  {
    name: 'limit-plus-one-between',
    kind: 'faulty',
    does: 'answers one pet more than limit asks for when the limit is from 11 to 99 (1, 7 and 100 are served right)',
    breaks: ['LIST-LIMIT-AT-MOST'],
    server: {
      wrap: changeLimit((limit) =>
        isInt(limit) && Number(limit) >= 11 && Number(limit) <= 99 ? String(Number(limit) + 1) : limit,
      ),
    },
  },
  {
    name: 'limit-over-max-accepted',
    kind: 'faulty',
    does: 'accepts a limit above 100 and answers 100 pets',
    breaks: ['LIST-LIMIT-OVER-MAX'],
    server: { wrap: acceptAnyLimit },
  },
  {
    name: 'limit-max-rejected',
    kind: 'faulty',
    does: 'rejects limit=100, the declared maximum, with 400',
    breaks: ['LIST-LIMIT-MAX-ACCEPTED'],
    // LIST-LIMIT-FILLS since its row limit=100 (a page cut short at 100 went unseen).
    blocks: ['LIST-LIMIT-AT-MOST', 'LIST-LIMIT-FILLS'],
    server: {
      wrap: intercept((req, res) => {
        if (req.method !== 'GET' || queryLimit(req.url) !== '100') return false;
        answer(res, 400, '{"title":"limit too large"}', 'application/problem+json');
        return true;
      }),
    },
  },
  {
    name: 'default-not-capped',
    kind: 'faulty',
    does: 'answers more than 100 pets when limit is omitted',
    breaks: ['LIST-LIMIT-DEFAULT'],
    server: {
      wrap: rewriteJson(
        (body) => (Array.isArray(body) && body.length > 0 ? [...body, body[0]] : body),
        (req, res) => isList(req) && !req.query.has('limit') && res.status === 200,
      ),
    },
  },
  {
    name: 'non-integer-limit-500',
    kind: 'faulty',
    does: 'answers 500 to a limit that is not an integer',
    breaks: ['LIST-LIMIT-NOT-INTEGER', 'LIST-LIMIT-PADDED-REFUSED', 'ANY-NO-5XX'],
    server: {
      wrap: intercept((req, res) => {
        const limit = queryLimit(req.url);
        if (req.method !== 'GET' || limit === null || isInt(limit)) return false;
        answer(res, 500, '{"title":"NumberFormatException"}', 'application/problem+json');
        return true;
      }),
    },
  },
  {
    name: 'limit-number-coerced',
    kind: 'faulty',
    does: "reads limit with Number(): 0x10, ' 5', +2 and 1e1 are taken as integers",
    breaks: ['LIST-LIMIT-NOT-INTEGER', 'LIST-LIMIT-PADDED-REFUSED'],
    server: {
      wrap: changeLimit((limit) => {
        if (limit === null || /^-?\d+$/.test(limit) || limit.trim() === '') return limit;
        const n = Number(limit);
        return Number.isInteger(n) ? String(n) : limit;
      }),
    },
  },
  {
    name: 'limit-page-of-25',
    kind: 'faulty',
    does: 'serves limits above 25 in whole pages of 25: limit=26 answers 50 pets',
    breaks: ['LIST-LIMIT-AT-MOST'],
    server: {
      wrap: changeLimit((limit) =>
        isInt(limit) && Number(limit) > 25 && Number(limit) < 100
          ? String(Math.ceil(Number(limit) / 25) * 25)
          : limit,
      ),
    },
  },
  {
    name: 'limit-zero-full-page',
    kind: 'faulty',
    // Found at MAY only: no minimum is declared, and LIST-LIMIT-AT-MOST's published title is 1 to 100.
    does: 'reads limit=0 as no limit (Number(limit) || 100) and answers 100 pets',
    breaks: ['LIST-LIMIT-BELOW-ONE'],
    server: { wrap: changeLimit((limit) => (limit === '0' ? null : limit)) },
  },
];

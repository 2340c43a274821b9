/**
 * Other spellings of a documented request: the same resource asked for with a path spelled
 * otherwise, or with another method that reads it. A key guard and a router often disagree on them
 * (OWASP Web Security Testing Guide, WSTG-ATHZ-02, bypassing the authorization schema): a guard that
 * matches /v1/pets exactly lets /v1/pets/ through to a router that takes a trailing slash, and one
 * that reads the raw path lets /v1/%70ets through to a router that decodes it. Spring Framework 6
 * deprecated trailing-slash matching partly for this reason.
 *
 * Each spelling is sent as written (RequestOptions.asWritten): the URL parser would resolve the dot
 * segments and the percent-encoded dots before they left.
 *
 * A guard may also look at the request target as written where the router looks at the resource it
 * names: the target with a query string (a guard of `/v1/pets` exactly lets `/v1/pets?x=1` through),
 * or in absolute form (`GET http://host/v1/pets HTTP/1.1`, which RFC 9112 §3.2.2 says a server MUST
 * accept, and which a guard of paths that start with `/` never sees). targetsOf() sends every
 * spelling in each of those places.
 */

/** A request for a documented resource, spelled otherwise. */
export interface Spelling {
  /** What is spelled otherwise: "a trailing slash". */
  readonly case: string;
  readonly method: 'GET' | 'HEAD' | 'POST';
  /** The path under the base URL, as it is sent, a query string included: "/pets/", "/pets?x=1". */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent with the whole URL as its request target (RFC 9112 §3.2.2), not its path alone. */
  readonly absolute?: boolean;
}

/** A query string a request target may carry, and what it is. */
export interface QueryForm {
  readonly case: string;
  /** What follows the path: "", "?", "?x=1". */
  readonly suffix: string;
}

/** The query strings every target goes out with: none, an empty one, an unrelated parameter. */
export const QUERIES: readonly QueryForm[] = [
  { case: '', suffix: '' },
  { case: 'an empty query', suffix: '?' },
  { case: 'an unrelated query parameter', suffix: '?x=1' },
];

/** The list's query strings: those of every target, and its own real parameter. */
export const LIST_QUERIES: readonly QueryForm[] = [...QUERIES, { case: 'its limit', suffix: '?limit=5' }];

/** The headers that ask a framework to take a POST for another method (Express, Rails, Laravel, ASP.NET). */
const OVERRIDE_HEADERS = ['X-HTTP-Method-Override', 'X-HTTP-Method', 'X-Method-Override'];

/** The first character of a segment percent-encoded: "pets" as "%70ets", "7" as "%37". */
function encodeFirst(segment: string): string {
  const code = segment.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0');
  return `%${code}${segment.slice(1)}`;
}

/** The first character of a segment percent-encoded twice: "pets" as "%2570ets", which decodes to "%70ets". */
function encodeFirstTwice(segment: string): string {
  return `%25${encodeFirst(segment).slice(1)}`;
}

/**
 * The spellings of GET `path` (a path of the contract under the base URL, such as /pets or
 * /pets/7, whose segments are plain ASCII): its last segment reached otherwise (after a dot
 * segment, a doubled slash, a segment and ..), spelled otherwise (its first character
 * percent-encoded, once or twice, a `;` parameter, a trailing slash), the slash before it encoded when there is a
 * segment before it; and, unless `getOnly` (--read-only promises GET alone), HEAD for the GET and a
 * POST that asks to be taken for a GET.
 */
export function spellingsOf(path: string, getOnly: boolean): Spelling[] {
  const cut = path.lastIndexOf('/');
  const before = path.slice(0, cut);
  const last = path.slice(cut + 1);
  const gets: [string, string][] = [
    ['a trailing slash', `${path}/`],
    ['a doubled slash', `${before}//${last}`],
    ['a dot segment', `${before}/./${last}`],
    ['a segment and a dot-dot segment', `${before}/x/../${last}`],
    ['a percent-encoded dot segment', `${before}/%2e/${last}`],
    ['its last segment percent-encoded in part', `${before}/${encodeFirst(last)}`],
    ['its last segment percent-encoded twice in part', `${before}/${encodeFirstTwice(last)}`],
    ['a ; parameter', `${path};x=1`],
  ];
  if (before !== '') gets.push(['the slash before its last segment percent-encoded', `${before}%2F${last}`]);
  const spellings: Spelling[] = gets.map(([what, spelled]) => ({ case: what, method: 'GET', path: spelled }));
  if (getOnly) return spellings;
  return [
    ...spellings,
    { case: 'HEAD for GET', method: 'HEAD', path },
    {
      case: 'POST with a method-override header naming GET',
      method: 'POST',
      path,
      headers: Object.fromEntries(OVERRIDE_HEADERS.map((name) => [name, 'GET'])),
    },
  ];
}

/**
 * Every place a guard may look for `path` (a path of the contract under the base URL): the path as
 * documented and each of its spellings (spellingsOf), each with each query string of `queries`, in
 * origin form and in absolute form; all but the path as documented, in origin form, without a query,
 * which the checks of the operations send.
 */
export function targetsOf(path: string, getOnly: boolean, queries: readonly QueryForm[]): Spelling[] {
  const documented: Spelling = { case: 'the path as documented', method: 'GET', path };
  const out: Spelling[] = [];
  for (const spelling of [documented, ...spellingsOf(path, getOnly)]) {
    for (const query of queries) {
      for (const absolute of [false, true]) {
        if (spelling === documented && query.suffix === '' && !absolute) continue;
        const also = [query.case, absolute ? 'in absolute form' : ''].filter(Boolean).join(', ');
        out.push({
          ...spelling,
          case: also === '' ? spelling.case : `${spelling.case}, ${also}`,
          path: `${spelling.path}${query.suffix}`,
          ...(absolute ? { absolute: true } : {}),
        });
      }
    }
  }
  return out;
}

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
 */

/** A request for a documented resource, spelled otherwise. */
export interface Spelling {
  /** What is spelled otherwise: "a trailing slash". */
  readonly case: string;
  readonly method: 'GET' | 'HEAD' | 'POST';
  /** The path under the base URL, as it is sent: "/pets/". */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** The headers that ask a framework to take a POST for another method (Express, Rails, Laravel, ASP.NET). */
const OVERRIDE_HEADERS = ['X-HTTP-Method-Override', 'X-HTTP-Method', 'X-Method-Override'];

/** The first character of a segment percent-encoded: "pets" as "%70ets", "7" as "%37". */
function encodeFirst(segment: string): string {
  const code = segment.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0');
  return `%${code}${segment.slice(1)}`;
}

/**
 * The spellings of GET `path` (a path of the contract under the base URL, such as /pets or
 * /pets/7, whose segments are plain ASCII): its last segment reached otherwise (after a dot
 * segment, a doubled slash, a segment and ..), spelled otherwise (its first character
 * percent-encoded, a `;` parameter, a trailing slash), the slash before it encoded when there is a
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

/**
 * A request URL split into what undici and the exchange log need (its origin, its path and query),
 * as the WHATWG URL parser splits it, without parsing the URL every time. Every request's URL was
 * parsed three or four times (to send it, to log it, to model it): about 2 % of the worker's time.
 *
 * The URLs the checks send are nearly all the base URL and a path of plain characters. For those the
 * parser changes nothing after the authority, so the split is the text itself, and the origin is
 * parsed once per scheme and authority. Anything else (a character the parser would encode, a dot
 * segment it would remove, a backslash it reads as a slash, a fragment, an empty query) goes through
 * `new URL` as before; test/harness/url.test.ts holds the two equal over generated URLs.
 */

export interface SplitUrl {
  /** "http://127.0.0.1:8080": as URL.origin. */
  readonly origin: string;
  /** "/v1/pets": as URL.pathname. */
  readonly pathname: string;
  /** "?limit=5", or "": as URL.search. */
  readonly search: string;
}

/** http(s)://authority, the authority of plain characters, then a path of characters URL leaves as they are. */
const PLAIN =
  /^(https?:\/\/[A-Za-z0-9.\-_~%!$&()*+,;=:@[\]]+)(\/[A-Za-z0-9.\-_~%!$&()*+,;=:@/]*)(\?[A-Za-z0-9.\-_~%!$&()*+,;=:@/?]+)?$/i;
/** A dot segment, which URL removes: ".", "..", and their percent-encoded forms. */
const DOT_SEGMENT = /\/(?:\.|%2e){1,2}(?=\/|$)/i;

const origins = new Map<string, string>();

export function splitUrl(url: string): SplitUrl {
  const plain = PLAIN.exec(url);
  if (plain === null || DOT_SEGMENT.test(plain[2]!)) return parsed(url);
  const authority = plain[1]!;
  let origin = origins.get(authority);
  if (origin === undefined) {
    origin = new URL(`${authority}/`).origin;
    if (origins.size < 64) origins.set(authority, origin);
  }
  return { origin, pathname: plain[2]!, search: plain[3] ?? '' };
}

/** "/v1/pets/7?limit=1": a URL without its scheme and host, as a message shows a request. */
export function pathAndQuery(url: string): string {
  const { pathname, search } = splitUrl(url);
  return `${pathname}${search}`;
}

/**
 * The paths of URLs under a base URL: of "http://h/v1/pets/12?x=1" under "http://h/v1", "/pets/12",
 * as sent (not decoded), without the query; undefined for a URL of another origin, one outside the
 * base's path, or one that does not parse.
 */
export function pathUnder(baseUrl: string): (url: string) => string | undefined {
  const base = splitUrl(baseUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  return (url) => {
    let split: SplitUrl;
    try {
      split = splitUrl(url);
    } catch {
      return undefined;
    }
    if (split.origin !== base.origin || !split.pathname.startsWith(`${prefix}/`)) return undefined;
    return split.pathname.slice(prefix.length);
  };
}

function parsed(url: string): SplitUrl {
  const { origin, pathname, search } = new URL(url);
  return { origin, pathname, search };
}

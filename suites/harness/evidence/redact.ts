/**
 * Secrets never leave the harness in clear, and nothing else is rewritten. A secret is masked by
 * where it goes and where it comes back, not by searching every text for it:
 *
 * - where the suite puts it, by position: the value of the key's header (and of Authorization,
 *   Proxy-Authorization, Cookie), the key's query parameter, a URL's userinfo (redactRequestHeaders,
 *   redactUrl). The rest of a request is the suite's own words (its path, its body, its other
 *   headers) and is shown as sent;
 * - where the server may carry it back, in every spelling createRedactor knows: the headers and
 *   bodies of its answers, a URL taken from an answer (a Location followed), the text of a transport
 *   error, and the texts a check writes about an answer (a failure's `received`, a note, a reason to
 *   skip), which may quote it (redact, redactBytes, redactResponseHeaders).
 *
 * Requirement ids, titles, a failure's `expected`, curl lines and the suite's request bodies are
 * never searched: with a key such as `wrong` or `required`, CREATE-WRONG-TYPE stays itself.
 *
 * One registry per worker: the client registers the configured API key, its near misses (keys.ts:
 * AUTH-WRONG-KEY-REFUSED sends them, and each holds most or half of the key) and the header or query
 * parameter that carries it as soon as it is created, so that a ConformanceError built anywhere later
 * is masked too.
 */

import { isUtf8 } from 'node:buffer';

export const MASK = '***';

/** Masks secrets in text that came from a server (or from an error that may quote one). */
export interface Redactor {
  /** The text with every secret, and every Authorization value, masked. */
  text(value: string): string;
  /** The same for bytes (a body that is not UTF-8 text). */
  bytes(value: Buffer): Buffer;
}

/**
 * Builds the redactor of a run's server texts. Each secret is masked in every spelling a server may
 * echo it in, mixed within one occurrence too (a JSON string with only its é escaped):
 *
 * - as is, and as the UTF-8 bytes of its non-ASCII characters read as Latin-1 ("Ã©", how a header
 *   sent in UTF-8 reads once decoded as HTTP's Latin-1), in text and in bytes;
 * - percent-encoded, upper- or lower-case hex, any character or all, form-encoded (space as +), and
 *   percent-encoded again (%25XX);
 * - JSON- or JavaScript-escaped: \" \\ \/, \uXXXX in either case (surrogate pairs beyond the BMP),
 *   the short escapes, and escaped again (a JSON string inside a JSON string);
 * - XML- or HTML-escaped: the five named entities, decimal and hex character references, and
 *   escaped again (&amp;quot;);
 * - inside a single-quoted shell word (' as '\'');
 * - base64 and base64url, of the secret wherever it sits in the encoded text (at each of the three
 *   byte alignments; a Basic credential "user:key" is masked whole): for secrets of 6 bytes or more,
 *   so that a short fragment of base64 cannot match by chance.
 *
 * Every repetition in the patterns is bounded, so that masking stays linear in the text's length
 * whatever a hostile server sends (a megabyte of backslashes).
 */
export function createRedactor(secrets: readonly (string | undefined)[]): Redactor {
  const list = [...new Set(secrets.filter((s): s is string => typeof s === 'string' && s !== ''))].sort(
    (a, b) => b.length - a.length,
  );
  if (list.length === 0) {
    return {
      text: maskAuthorization,
      bytes: (value) => maskAuthorizationBytes(value),
    };
  }
  // Longest first, so that a secret that contains another is masked whole.
  const textPattern = new RegExp(list.map((s) => spellingPattern(s, 'text')).join('|'), 'g');
  const bytesPattern = new RegExp(list.map((s) => spellingPattern(s, 'bytes')).join('|'), 'g');
  const cores = [...new Set(list.flatMap(base64Cores))].sort((a, b) => b.length - a.length);

  // Every spelling of a secret takes at least a code unit per character of it, and a base64 core is
  // itself that long: a shorter text (most header values, most URLs) holds none, and skips the search.
  const shortest = Math.min(...list.map((s) => [...s].length), ...cores.map((c) => c.length));
  const text = (value: string): string =>
    value.length < shortest
      ? maskAuthorization(value)
      : maskAuthorization(maskBase64(value.replace(textPattern, MASK), cores));
  return {
    text,
    bytes(value: Buffer): Buffer {
      // Latin-1 maps each byte to one character and back: the patterns match byte sequences.
      const before = value.toString('latin1');
      const after = maskBase64(before.replace(bytesPattern, MASK), cores);
      return maskAuthorizationBytes(after === before ? value : Buffer.from(after, 'latin1'));
    },
  };
}

/** Authorization values are masked in text form only when the bytes are valid UTF-8 text. */
function maskAuthorizationBytes(value: Buffer): Buffer {
  if (!isUtf8(value)) return value;
  const asText = value.toString('utf8');
  const masked = maskAuthorization(asText);
  return masked === asText ? value : Buffer.from(masked, 'utf8');
}

/** At most this many backslashes of escaping (a JSON string in a JSON string in a JSON string). */
const MAX_BACKSLASHES = 7;
/** At most this many re-encodings of % and & (%2525XX, &amp;amp;quot;). */
const MAX_REENCODED = 3;

const NAMED_ENTITIES: Record<string, string> = { '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": 'apos' };
const SHORT_ESCAPES: Record<string, string> = { '\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't' };

/**
 * A regular expression source matching `secret` in every spelling (see createRedactor): one group of
 * alternatives per character. In 'bytes' mode it matches the Latin-1 reading of the bytes.
 */
function spellingPattern(secret: string, mode: 'text' | 'bytes'): string {
  const backslashes = `\\\\{0,${MAX_BACKSLASHES}}`;
  const someBackslashes = `\\\\{1,${MAX_BACKSLASHES}}`;
  const amp = `&(?:amp;){0,${MAX_REENCODED}}`;
  return [...secret]
    .map((char) => {
      const code = char.codePointAt(0)!;
      const utf8 = Buffer.from(char, 'utf8');
      const latin1OfUtf8 = utf8.toString('latin1');
      // The character itself, as text or as bytes (UTF-8; Latin-1 when it has a byte of its own; the
      // UTF-8 bytes read as Latin-1 and written again as UTF-8), after any JSON escaping backslashes.
      const literals = new Set<string>(
        mode === 'text'
          ? [char, latin1OfUtf8]
          : [
              latin1OfUtf8,
              Buffer.from(latin1OfUtf8, 'utf8').toString('latin1'),
              ...(code <= 0xff ? [char] : []),
            ],
      );
      if (char === "'") literals.add("'\\''");
      const entities = [`${amp}#0{0,6}${code};`, `${amp}#[xX]0{0,6}${hexPattern(code.toString(16))};`];
      if (NAMED_ENTITIES[char] !== undefined) entities.push(`${amp}${NAMED_ENTITIES[char]};`);
      const alternatives = [
        // A backslash is itself, escaped any number of times (\\, \\\\).
        char === '\\'
          ? `${someBackslashes}|(?:${entities.join('|')})`
          : `${backslashes}(?:${[...[...literals].map(escapeRegExp), ...entities].join('|')})`,
        [...utf8]
          .map((byte) => `%(?:25){0,${MAX_REENCODED}}${hexPattern(byte.toString(16).padStart(2, '0'))}`)
          .join(''),
        utf16Units(char)
          .map((unit) => `${someBackslashes}u${hexPattern(unit.toString(16).padStart(4, '0'))}`)
          .join(''),
      ];
      if (char === ' ') alternatives.push('\\+');
      if (SHORT_ESCAPES[char] !== undefined) alternatives.push(`${someBackslashes}${SHORT_ESCAPES[char]}`);
      return `(?:${alternatives.join('|')})`;
    })
    .join('');
}

function utf16Units(char: string): number[] {
  return [...Array(char.length).keys()].map((i) => char.charCodeAt(i));
}

/** Hex digits matched in either case: "e9" → "[eE]9". */
function hexPattern(hex: string): string {
  return [...hex].map((d) => (/[a-f]/i.test(d) ? `[${d.toLowerCase()}${d.toUpperCase()}]` : d)).join('');
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/**
 * The base64 text that stands for the secret's bytes wherever they sit in a longer encoded text:
 * for each of the three alignments, the characters that depend on the secret's bytes alone (the
 * characters shared with its neighbours are left out). In base64 and base64url; of the UTF-8 bytes,
 * and of the Latin-1 ones when the secret has a byte per character.
 */
function base64Cores(secret: string): string[] {
  const encodings = [Buffer.from(secret, 'utf8')];
  if ([...secret].every((c) => c.codePointAt(0)! <= 0xff)) encodings.push(Buffer.from(secret, 'latin1'));
  const cores: string[] = [];
  for (const bytes of encodings) {
    if (bytes.length < 6) continue;
    for (let offset = 0; offset < 3; offset++) {
      const encoded = Buffer.concat([Buffer.alloc(offset), bytes])
        .toString('base64')
        .replace(/=+$/, '');
      const length = offset + bytes.length;
      const end = Math.floor(length / 3) * 4 + (length % 3);
      const core = encoded.slice(offset === 0 ? 0 : offset + 1, end);
      cores.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
    }
  }
  return [...new Set(cores)];
}

const BASE64_CHAR = /[A-Za-z0-9+/_-]/;

/** The text with each base64 token that holds a core masked whole (the token up to its padding). */
function maskBase64(text: string, cores: readonly string[]): string {
  let out = text;
  for (const core of cores) {
    let at = out.indexOf(core);
    while (at !== -1) {
      let start = at;
      while (start > 0 && BASE64_CHAR.test(out[start - 1]!)) start--;
      let end = at + core.length;
      while (end < out.length && BASE64_CHAR.test(out[end]!)) end++;
      while (end < out.length && out[end] === '=') end++;
      out = `${out.slice(0, start)}${MASK}${out.slice(end)}`;
      at = out.indexOf(core, start + MASK.length);
    }
  }
  return out;
}

const AUTHORIZATION = /authorization/i;

/**
 * Masks the value of an Authorization (or Proxy-Authorization) header wherever it appears: a raw
 * header line, a curl -H argument, a JSON property, an XML attribute.
 */
export function maskAuthorization(value: string): string {
  // Each pattern below holds "authorization": a text without it (nearly every one) is left as is at
  // the cost of one search rather than three.
  if (!AUTHORIZATION.test(value)) return value;
  return (
    value
      // "authorization": "Bearer x" and 'authorization': 'x' (JSON, JS object dumps)
      .replace(/((?:proxy-)?authorization["']?\s*[:=]\s*)(["'])((?:\\.|(?!\2)[^\\])*)\2/gi, `$1$2${MASK}$2`)
      // "authorization", "Bearer x" in header arrays
      .replace(/((["'])(?:proxy-)?authorization\2\s*,\s*)(["'])((?:\\.|(?!\3)[^\\])*)\3/gi, `$1$3${MASK}$3`)
      // Authorization: Bearer x   (header lines, curl -H 'Authorization: …', up to the quote or line end)
      .replace(/((?:proxy-)?authorization:[ \t]*)(?![ \t]*(?:["'\\]|\*\*\*))[^\r\n'"<&\\]*/gi, `$1${MASK}`)
  );
}

// ---------------------------------------------------------------- the harness's registry

const secrets = new Set<string>();
let registered: Redactor = createRedactor([]);
/**
 * Lower-cased header names whose values are always masked, whatever they hold: credentials, and the
 * cookies a server may hand out as sessions.
 */
const secretHeaders = new Set<string>(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);
const secretQueryParams = new Set<string>();

/** Registers a secret value: masked in every spelling createRedactor knows, in what a server sends. */
export function registerSecret(value: string | undefined): void {
  if (!value || secrets.has(value)) return;
  secrets.add(value);
  registered = createRedactor([...secrets]);
}

/** Registers a header whose value is masked wherever it is shown (the API key's carrier). */
export function registerSecretHeader(name: string): void {
  secretHeaders.add(name.toLowerCase());
}

/** Registers a query parameter whose value is masked in every URL shown (the API key's carrier). */
export function registerSecretQueryParam(name: string): void {
  secretQueryParams.add(name);
}

/**
 * Text that came from the server, or may quote it (an answer's body or header, a transport error, a
 * failure's `received`): every spelling of every registered secret, and every Authorization value,
 * replaced by ***. Not for the suite's own words, which it would rewrite where the key is a word.
 */
export function redact(text: string): string {
  return registered.text(text);
}

/** redact() for bytes that came from the server (a body that is not UTF-8 text). */
export function redactBytes(value: Buffer): Buffer {
  return registered.bytes(value);
}

/** Whether a header's value is masked. */
export function isSecretHeader(name: string): boolean {
  return secretHeaders.has(name.toLowerCase());
}

/**
 * The headers of a request as the suite sent them, the value of every secret header masked: the
 * key's header, Authorization, Cookie. The others are the suite's own and are shown as sent.
 */
export function redactRequestHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = isSecretHeader(name) ? MASK : value;
  return out;
}

/**
 * The headers of an answer: a secret header's value masked whole (Set-Cookie), and a secret the
 * server echoes in any other header masked in every spelling.
 */
export function redactResponseHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    out[name] = isSecretHeader(name) ? MASK : redact(value);
  return out;
}

/**
 * A URL with the secrets the suite put in it masked by position: the value of every secret query
 * parameter, and the userinfo (user:password@). Its path and its other parameters are the suite's
 * own. A URL taken from an answer (a Location the suite follows, `fromAnswer`) is the server's text
 * too: it is also masked in every spelling.
 */
export function redactUrl(url: string, fromAnswer = false): string {
  const masked = maskQuery(maskUserinfo(url));
  return fromAnswer ? redact(masked) : masked;
}

/** "http://user:pw@host/x" → "http://***@host/x"; a URL without userinfo as it is. */
function maskUserinfo(url: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url);
  if (scheme === null) return url;
  const rest = url.slice(scheme[0].length);
  const authorityEnd = rest.search(/[/?#]/);
  const authority = authorityEnd < 0 ? rest : rest.slice(0, authorityEnd);
  const at = authority.lastIndexOf('@');
  if (at < 0) return url;
  return `${scheme[0]}${MASK}${rest.slice(at)}`;
}

/** The value of every secret query parameter masked, wherever it stands in the query. */
function maskQuery(url: string): string {
  if (secretQueryParams.size === 0) return url;
  const q = url.indexOf('?');
  if (q < 0) return url;
  const hash = url.indexOf('#', q);
  const end = hash < 0 ? url.length : hash;
  const pairs = url
    .slice(q + 1, end)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {}
      return secretQueryParams.has(decoded) ? `${name}=${MASK}` : pair;
    });
  return `${url.slice(0, q)}?${pairs.join('&')}${url.slice(end)}`;
}

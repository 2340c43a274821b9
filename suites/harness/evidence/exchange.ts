import { STATUS_CODES } from 'node:http';
import { type BodyExcerpt, bodyExcerpt, bodyForReading, formatBytes } from './body.ts';
import {
  isSecretHeader,
  MASK,
  redact,
  redactRequestHeaders,
  redactResponseHeaders,
  redactUrl,
} from './redact.ts';

export { formatBytes };

/** How much of a body an exchange record keeps, and so an attachment shows. */
export const EXCERPT_BYTES = 4096;

/** One request and what came back, as shown in reports: secrets masked, bodies cut to an excerpt. */
export interface ExchangeRecord {
  readonly method: string;
  /** The key's query parameter masked (and, for a URL taken from an answer, any secret in it). */
  readonly url: string;
  /** As sent, the values of the secret headers masked (the key's, Authorization, Cookie). */
  readonly requestHeaders: Readonly<Record<string, string>>;
  /** Its first EXCERPT_BYTES, as the suite sent it (body.ts); absent without a body. */
  readonly requestBody?: BodyExcerpt;
  /** Absent when no response came (see error). */
  readonly status?: number;
  readonly responseHeaders?: Readonly<Record<string, string>>;
  /** Its first EXCERPT_BYTES, masked; its size is what was read (at most the client's cap). */
  readonly responseBody?: BodyExcerpt;
  /** The body was longer than the client's cap; reading stopped there. */
  readonly truncated?: boolean;
  /** What went wrong on the way, when no complete response came (timeout, reset, refused). */
  readonly error?: string;
  /** Refusals (429, 503) waited out before this one. */
  readonly retries?: number;
  readonly durationMs: number;
}

/** The request as sent, before masking (kept inside the harness; only masked forms leave it). */
export interface SentRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Uint8Array;
  /** A POSIX sh command that prints the body, for curl lines of bodies too long to paste. */
  readonly bodyCommand?: string;
  /** The URL was taken from an answer (a Location followed): the server's text, masked as such. */
  readonly urlFromAnswer?: boolean;
  /** The path was sent as written, not resolved as a URL (RequestOptions.asWritten). */
  readonly asWritten?: boolean;
  /** The request target in absolute or authority form, not a path (RequestOptions.target). */
  readonly target?: 'absolute' | 'authority';
  /**
   * Where the request carries a key (the configured one, a near miss of it, or a wrong one), and the
   * shell word that spells it in a curl line: `"$PETSTORE_API_KEY"`, an expression of it for a near
   * miss (keys.ts keyShellWord), a wrong key as it is. A curl line then sends the same key when it is
   * run, and holds no secret.
   */
  readonly keyAt?:
    | { readonly header: string; readonly prefix: string; readonly word: string }
    | { readonly query: string; readonly word: string };
}

/** The URL of a request as shown: the secrets the suite put in it masked, and any an answer put in it. */
export function shownUrl(req: Pick<SentRequest, 'url' | 'urlFromAnswer'>): string {
  return redactUrl(req.url, req.urlFromAnswer === true);
}

/** A single-quoted shell word. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A text of the server's, masked, then cut to at most `max` characters (with "…" when cut). */
export function clip(text: string, max: number, suffix = (length: number) => `… (${length} chars)`): string {
  return shorten(redact(text), max, suffix);
}

/** A text cut to at most `max` characters (with "…" when cut), as it is: for the suite's own words. */
export function shorten(
  text: string,
  max: number,
  suffix = (length: number) => `… (${length} chars)`,
): string {
  return text.length <= max ? text : `${text.slice(0, max)}${suffix(text.length)}`;
}

/** Bodies up to this size are written into a curl line; larger ones need a producing command. */
export const INLINE_BODY_BYTES = 16 * 1024;

/**
 * A ready-to-paste POSIX sh command that sends the request again with curl, secrets masked where
 * the suite put them (the key shows as ***, in its header or its query parameter), everything else
 * as sent: `curl -i` shows the status line and headers of the answer. Headers the client adds
 * by itself (host, content-length, connection) are left to curl. A body given by `bodyCommand` (a
 * POSIX command printing it) is piped in: `{ …; } | curl … --data-binary @-`.
 */
export function toCurl(req: SentRequest): string {
  const parts = [req.method === 'HEAD' ? 'curl -sS -I' : 'curl -i -sS'];
  // curl resolves dot segments (/./, /../) unless told otherwise: a path sent as written is re-sent so.
  if (req.asWritten) parts.push('--path-as-is');
  if (req.target) parts.push(`--request-target ${shellQuote(requestTarget(req))}`);
  if (req.method !== 'GET' && req.method !== 'HEAD') parts.push(`-X ${req.method}`);
  const keyAt = req.keyAt;
  for (const [name, value] of Object.entries(req.headers)) {
    // curl sends a User-Agent of its own; the suite's says nothing the answer depends on.
    if (name === 'user-agent') continue;
    if (keyAt !== undefined && 'header' in keyAt && keyAt.header === name)
      parts.push(`-H ${shellQuote(`${name}: ${keyAt.prefix}`)}${keyAt.word}`);
    else parts.push(`-H ${shellQuote(`${name}: ${isSecretHeader(name) ? MASK : value}`)}`);
  }
  let producer = '';
  let note = '';
  // curl asks a larger body to be let through first (Expect: 100-continue), and -i would then show
  // "HTTP/1.1 100 Continue" above the answer: send it straight, as the suite did.
  if (req.bodyCommand !== undefined || (req.body?.length ?? 0) > 1024)
    parts.push(`-H ${shellQuote('Expect:')}`);
  if (req.bodyCommand !== undefined) {
    producer = `${req.bodyCommand} | `;
    parts.push('--data-binary @-');
  } else if (req.body) {
    const text = Buffer.from(req.body).toString('utf8');
    if (req.body.length <= INLINE_BODY_BYTES) {
      parts.push(`--data-binary ${shellQuote(text)}`);
    } else {
      parts.push('--data-binary @body.json');
      note = `  # body.json: the ${req.body.length}-byte body sent, starting ${shellQuote(text.slice(0, 200))}`;
    }
  }
  parts.push(urlWord(req));
  return `${producer}${parts.join(' ')}${note}`;
}

/**
 * The request target a request in absolute or authority form was sent with: its URL as written
 * (masked as shownUrl masks it), or its host and port.
 */
function requestTarget(req: SentRequest): string {
  const url = shownUrl(req);
  if (req.target !== 'authority') return url;
  const start = url.indexOf('//') + 2;
  const end = url.indexOf('/', start);
  return url.slice(start, end < 0 ? undefined : end);
}

/** The URL as a shell word: the key's query parameter spelled by its shell word (SentRequest.keyAt). */
function urlWord(req: SentRequest): string {
  const url = shownUrl(req);
  const keyAt = req.keyAt;
  if (keyAt === undefined || !('query' in keyAt)) return shellQuote(url);
  const at = url.search(
    new RegExp(`[?&]${escapeRegExp(encodeURIComponent(keyAt.query))}=${escapeRegExp(MASK)}(?=&|#|$)`),
  );
  if (at < 0) return shellQuote(url);
  const end = at + 1 + encodeURIComponent(keyAt.query).length + 1;
  return `${shellQuote(url.slice(0, end))}${keyAt.word}${url.length > end + MASK.length ? shellQuote(url.slice(end + MASK.length)) : ''}`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The masked record of a request with its response, or with the error that stopped it. Its fields
 * are masked and cut when first read, not when the request ends: most records of a run are never
 * read (only a failing check's are shown), and masking and cutting every body was a tenth of a
 * worker's time. Reading any field (JSON.stringify, vitest's serialisation of an error, a structured
 * clone) makes the whole record, masked with every secret registered by then.
 */
export function recordExchange(req: SentRequest, res: ExchangeResult): ExchangeRecord {
  const record = {};
  pending.set(record, { req, res });
  // The fields the record has, known without masking anything; each one makes the record when read.
  // The getters are shared by every record (they find theirs through `pending`), so that records with
  // the same fields share V8's hidden class: a getter made per record made each one a dictionary.
  const fields: (keyof ExchangeRecord)[] = ['method', 'url', 'requestHeaders'];
  if (req.body) fields.push('requestBody');
  if (res.status !== undefined) fields.push('status');
  if (res.headers) fields.push('responseHeaders');
  if (res.body) fields.push('responseBody');
  if (res.truncated) fields.push('truncated');
  if (res.error) fields.push('error');
  if (res.retries) fields.push('retries');
  fields.push('durationMs');
  for (const field of fields) Object.defineProperty(record, field, FIELD_GETTERS[field]);
  Object.defineProperty(record, 'toJSON', MAKE);
  return record as ExchangeRecord;
}

/** What each record is made of, and its masked form once read. */
const pending = new WeakMap<object, { req: SentRequest; res: ExchangeResult; masked?: ExchangeRecord }>();

function made(record: object): ExchangeRecord {
  const entry = pending.get(record)!;
  entry.masked ??= maskedRecord(entry.req, entry.res);
  return entry.masked;
}

const RECORD_FIELDS = [
  'method',
  'url',
  'requestHeaders',
  'requestBody',
  'status',
  'responseHeaders',
  'responseBody',
  'truncated',
  'error',
  'retries',
  'durationMs',
] as const satisfies readonly (keyof ExchangeRecord)[];

const FIELD_GETTERS = Object.fromEntries(
  RECORD_FIELDS.map((field) => [
    field,
    {
      enumerable: true,
      get(this: object) {
        return made(this)[field];
      },
    },
  ]),
) as Record<keyof ExchangeRecord, PropertyDescriptor>;

const MAKE: PropertyDescriptor = {
  enumerable: false,
  value(this: object) {
    return made(this);
  },
};

/** What came back for an exchange record: a response, or the error that stopped it. */
export interface ExchangeResult {
  status?: number;
  headers?: Readonly<Record<string, string>>;
  body?: Uint8Array;
  truncated?: boolean;
  error?: string;
  retries?: number;
  durationMs: number;
  /**
   * The run sent the request again after this attempt: its answer refused it for now (429, 503), the
   * deployment did not take it (a connection refused, not made in time, or reset before any answer),
   * the server stopped reading its body, or its answer was spoiled by what the request before it on
   * the connection left (exchange-log.ts).
   */
  resent?: 'refused' | 'not-taken' | 'body-unread' | 'spoiled';
}

function maskedRecord(req: SentRequest, res: ExchangeResult): ExchangeRecord {
  return {
    method: req.method,
    url: shownUrl(req),
    requestHeaders: redactRequestHeaders(req.headers),
    ...(req.body ? { requestBody: bodyExcerpt(req.body, EXCERPT_BYTES, false) } : {}),
    ...(res.status !== undefined ? { status: res.status } : {}),
    ...(res.headers ? { responseHeaders: redactResponseHeaders(res.headers) } : {}),
    ...(res.body ? { responseBody: bodyExcerpt(res.body, EXCERPT_BYTES) } : {}),
    ...(res.truncated ? { truncated: true } : {}),
    ...(res.error ? { error: redact(res.error) } : {}),
    ...(res.retries ? { retries: res.retries } : {}),
    durationMs: Math.round(res.durationMs),
  };
}

/**
 * An exchange as text, as the reports show it: the request, then the response (formatRequest,
 * formatResponse).
 */
export function formatExchange(x: ExchangeRecord): string {
  return `${formatRequest(x)}\n\n${formatResponse(x)}`;
}

/** "GET /v1/pets?limit=101": the method and the URL without its scheme and host. */
export function requestTitle(x: ExchangeRecord): string {
  return `${x.method} ${x.url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '') || '/'}`;
}

/** "200 OK · 9031 bytes · 12 ms", or "no response · timeout after 5000 ms · after 5001 ms". */
export function responseTitle(x: ExchangeRecord): string {
  if (x.status === undefined) return `no response · ${x.error ?? 'unknown error'} · after ${x.durationMs} ms`;
  const parts = [statusLine(x.status)];
  if (x.responseBody !== undefined) parts.push(sizeOf(x.responseBody.size, x.truncated));
  parts.push(`${x.durationMs} ms`);
  return parts.join(' · ');
}

/** The request as sent: request line, headers, the body as it was sent (body.ts) and its size. */
export function formatRequest(x: ExchangeRecord): string {
  const lines = [`${x.method} ${x.url}`];
  for (const [k, v] of Object.entries(x.requestHeaders)) lines.push(`${k}: ${v}`);
  lines.push('');
  if (!x.requestBody?.size) lines.push('(no body)');
  else lines.push(bodyForReading(x.requestBody), '', `body: ${sizeOf(x.requestBody.size)}`);
  return lines.join('\n');
}

/** The response as received: status line, headers, the body as it came (body.ts) and its size; or why none came. */
export function formatResponse(x: ExchangeRecord): string {
  if (x.status === undefined) {
    return `(no response: ${x.error ?? 'unknown error'}) after ${x.durationMs} ms`;
  }
  const lines = [
    `HTTP ${statusLine(x.status)}  (${x.durationMs} ms${x.retries ? `, after ${x.retries} 429 retries` : ''})`,
  ];
  for (const [k, v] of Object.entries(x.responseHeaders ?? {})) lines.push(`${k}: ${v}`);
  lines.push('');
  if (!x.responseBody?.size) lines.push('(no body)');
  else
    lines.push(
      bodyForReading(x.responseBody, x.truncated),
      '',
      `body: ${sizeOf(x.responseBody.size, x.truncated)}`,
    );
  if (x.error) lines.push(`then: ${x.error}`);
  return lines.join('\n');
}

function statusLine(status: number): string {
  const reason = STATUS_CODES[status];
  return reason ? `${status} ${reason}` : String(status);
}

/** "57 bytes", "9050 bytes (8.8 KiB)", and ", reading stopped at the size cap" when it did. */
function sizeOf(bytes: number, truncated?: boolean): string {
  const size = bytes < 1024 ? `${bytes} bytes` : `${bytes} bytes (${kib(bytes)})`;
  return truncated ? `${size}, reading stopped at the size cap` : size;
}

function kib(bytes: number): string {
  return bytes >= 1024 * 1024
    ? `${(bytes / 1024 / 1024).toFixed(1)} MiB`
    : `${(bytes / 1024).toFixed(1)} KiB`;
}

/**
 * How requests reach the target: the undici dispatcher built from Config.network (proxies and TLS),
 * shared by the suites' client and the command's reachability check so that both go the same way,
 * and the sentence that says why a connection could not be made.
 *
 * Proxies are undici's own EnvHttpProxyAgent, given the settings the command resolved from
 * --proxy, HTTP_PROXY, HTTPS_PROXY and NO_PROXY (either case): nothing here reads the environment,
 * and nothing here speaks the proxy protocol itself. TLS settings go into the connector of direct
 * connections (`connect`) and of connections tunnelled through a proxy (`requestTls`); an https://
 * proxy is trusted the same way (`proxyTls`).
 */
import { createRequire } from 'node:module';
import type { Duplex } from 'node:stream';
import * as tls from 'node:tls';
import type { Dispatcher } from 'undici';
import type { Network, TlsSettings } from '../config/config.ts';
import { type SplitUrl, splitUrl } from '../evidence/url.ts';
import { connected, type PriorRequest, trackingFactory } from './connections.ts';

// undici is loaded when a dispatcher is made, not with this module: the command imports this module
// at its start for proxySecrets(), and a run against the bundled reference never makes one there.
// It is loaded through its package's entry (its `main`), as its documentation imports it.

const require = createRequire(import.meta.url);

let undici: typeof import('undici') | undefined;

/** undici, loaded once on first use: a run that sends nothing never loads it. */
function undiciIndex(): typeof import('undici') {
  undici ??= require('undici') as typeof import('undici');
  return undici;
}

/** One request to send: undici's dispatch options, less what the URL gives (origin, path). */
export interface AttemptOptions {
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Uint8Array | undefined;
  readonly headersTimeout: number;
  readonly bodyTimeout: number;
  /** Bytes of the body read at most: past them, the attempt ends (truncated) and the rest is not read. */
  readonly maxBodyBytes: number;
  /** The URL's path and query are sent as written, not resolved by the URL parser (dot segments kept). */
  readonly asWritten?: boolean;
  /**
   * The request target in another form than a path (RFC 9112 §3.2): `absolute`, the whole URL
   * (`GET http://host/v1/pets`, which a server MUST accept, §3.2.2); `authority`, the URL's host and
   * port alone, as CONNECT sends it (§3.2.3). undici's dispatch sends a `path` as given.
   */
  readonly target?: 'absolute' | 'authority';
  /** What the request after this one on its connection is told of it (PriorRequest.tag). */
  readonly tag?: unknown;
  /**
   * Told when the request has a connection, `ms` after it was dispatched: false lets the connection
   * go before the request is written on it (the attempt fails with the reason NotWritten).
   */
  readonly onConnection?: (ms: number) => boolean;
  /**
   * The body's first bytes, then a pause until the answer is complete or `ms` have passed, then the
   * rest: a server that answers before it reads a large body (413, 401, 429) and closes is read
   * before the connection breaks under the body still being written.
   */
  readonly pauseBody?: { readonly afterBytes: number; readonly ms: number };
}

/**
 * Bodies this large are written a piece at a time, so that the attempt knows whether the server took
 * all of it before the connection broke (Attempt.bodyWritten): a small body goes out with the headers.
 */
export const LARGE_BODY_BYTES = 64 * 1024;
const BODY_PIECE_BYTES = 64 * 1024;

/** Why an attempt ended before it was written on its connection (AttemptOptions.onConnection). */
export class NotWritten extends Error {
  constructor() {
    super('the connection came too late: the request was not written on it');
    this.name = 'NotWritten';
  }
}

/**
 * One request sent through a dispatcher with undici's own handler interface (Dispatcher.dispatch,
 * onRequestStart … onResponseEnd), the body gathered as it comes. undici's request() does the same
 * with a Readable stream for the body, an AsyncResource and a listener on an AbortSignal per request:
 * a third of a run's requests' cost in the worker, for a body the client reads whole anyway.
 *
 * `done` settles once: resolved when the body is read (or cut at maxBodyBytes), rejected with undici's
 * error, or with the reason given to abort(), at once, whether or not undici has sent the request yet.
 * What came before an error stays readable (status, headers, the bytes of body read).
 */
export class Attempt {
  /** The status line's code, once the (final, non-1xx) headers came. */
  status: number | undefined;
  /** Lower-case names, repeated headers joined with ", "; once the headers came. */
  headers: Record<string, string> | undefined;
  /** performance.now() when the headers came. */
  headersAt: number | undefined;
  /** Bytes of body read so far (at most maxBodyBytes). */
  size = 0;
  /** The body was longer than maxBodyBytes: reading stopped there. */
  truncated = false;
  readonly done: Promise<void>;
  /** The reason abort() was called with, when it was. */
  abortReason: unknown;
  /**
   * performance.now() when the request had a connection to be written on (undici's onRequestStart:
   * "before request is dispatched on socket"); undefined while it had none, and when it never had.
   */
  connectedAt: number | undefined;
  /** The whole body was handed to the connection (a request without one: once it had a connection). */
  bodyWritten = false;
  /**
   * The request written before this one on its connection, when the pool knows it (connections.ts):
   * direct connections, not those through a proxy.
   */
  prior: PriorRequest | undefined;
  /** This request as the one after it on its connection is told of it (connections.ts). */
  private readonly written: PriorRequest;
  /** What it was dispatched with: the connections' tracking knows its client by this object. */
  private readonly dispatchOptions: Dispatcher.DispatchOptions;
  private readonly dispatchedAt = performance.now();
  /** Ends the pause of a paused body (AttemptOptions.pauseBody). */
  private endPause: (() => void) | undefined;
  private readonly chunks: Buffer[] = [];
  private controller: Dispatcher.DispatchController | undefined;
  /** The connection of a CONNECT's answer, once undici handed it over (upgraded). */
  private upgradedSocket: Duplex | undefined;
  private settled = false;
  private resolve!: () => void;
  private reject!: (error: unknown) => void;

  constructor(
    dispatcher: Dispatcher,
    url: string,
    private readonly options: AttemptOptions,
  ) {
    this.done = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    const { origin, pathname, search } = options.asWritten ? splitAsWritten(url) : splitUrl(url);
    const path =
      options.target === 'authority'
        ? new URL(origin).host
        : `${options.target === 'absolute' ? origin : ''}${pathname}${search}`;
    this.written = {
      method: options.method,
      hadBody: options.body !== undefined,
      ...(options.tag === undefined ? {} : { tag: options.tag }),
    };
    const body = options.body;
    const pieces = body !== undefined && (body.length >= LARGE_BODY_BYTES || options.pauseBody);
    this.dispatchOptions = {
      origin,
      path,
      method: options.method as Dispatcher.HttpMethod,
      // A body written a piece at a time declares its length, as the whole one does.
      headers: pieces ? { ...options.headers, 'content-length': String(body.length) } : options.headers,
      // An AsyncIterable body, as Dispatcher.dispatch documents it (its types list a Readable only).
      body: pieces ? (this.pieces(body) as unknown as Dispatcher.DispatchOptions['body']) : (body ?? null),
      headersTimeout: options.headersTimeout,
      bodyTimeout: options.bodyTimeout,
    };
    try {
      dispatcher.dispatch(this.dispatchOptions, this.handler());
    } catch (error) {
      this.fail(error);
    }
  }

  /** The body read so far. */
  get body(): Buffer {
    return Buffer.concat(this.chunks, this.size);
  }

  /**
   * The body a piece at a time, `bodyWritten` once the last one is handed over; with pauseBody, its
   * first bytes, then a pause. Nothing more once the attempt is settled (its answer complete).
   */
  private async *pieces(body: Uint8Array): AsyncGenerator<Uint8Array> {
    let at = 0;
    const pause = this.options.pauseBody;
    if (pause) {
      at = Math.min(body.length, pause.afterBytes);
      yield body.subarray(0, at);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pause.ms);
        this.endPause = () => {
          clearTimeout(timer);
          resolve();
        };
        if (this.settled) this.endPause();
      });
    }
    for (; at < body.length && !this.settled; at += BODY_PIECE_BYTES)
      yield body.subarray(at, Math.min(body.length, at + BODY_PIECE_BYTES));
    if (at >= body.length) this.bodyWritten = true;
  }

  /** Ends the attempt: `done` rejects with `reason`, and undici closes the request (its connection too when under way). */
  abort(reason: unknown): void {
    if (this.settled) return;
    this.abortReason = reason;
    this.fail(reason);
    this.controller?.abort(reason as Error);
    this.upgradedSocket?.destroy();
  }

  private fail(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.endPause?.();
    this.reject(error);
  }

  private succeed(): void {
    if (this.settled) return;
    this.settled = true;
    this.endPause?.();
    this.resolve();
  }

  private handler(): Dispatcher.DispatchHandler {
    return {
      onRequestStart: (controller) => {
        this.controller = controller;
        if (this.settled) return controller.abort(this.abortReason as Error);
        // Aborted here, the request is never written on the connection (undici writes after this).
        if (this.options.onConnection?.(performance.now() - this.dispatchedAt) === false)
          return this.abort(new NotWritten());
        this.connectedAt = performance.now();
        this.prior = connected(this.dispatchOptions, this.written);
        if (this.options.body === undefined || this.options.body.length < LARGE_BODY_BYTES)
          this.bodyWritten = !this.options.pauseBody;
      },
      onResponseStart: (_controller, status, headers) => {
        // 1xx answers are interim: the final one follows (undici's request() skips them too).
        if (status < 200 || this.settled) return;
        this.headersAt = performance.now();
        this.status = status;
        this.written.status = status;
        this.headers = flattenHeaders(headers);
      },
      onResponseData: (controller, chunk) => {
        if (this.settled) return;
        const room = this.options.maxBodyBytes - this.size;
        if (chunk.length > room) {
          this.chunks.push(chunk.subarray(0, room));
          this.size += room;
          this.truncated = true;
          this.succeed();
          controller.abort(new Error('body cut at the read cap')); // the rest is never read
          return;
        }
        this.chunks.push(chunk);
        this.size += chunk.length;
      },
      onResponseEnd: () => this.succeed(),
      onResponseError: (_controller, error) => this.fail(error),
      onRequestUpgrade: (_controller, status, headers, socket) => this.upgraded(status, headers, socket),
    };
  }

  /**
   * The answer to a CONNECT, which undici hands over with its connection (a 2xx opens a tunnel). A
   * 2xx has no body (RFC 9110 §9.3.6), and the connection is closed at once; any other answer's body
   * is read as its Content-Length says, or until the server closes, up to maxBodyBytes.
   */
  private upgraded(status: number, headers: Record<string, string | string[] | undefined>, socket: Duplex) {
    this.headersAt = performance.now();
    this.status = status;
    this.headers = flattenHeaders(headers);
    this.upgradedSocket = socket;
    const declared = Number.parseInt(this.headers['content-length'] ?? '', 10);
    const most = this.options.maxBodyBytes;
    const want =
      status >= 200 && status <= 299 ? 0 : Number.isNaN(declared) ? most : Math.min(declared, most);
    const end = () => {
      socket.destroy();
      this.succeed();
    };
    if (want === 0) return end();
    socket.on('data', (chunk: Buffer) => {
      if (this.settled) return;
      const part = chunk.subarray(0, want - this.size);
      this.chunks.push(part);
      this.size += part.length;
      if (this.size >= want) end();
    });
    socket.on('end', end);
    socket.on('error', (error) => {
      socket.destroy();
      this.fail(error);
    });
  }
}

/**
 * A URL split where its path begins, the path and query left as written: the URL parser would
 * remove dot segments (also percent-encoded ones) and re-encode characters. undici sends a path as
 * it is given (test/harness/client.test.ts checks on the wire).
 */
function splitAsWritten(url: string): SplitUrl {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start < 0) return splitUrl(url);
  const rest = url.slice(start);
  const q = rest.indexOf('?');
  return {
    origin: new URL(url).origin,
    pathname: q < 0 ? rest : rest.slice(0, q),
    search: q < 0 ? '' : rest.slice(q),
  };
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k in raw) {
    const v = raw[k];
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

/** Connection-pool options of the dispatcher (undici Agent options). */
export interface PoolOptions {
  readonly connections?: number;
  readonly pipelining?: number;
  readonly keepAliveTimeout?: number;
  readonly keepAliveMaxTimeout?: number;
  /** Limit for the TCP and TLS handshakes (undici's default: 10 s). */
  readonly connectTimeoutMs?: number;
}

/** A dispatcher that reaches targets as `network` says: directly or through a proxy, with its TLS settings. */
export function createDispatcher(network: Network | undefined, pool: PoolOptions = {}): Dispatcher {
  const { connectTimeoutMs, ...agentOptions } = pool;
  const timeout = connectTimeoutMs === undefined ? {} : { timeout: connectTimeoutMs };
  const tlsOptions = { ...tlsConnectOptions(network?.tls), ...timeout };
  const proxy = network?.proxy;
  if (!proxy || (proxy.http === '' && proxy.https === '')) {
    const undici = undiciIndex();
    return new undici.Agent({ ...agentOptions, connect: tlsOptions, factory: trackingFactory(undici) });
  }
  // The proxy's own certificate is checked against the same trust (a CA given with --ca-cert, or
  // none with --insecure); a client certificate is for the target only.
  const { cert: _cert, key: _key, ...proxyTls } = tlsOptions;
  return new (undiciIndex().EnvHttpProxyAgent)({
    ...agentOptions,
    httpProxy: proxy.http,
    httpsProxy: proxy.https,
    noProxy: proxy.noProxy,
    connect: tlsOptions,
    requestTls: tlsOptions,
    proxyTls,
  });
}

/** The options of tls.connect() that TlsSettings ask for; none for Node's defaults. */
export function tlsConnectOptions(settings: TlsSettings | undefined): tls.ConnectionOptions {
  if (!settings) return {};
  return {
    // `ca` replaces Node's list: the defaults are listed again, so that --ca-cert adds a CA.
    ...(settings.ca === undefined ? {} : { ca: [...defaultCertificates(settings.extraCa), settings.ca] }),
    ...(settings.cert === undefined ? {} : { cert: settings.cert }),
    ...(settings.key === undefined ? {} : { key: settings.key }),
    ...(settings.insecure ? { rejectUnauthorized: false } : {}),
  };
}

/**
 * The certificates Node trusts by default: its bundled list, plus NODE_EXTRA_CA_CERTS. Node 22.15
 * and later list them itself (and the system store under --use-system-ca); Node 20 lists only the
 * bundled ones, so the extra file's text is added as the command read it.
 */
function defaultCertificates(extraCa: string | undefined): string[] {
  const list = (tls as { getCACertificates?: (type: string) => string[] }).getCACertificates;
  if (typeof list === 'function') return list('default');
  return [...tls.rootCertificates, ...(extraCa === undefined ? [] : [extraCa])];
}

/**
 * The secrets of the network settings, for the redactors: the password of a proxy URL
 * (http://user:password@proxy:3128), as written and decoded.
 */
export function proxySecrets(network: Network | undefined): string[] {
  const out = new Set<string>();
  for (const raw of [network?.proxy?.http, network?.proxy?.https]) {
    if (!raw) continue;
    let password = '';
    try {
      password = new URL(raw).password;
    } catch {
      continue;
    }
    if (password === '') continue;
    out.add(password);
    try {
      out.add(decodeURIComponent(password));
    } catch {}
  }
  return [...out];
}

/** Why a connection to the target could not be made, in words: what failed and how to fix it. */
export interface ConnectionFailure {
  /**
   * untrusted: the target's certificate is not trusted (or not valid for its name, or expired);
   * client-certificate: mutual TLS failed; not-tls: an https:// URL at a server that does not speak
   * TLS; unreachable: no connection at all (refused, unknown host, no route, the proxy refused).
   */
  readonly kind: 'untrusted' | 'client-certificate' | 'not-tls' | 'unreachable';
  /** One line, no secret in it. */
  readonly message: string;
}

const UNTRUSTED: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'it is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its chain ends in a self-signed CA this machine does not trust',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'it is issued by a CA this machine does not trust',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'it is issued by a CA this machine does not trust',
  UNABLE_TO_GET_ISSUER_CERT: 'its issuer is unknown',
  CERT_UNTRUSTED: 'it is not trusted',
  CERT_SIGNATURE_FAILURE: 'its signature does not verify',
  CERT_REVOKED: 'it is revoked',
  CERT_REJECTED: 'it is rejected',
  INVALID_CA: 'its issuer is not a valid CA',
  INVALID_PURPOSE: 'it is not meant for a TLS server',
  CERT_CHAIN_TOO_LONG: 'its chain is too long',
  PATH_LENGTH_EXCEEDED: 'its chain is too long',
};
const EXPIRED: Record<string, string> = {
  CERT_HAS_EXPIRED: 'it has expired',
  CERT_NOT_YET_VALID: 'it is not valid yet',
};
const HOST_NAME = new Set(['ERR_TLS_CERT_ALTNAME_INVALID', 'HOSTNAME_MISMATCH']);
/** TLS alerts a server sends when it wants a client certificate, or refuses the one it got. */
const CLIENT_CERTIFICATE = new Set([
  'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED',
  'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE',
  'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE',
  'ERR_SSL_SSLV3_ALERT_CERTIFICATE_UNKNOWN',
  'ERR_SSL_SSLV3_ALERT_CERTIFICATE_EXPIRED',
  'ERR_SSL_SSLV3_ALERT_CERTIFICATE_REVOKED',
  'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA',
  'ERR_SSL_TLSV1_ALERT_ACCESS_DENIED',
]);
const NOT_TLS = new Set(['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG']);
const UNREACHABLE: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name not found',
  EHOSTUNREACH: 'no route to host',
  ENETUNREACH: 'no route to host',
  EHOSTDOWN: 'host is down',
  EADDRNOTAVAIL: 'address not available',
  UND_ERR_CONNECT_TIMEOUT: 'no connection within the time limit',
  ETIMEDOUT: 'no connection within the time limit',
};

const TRUST_FIX =
  'trust its CA with --ca-cert <pem> or NODE_EXTRA_CA_CERTS=<pem>, or skip the check with --insecure';

/**
 * Why an error of a request means the target could not be reached at all, or undefined when the
 * connection was made and the server misbehaved (reset, garbage, silence): that is for the suite
 * to judge. `target` is the URL asked for; `network` says whether a proxy was in the way.
 */
export function connectionFailure(
  error: unknown,
  target: URL,
  network?: Network,
): ConnectionFailure | undefined {
  const host = target.host;
  const proxy = proxyOf(target, network);
  for (const err of causes(error)) {
    const code = err.code ?? '';
    if (code === 'UND_ERR_PRX_TLS') {
      return {
        kind: 'untrusted',
        message: `the certificate of the proxy ${proxy?.shown ?? ''} is not valid for its name (${code}); ${TRUST_FIX}`,
      };
    }
    if (UNTRUSTED[code] !== undefined) {
      return {
        kind: 'untrusted',
        message: `the certificate of ${host} is not trusted: ${UNTRUSTED[code]} (${code}); ${TRUST_FIX}`,
      };
    }
    if (EXPIRED[code] !== undefined) {
      return {
        kind: 'untrusted',
        message: `the certificate of ${host} is not trusted: ${EXPIRED[code]} (${code}); renew it, or skip the check with --insecure`,
      };
    }
    if (HOST_NAME.has(code)) {
      const reason = typeof err.reason === 'string' ? `: ${err.reason.replace(/[.:\s]+$/, '')}` : '';
      return {
        kind: 'untrusted',
        message: `the certificate of ${host} is not valid for the name ${target.hostname}${reason} (${code}); use a name the certificate holds in the base URL, or skip the check with --insecure`,
      };
    }
    if (CLIENT_CERTIFICATE.has(code)) {
      return {
        kind: 'client-certificate',
        message: network?.tls?.cert
          ? `${host} refused the client certificate given with --client-cert (${code}): the server does not trust its issuer, or it has expired`
          : `${host} asks for a client certificate (mutual TLS) and refused the connection without one (${code}); give --client-cert <pem> and --client-key <pem>`,
      };
    }
    if (NOT_TLS.has(code)) {
      return {
        kind: 'not-tls',
        message: `${host} does not answer in TLS (${code}): is the base URL meant to start with http://?`,
      };
    }
    const proxyStatus = /^Proxy response \((\d+)\)/.exec(err.message ?? '');
    if (proxyStatus) {
      const status = Number(proxyStatus[1]);
      const why =
        status === 407
          ? 'asks for credentials (407): give them in the proxy URL, http://user:password@host:port'
          : `answered ${status} when asked to connect to ${host}`;
      return {
        kind: 'unreachable',
        message: `target unreachable: ${host}: the proxy ${proxy?.shown} ${why}`,
      };
    }
    if (/Proxy Authentication Required/.test(err.message ?? '')) {
      return {
        kind: 'unreachable',
        message: `target unreachable: ${host}: the proxy ${proxy?.shown} asks for credentials (407): give them in the proxy URL, http://user:password@host:port`,
      };
    }
    if (UNREACHABLE[code] !== undefined) {
      const atProxy = proxy !== undefined && err.port !== undefined && String(err.port) === proxy.port;
      return {
        kind: 'unreachable',
        message: atProxy
          ? `target unreachable: ${host}: the proxy ${proxy.shown}: ${UNREACHABLE[code]} (is the proxy running?)`
          : `target unreachable: ${host}: ${UNREACHABLE[code]} (is the server running at ${target.origin}${target.pathname.replace(/\/+$/, '')}?)`,
      };
    }
  }
  return undefined;
}

interface ErrorLike {
  code?: string;
  message?: string;
  reason?: unknown;
  port?: number | string;
  cause?: unknown;
}

/** The error and the errors it wraps (undici wraps some connection errors in others). */
function causes(error: unknown): ErrorLike[] {
  const out: ErrorLike[] = [];
  let current: unknown = error;
  while (current && typeof current === 'object' && out.length < 5) {
    out.push(current as ErrorLike);
    current = (current as ErrorLike).cause;
  }
  return out;
}

/**
 * The proxy the settings name for `target`'s scheme, shown without credentials, or undefined when
 * there is none. Only to word a message about an error that came from a proxy (a CONNECT refused, a
 * refused connection to the proxy's port): whether NO_PROXY bypassed it is undici's business.
 */
function proxyOf(target: URL, network: Network | undefined): { shown: string; port: string } | undefined {
  const settings = network?.proxy;
  if (!settings) return undefined;
  const raw = target.protocol === 'https:' ? settings.https : settings.http;
  if (raw === '') return undefined;
  try {
    const url = new URL(raw);
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    return { shown: `${url.protocol}//${url.host} (${settings.from})`, port };
  } catch {
    return { shown: `(${settings.from})`, port: '' };
  }
}

import { randomBytes } from 'node:crypto';
import type { Dispatcher } from 'undici';
import type { Config, Network } from '../config/config.ts';
import { BrokenMessage, ConformanceError, HTTP_MESSAGE_ID, RateLimited } from '../evidence/errors.ts';
import {
  type ExchangeRecord,
  formatBytes,
  recordExchange,
  type SentRequest,
  shellQuote,
  shownUrl,
  toCurl,
} from '../evidence/exchange.ts';
import type { ExchangeSink } from '../evidence/exchange-log.ts';
import type { Finding } from '../evidence/finding.ts';
import { stringifyExact } from '../evidence/json.ts';
import { keySecrets, keyShellWord, type NearMiss, nearMissKey } from '../evidence/keys.ts';
import {
  isSecretHeader,
  redact,
  registerSecret,
  registerSecretHeader,
  registerSecretQueryParam,
} from '../evidence/redact.ts';
import { reproducer } from '../evidence/reproduce.ts';
import { Attempt, createDispatcher, proxySecrets } from './network.ts';
import {
  type Admission,
  DEFAULT_CONCURRENCY,
  isRefusal,
  type Pace,
  PaceGivenUp,
  rateLimitPatienceMs,
  retryAfterMs,
  runPace,
} from './pace.ts';
import { backoffMs, isSafeMethod, type RetriedRequest } from './retry.ts';
import { traceHeaders } from './trace.ts';

/** Bytes of a response body read at most; the rest is not read (a 50 MB answer costs 1 MiB). */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * 503s with Retry-After in a row that make a 503 one request's answer (ANY-NO-5XX's to judge) rather
 * than the deployment shedding load: each while other requests were answered and none refused.
 */
export const SINGLED_OUT_503 = 3;
/** 5xx answers a client keeps as evidence for ANY-NO-5XX (the first ones; later ones are only counted). */
export const MAX_SERVER_ERRORS_KEPT = 3;
/**
 * What the client tells the run's model (model/model.ts) of each request: `watch` as it is sent (a
 * write sent `alone` waits for `admitted`), `settle` when it is answered, or not, returning what the
 * answer breaks of the model's rules. The client knows the model only by this.
 */
export interface ExchangeWatcher<
  W extends { readonly admitted: Promise<void> } = { readonly admitted: Promise<void> },
> {
  watch(sent: SentRequest, alone?: boolean, foreign?: boolean): W;
  settle(watch: W, status: number | undefined, body?: Buffer, text?: string): Finding[];
}

/** Findings a client keeps per requirement (the first ones): evidence enough, and a bounded report. */
export const MAX_FINDINGS_KEPT = 3;
/** Answers over --max-response-time a client keeps as evidence for ANY-RESPONSE-TIME (the rest are counted). */
export const MAX_SLOW_ANSWERS_KEPT = 3;

/** An answer that took longer than config.maxResponseTimeMs: evidence for ANY-RESPONSE-TIME. */
export interface SlowAnswer {
  readonly method: string;
  /** Masked. */
  readonly url: string;
  readonly status: number;
  /** From the request sent to the last byte of the body read. */
  readonly ms: number;
  /** The budget it exceeded (config.maxResponseTimeMs). */
  readonly budgetMs: number;
  /** A curl command that sends the request again, secrets masked. */
  readonly reproduce: string;
}

/** A 5xx answer a check received: evidence for ANY-NO-5XX, whichever requirement was being checked. */
export interface ServerErrorSeen {
  readonly method: string;
  /** Masked. */
  readonly url: string;
  readonly status: number;
  /** A curl command that sends the request again, secrets masked. */
  readonly reproduce: string;
}

/**
 * One keep-alive connection pool per worker and network setting (a run has one), shared by every
 * client of every test file the worker runs (module instances differ between isolated files;
 * globalThis does not). It goes through the proxy and uses the TLS settings of config.network.
 */
function sharedDispatcher(network: Network | undefined, connections: number): Dispatcher {
  const key = Symbol.for('petstore-conformance.dispatchers');
  const holder = globalThis as { [key]?: Map<string, Dispatcher> };
  holder[key] ??= new Map();
  const pools = holder[key];
  const id = JSON.stringify({ network, connections });
  let dispatcher = pools.get(id);
  if (dispatcher === undefined) {
    dispatcher = createDispatcher(network, {
      connections,
      pipelining: 1,
      keepAliveTimeout: 4_000,
      keepAliveMaxTimeout: 10_000,
    });
    pools.set(id, dispatcher);
  }
  return dispatcher;
}

export type QueryValue = string | number | bigint | boolean;

export interface RequestOptions {
  /** Query parameters, in order; values are sent as given (an empty string gives `?limit=`). */
  readonly query?: Readonly<Record<string, QueryValue>>;
  readonly headers?: Readonly<Record<string, string>>;
  /** A body serialised as JSON (bigints as exact integers); sets Content-Type: application/json. */
  readonly json?: unknown;
  /** A raw body, sent as is (set Content-Type yourself). */
  readonly body?: string | Uint8Array;
  /**
   * The API key: as configured (default), left out, replaced by a wrong one unlike it, or by a near
   * miss of it (keys.ts; one the configured key has: a check asks nearMissKey() first). `wrong-twice`:
   * the key's header field sent in two lines, each a wrong key (a key in a query parameter: once).
   */
  readonly auth?: 'config' | 'none' | 'wrong' | 'wrong-twice' | { readonly nearMiss: NearMiss };
  /** A POSIX sh command that prints the body, for curl lines of bodies too long to paste. */
  readonly bodyCommand?: string;
  /**
   * A create that must have the server to itself: sent when no other write of the run is in
   * flight, and holding the others back until it is answered (see model.ts). Without a model, no effect.
   */
  readonly alone?: boolean;
  /**
   * The path sent exactly as written: not resolved as a URL, so that dot segments, doubled slashes
   * and percent-encodings reach the server as they are (a check of how a server reads other spellings
   * of a path). The curl line then says --path-as-is.
   */
  readonly asWritten?: boolean;
  /**
   * The request target in absolute form (the whole URL, RFC 9112 §3.2.2) or, for CONNECT, in
   * authority form (host and port, §3.2.3) rather than as a path. The curl line says --request-target.
   */
  readonly target?: 'absolute' | 'authority';
  /**
   * A 501 to this request is HTTP's own answer, not a server error: a method the server does not
   * recognise or implement (RFC 9110 §9.1 asks for 501 then). It is not kept for ANY-NO-5XX.
   */
  readonly mayBeUnimplemented?: boolean;
}

/** A complete response (or one whose body was cut at the cap), with the request that got it. */
export interface ApiResponse {
  readonly request: SentRequest;
  readonly status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  /** At most MAX_BODY_BYTES bytes. */
  readonly body: Buffer;
  readonly text: string;
  /** The body was longer than the cap; reading stopped there. */
  readonly truncated: boolean;
  /** Answers that refused it for the rate (429, or 503 with Retry-After) before this one. */
  readonly retries: number;
  /** Attempts that got no answer at all and were sent again (--retries). */
  readonly transportRetries: number;
  /** The answer's own time: from this attempt sent to the last byte of its body (no retry, no wait for the pace). */
  readonly answerMs: number;
  /** When the answered attempt was sent (performance.now()): with answerMs, when it was in flight. */
  readonly sentAt: number;
  /** How long it waited for the run's pace before its attempts were sent (the deployment's rate limit). */
  readonly pacedMs: number;
  readonly durationMs: number;
  /** The masked record of this exchange. */
  readonly exchange: ExchangeRecord;
  /** A curl command that sends the request again, secrets masked. */
  readonly reproduce: string;
  /** What the run's model found wrong with this answer (see model.ts); [] without a model. */
  readonly findings: readonly Finding[];
}

export interface ClientOptions {
  /** Aborts every request in flight (e.g. the test's signal, aborted when the test times out). */
  readonly signal?: AbortSignal;
  /** Overrides config.timeoutMs (tests of the harness). */
  readonly timeoutMs?: number;
  /** Overrides MAX_BODY_BYTES (tests of the harness). */
  readonly maxBodyBytes?: number;
  /** Where every exchange is also written, masked: the run's exchange log (exchange-log.ts). */
  readonly log?: ExchangeSink;
  /** The run's model: every exchange is reported to it, and every answer held against it. */
  // biome-ignore lint/suspicious/noExplicitAny: the model's own watch type, opaque to the client
  readonly model?: ExchangeWatcher<any>;
  /** Overrides the run's pace (tests of the harness). */
  readonly pace?: Pace;
  /** Overrides rateLimitPatienceMs (tests of the harness). */
  readonly patienceMs?: number;
}

/** A path given to the client that is a whole URL (a Location followed), not one under the base URL. */
const ABSOLUTE_URL = /^https?:\/\//;

/** The key sent where a check asks for a wrong one: one per worker, unlike any real key. */
const WRONG_KEY = `wrong-${randomBytes(8).toString('hex')}`;
/** The wrong key of the second line where a check sends the key's field twice. */
const OTHER_WRONG_KEY = `wrong-${randomBytes(8).toString('hex')}`;

class Timeout {
  constructor(readonly ms: number) {}
}

/**
 * The HTTP client of the suites, on undici. Every request is bounded in time as a whole (connect,
 * headers, body and 429 waits together: headersTimeout and bodyTimeout alone would let a server that
 * drips one byte a second hold a check forever), reads at most MAX_BODY_BYTES, follows no redirect,
 * reuses connections, adds the API key where the config says, and records every exchange (masked).
 * A request that gets no complete answer throws a ConformanceError saying what happened.
 */
export class Client {
  /** The exchanges of this client so far, masked, oldest first. */
  readonly exchanges: ExchangeRecord[] = [];
  /** The first MAX_SERVER_ERRORS_KEPT responses with a 5xx status this client received, masked. */
  readonly serverErrors: ServerErrorSeen[] = [];
  /** Failures of requirements' rules seen in this client's answers (MAX_FINDINGS_KEPT per requirement). */
  readonly findings: Finding[] = [];
  /**
   * Every attempt sent again because the transport failed before an answer (--retries, safe methods
   * only; harness/http/retry.ts), masked, oldest first. A check that passed with any is flaky.
   */
  readonly retried: RetriedRequest[] = [];
  /** The first MAX_SLOW_ANSWERS_KEPT answers slower than config.maxResponseTimeMs (--max-response-time). */
  readonly slowAnswers: SlowAnswer[] = [];
  /** Every answer slower than config.maxResponseTimeMs, counted. */
  slowCount = 0;
  /** The time this client's requests waited for the run's pace, added up (a check's budget grows by it). */
  pacedMs = 0;
  private readonly timeoutMs: number;
  private readonly maxBodyBytes: number;
  private readonly dispatcher: Dispatcher;
  private readonly pace: Pace;
  /** Attempts in flight that the test's signal aborts (followSignal). */
  private readonly inFlight = new Set<Attempt>();
  private following = false;

  constructor(
    readonly config: Config,
    private readonly options: ClientOptions = {},
  ) {
    // Where the key goes, masked by position: its query parameter or its header (Authorization always is).
    if (config.apiKeyQuery) registerSecretQueryParam(config.apiKeyQuery);
    else if (!config.apiKeyScheme) registerSecretHeader(config.apiKeyHeader);
    // What a server may echo back, masked in every spelling in its answers: the key and its near misses,
    for (const secret of keySecrets(config.apiKey)) registerSecret(secret);
    // the wrong key (no secret, but shown nowhere, whatever the server does with it),
    registerSecret(WRONG_KEY);
    registerSecret(OTHER_WRONG_KEY);
    // and the proxy's password.
    for (const secret of proxySecrets(config.network)) registerSecret(secret);
    this.timeoutMs = options.timeoutMs ?? config.timeoutMs;
    this.maxBodyBytes = options.maxBodyBytes ?? MAX_BODY_BYTES;
    this.dispatcher = sharedDispatcher(config.network, config.concurrency ?? DEFAULT_CONCURRENCY);
    this.pace = options.pace ?? runPace(config);
  }

  /** The absolute URL of a path under the base URL (an absolute URL is returned as is). */
  url(path: string, query?: RequestOptions['query']): string {
    const base = ABSOLUTE_URL.test(path) ? path : `${this.config.baseUrl.replace(/\/+$/, '')}${path}`;
    const pairs = Object.entries(query ?? {}).map(
      ([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`,
    );
    if (pairs.length === 0) return base;
    return `${base}${base.includes('?') ? '&' : '?'}${pairs.join('&')}`;
  }

  get(path: string, options?: RequestOptions): Promise<ApiResponse> {
    return this.request('GET', path, options);
  }

  post(path: string, options?: RequestOptions): Promise<ApiResponse> {
    return this.request('POST', path, options);
  }

  /**
   * Sends one request; resolves with the response whatever its status, throws ConformanceError without
   * one. With config.retries, a safe request whose transport failed before any answer is sent again,
   * after a backoff, each attempt with a timeout of its own.
   */
  async request(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const sent = this.prepare(method, path, options);
    // Sent without the configured key (a check of the key's refusal): not an answer about the run's pets.
    const foreign = options.auth !== undefined && options.auth !== 'config';
    const watch = this.options.model?.watch(sent, options.alone, foreign);
    if (watch) await watch.admitted;
    let settled = false;
    const settle = (status: number | undefined, body?: Buffer, text?: string): Finding[] => {
      if (!watch || settled) return [];
      settled = true;
      const found = this.options.model!.settle(watch, status, body, text);
      for (const f of found) this.report(f);
      return found;
    };
    try {
      return await this.send(sent, method, path, settle, options.mayBeUnimplemented === true);
    } finally {
      settle(undefined);
    }
  }

  /**
   * Keeps a finding (the first MAX_FINDINGS_KEPT per requirement); the roll-up fails the requirement
   * it names. Its `received` quotes an answer: masked as the server's text.
   */
  report(finding: Finding): void {
    if (this.findings.filter((f) => f.requirementId === finding.requirementId).length < MAX_FINDINGS_KEPT)
      this.findings.push({ ...finding, received: redact(finding.received) });
  }

  private async send(
    request: SentRequest,
    method: string,
    path: string,
    settle: (status: number | undefined, body?: Buffer, text?: string) => Finding[],
    mayBeUnimplemented: boolean,
  ): Promise<ApiResponse> {
    const started = performance.now();
    let retries = 0;
    let transportRetries = 0;
    /** What went wrong with this request's attempts sent again (this client may send others meanwhile). */
    const earlier: string[] = [];
    const retriesAllowed = isSafeMethod(method) ? (this.config.retries ?? 0) : 0;
    /** Since when this request has been refused for the rate, and how often it was singled out by a 503. */
    let refusedSince: number | undefined;
    let paced = 0;
    let singledOut = 0;
    let seen = { answered: this.pace.answered, refusals: this.pace.report().refusals };
    for (;;) {
      // Each attempt waits for the run's pace; its timeout starts when it is sent.
      let admission: Admission | undefined;
      try {
        admission = await this.pace.admit(this.options.signal);
      } catch (error) {
        // The run no longer waits for the deployment: not judged. Aborted by the check: the attempt
        // below fails at once, saying why.
        if (error instanceof PaceGivenUp)
          throw new RateLimited({
            method,
            path,
            reason: `was not sent: ${error.reason}`,
            ...paceRateOf(this.pace),
            reproduce: toCurl(request),
          });
      }
      if (admission) {
        this.pacedMs += admission.waitedMs;
        paced += admission.waitedMs;
      }
      // Each attempt an exchange of its own: a span of the run's trace (trace.ts).
      const sent: SentRequest = { ...request, headers: { ...request.headers, ...traceHeaders(this.config) } };
      const sentAt = performance.now();
      admission?.sent(sentAt);
      const outcome = await this.once(sent, sentAt + this.timeoutMs, sentAt);
      admission?.done('error' in outcome ? undefined : outcome, refusedSince !== undefined);
      const timing = {
        started,
        attemptStarted: sentAt,
        ended: performance.now(),
        headersAt: outcome.headersAt,
      };
      if ('error' in outcome && outcome.beforeAnswer && transportRetries < retriesAllowed) {
        // No answer began: the network, not the server's answer. Sent again, and kept as evidence.
        const exchange = this.record(
          sent,
          { ...outcome.partial, error: outcome.error, retries, durationMs: outcome.durationMs },
          timing,
        );
        this.retried.push({ method: sent.method, url: exchange.url, error: redact(outcome.error) });
        earlier.push(outcome.error);
        transportRetries++;
        await sleep(backoffMs(transportRetries), this.options.signal);
        continue; // an aborted check's next attempt fails at once, saying why
      }
      if ('error' in outcome) {
        this.record(
          sent,
          { ...outcome.partial, error: outcome.error, retries, durationMs: outcome.durationMs },
          timing,
        );
        const failure = {
          expected: `a complete HTTP response to ${method} ${path} within ${this.timeoutMs} ms`,
          received:
            transportRetries > 0
              ? `${outcome.error} (and ${transportRetries} earlier attempt${transportRetries === 1 ? '' : 's'}: ${earlier.join('; ')})`
              : outcome.error,
          reproduce: toCurl(sent),
          exchanges: this.exchanges.slice(-3),
        };
        // A safe request whose connection dropped before any answer met the network (--retries sends
        // it again); an unsafe one may have been dropped for what it sent (a body of megabytes cut
        // off), which is its check's to judge.
        const dropped = outcome.dropped && isSafeMethod(method);
        if (!outcome.broken && !dropped) throw new ConformanceError(failure);
        // Whichever check sent it: ANY-HTTP-MESSAGE fails, and the check is blocked by it. A
        // connection dropped before any answer is one cause of the network's, named once, however
        // many checks it hits.
        const broken = new BrokenMessage({
          ...failure,
          expected: dropped
            ? `an HTTP answer to ${method} ${path} (--retries 2 meets a network that drops connections)`
            : `a complete HTTP message in answer to ${method} ${path}, framed as its headers say (RFC 9112 §6)`,
          received: `${method} ${path}: ${failure.received}`,
        });
        this.report({
          requirementId: HTTP_MESSAGE_ID,
          expected: broken.expected,
          received: broken.received,
          reproduce: broken.reproduce,
        });
        throw broken;
      }
      if (isRefusal(outcome)) {
        // A 503 this request keeps getting while others are answered, and refused none, is its own.
        const now = { answered: this.pace.answered, refusals: this.pace.report().refusals };
        if (outcome.status !== 503 || now.refusals - seen.refusals > 1) singledOut = 0;
        else if (now.answered > seen.answered) singledOut++;
        seen = now;
      }
      if (isRefusal(outcome) && singledOut < SINGLED_OUT_503) {
        // A 429 (or load shed with a 503 and Retry-After) is never handed to a check: "any 4xx" or
        // "not 2xx" would pass without judging. The pace holds the whole run; this request waits in it.
        const now = performance.now();
        refusedSince ??= now;
        const retryAfter = retryAfterMs(outcome.headers['retry-after'], Date.now());
        const patience = this.options.patienceMs ?? rateLimitPatienceMs(this.timeoutMs);
        if (now - refusedSince + (retryAfter ?? 0) <= patience && !this.options.signal?.aborted) {
          retries++;
          this.record(sent, { ...outcome, retries, durationMs: timing.ended - sentAt }, timing);
          continue;
        }
        this.record(sent, { ...outcome, retries, durationMs: timing.ended - started }, timing);
        const asked = outcome.headers['retry-after'];
        throw new RateLimited({
          method,
          path,
          reason: `was refused ${retries + 1} time${retries === 0 ? '' : 's'} (${outcome.status}, ${asked === undefined ? 'no Retry-After' : `Retry-After ${asked}`}) over ${Math.round((now - refusedSince) / 1000)} s, longer than a request waits for the deployment's limit (${Math.round(patience / 1000)} s)`,
          ...paceRateOf(this.pace),
          reproduce: toCurl(sent),
        });
      }
      const durationMs = timing.ended - started;
      const answerMs = timing.ended - sentAt;
      const exchange = this.record(sent, { ...outcome, retries, durationMs }, timing);
      const text = outcome.body.toString('utf8');
      const findings = settle(outcome.status, outcome.body, text);
      // Written when a check shows it (reproducer): most answers are never shown.
      const reproduce = reproducer(sent, outcome.status);
      // The URL masked alone, not read from the record: reading a record masks all of it, bodies too.
      // The reports' response times come from the exchange log, where every answer is timed once.
      const budget = this.config.maxResponseTimeMs;
      if (budget !== undefined && answerMs > budget) {
        this.slowCount++;
        if (this.slowAnswers.length < MAX_SLOW_ANSWERS_KEPT) {
          this.slowAnswers.push({
            method: sent.method,
            url: shownUrl(sent),
            status: outcome.status,
            ms: Math.round(answerMs),
            budgetMs: budget,
            reproduce: reproduce(),
          });
        }
      }
      const unimplemented = mayBeUnimplemented && outcome.status === 501;
      if (outcome.status >= 500 && !unimplemented && this.serverErrors.length < MAX_SERVER_ERRORS_KEPT) {
        this.serverErrors.push({
          method: sent.method,
          url: shownUrl(sent),
          status: outcome.status,
          reproduce: reproduce(),
        });
      }
      return {
        request: sent,
        status: outcome.status,
        headers: outcome.headers,
        body: outcome.body,
        text,
        truncated: outcome.truncated,
        retries,
        transportRetries,
        durationMs,
        answerMs,
        sentAt,
        pacedMs: paced,
        exchange,
        get reproduce() {
          return reproduce();
        },
        findings,
      };
    }
  }

  /** Keeps the exchange's masked record, and writes it to the run's exchange log. */
  private record(
    sent: SentRequest,
    result: Parameters<typeof recordExchange>[1],
    timing: Parameters<ExchangeSink['write']>[2],
  ): ExchangeRecord {
    const exchange = recordExchange(sent, result);
    this.exchanges.push(exchange);
    this.options.log?.write(sent, result, timing);
    return exchange;
  }

  private prepare(method: string, path: string, options: RequestOptions): SentRequest {
    const headers: Record<string, string> = {};
    let body: Uint8Array | undefined;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = Buffer.from(stringifyExact(options.json));
    } else if (options.body !== undefined) {
      body = typeof options.body === 'string' ? Buffer.from(options.body) : options.body;
    }
    for (const [k, v] of Object.entries(options.headers ?? {})) {
      headers[k.toLowerCase()] = v;
      if (isSecretHeader(k)) registerSecret(v); // an Authorization value a check sets is a secret too
    }
    const query: Record<string, QueryValue> = { ...options.query };
    const auth = options.auth ?? 'config';
    const key = this.keyFor(auth);
    let keyAt: SentRequest['keyAt'];
    if (key !== undefined) {
      // A wrong key is no secret: a curl line sends it as it is.
      const word =
        auth === 'wrong' || auth === 'wrong-twice'
          ? shellQuote(key)
          : keyShellWord(typeof auth === 'object' ? auth.nearMiss : undefined, this.config.apiKey ?? '');
      if (this.config.apiKeyQuery) {
        query[this.config.apiKeyQuery] = key;
        keyAt = { query: this.config.apiKeyQuery, word };
      } else if (this.config.apiKeyScheme) {
        headers.authorization = `${this.config.apiKeyScheme} ${key}`;
        keyAt = { header: 'authorization', prefix: `${this.config.apiKeyScheme} `, word };
      } else {
        headers[this.config.apiKeyHeader.toLowerCase()] = key;
        keyAt = { header: this.config.apiKeyHeader.toLowerCase(), prefix: '', word };
      }
      // The same field again, its name in upper case: a record's two names go out as two lines.
      if (auth === 'wrong-twice' && 'header' in keyAt)
        headers[keyAt.header.toUpperCase()] = `${keyAt.prefix}${OTHER_WRONG_KEY}`;
    }
    return {
      method,
      url: this.url(path, query),
      headers,
      ...(body ? { body } : {}),
      ...(options.bodyCommand !== undefined ? { bodyCommand: options.bodyCommand } : {}),
      // A check composes paths under the base URL; a whole URL it was given came from an answer.
      ...(ABSOLUTE_URL.test(path) ? { urlFromAnswer: true } : {}),
      ...(options.asWritten ? { asWritten: true } : {}),
      ...(options.target ? { target: options.target } : {}),
      ...(keyAt === undefined ? {} : { keyAt }),
    };
  }

  /** The key a request carries, by its `auth` option; undefined for none. */
  private keyFor(auth: NonNullable<RequestOptions['auth']>): string | undefined {
    if (auth === 'wrong' || auth === 'wrong-twice') return WRONG_KEY;
    if (auth === 'config') return this.config.apiKey;
    if (auth === 'none') return undefined;
    const key = nearMissKey(this.config.apiKey ?? '', auth.nearMiss);
    // A bug of the check that asked: it must skip when the key has no such near miss.
    if (key === undefined) throw new Error(`the configured API key has no near miss ${auth.nearMiss}`);
    return key;
  }

  /** One attempt, bounded by the deadline; never throws. */
  private async once(
    sent: SentRequest,
    deadline: number,
    started: number,
  ): Promise<
    | {
        status: number;
        headers: Record<string, string>;
        body: Buffer;
        truncated: boolean;
        headersAt: number;
      }
    | {
        error: string;
        durationMs: number;
        partial: { status?: number; headers?: Record<string, string>; body?: Buffer };
        headersAt?: number;
        /** No answer began (no status line), and the check did not stop the request itself. */
        beforeAnswer: boolean;
        /** The answer is not a complete HTTP message (isBroken): ANY-HTTP-MESSAGE's to judge. */
        broken: boolean;
        /**
         * The connection was refused, reset or closed before any answer began, not by a timeout nor
         * by the check: no HTTP message at all, ANY-HTTP-MESSAGE's to judge too.
         */
        dropped: boolean;
      }
  > {
    const attempt = new Attempt(this.dispatcher, sent.url, {
      method: sent.method,
      headers: sent.headers,
      body: sent.body,
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      maxBodyBytes: this.maxBodyBytes,
      ...(sent.asWritten ? { asWritten: true } : {}),
      ...(sent.target ? { target: sent.target } : {}),
    });
    // Whole milliseconds: Node keeps a list of timers per duration, and a fraction made nearly every
    // request's timer a list of its own, hundreds of them at once.
    const remaining = Math.max(1, Math.ceil(deadline - performance.now()));
    const timer = setTimeout(() => attempt.abort(new Timeout(this.timeoutMs)), remaining);
    const stop = this.options.signal;
    if (stop?.aborted) attempt.abort(stop.reason);
    else if (stop) this.followSignal(stop, attempt);
    try {
      await attempt.done;
      const { status, headers, headersAt, truncated } = attempt;
      return { status: status!, headers: headers!, body: attempt.body, truncated, headersAt: headersAt! };
    } catch (err) {
      const { status, headers, headersAt, size } = attempt;
      const reason = attempt.abortReason ?? err;
      const waited = Math.round(performance.now() - started);
      const phase =
        status === undefined
          ? 'before the status line and headers arrived'
          : `after status ${status} and ${formatBytes(size)} of body`;
      const what =
        reason instanceof Timeout
          ? `no complete response within ${reason.ms} ms (timed out ${phase})`
          : stop?.aborted
            ? `the request was abandoned after ${waited} ms ${phase}: the test was stopped (${describeError(stop.reason)})`
            : `${describeError(err)} after ${waited} ms, ${phase}`;
      return {
        error: what,
        durationMs: waited,
        ...(headersAt === undefined ? {} : { headersAt }),
        beforeAnswer: status === undefined && !stop?.aborted,
        broken: !(reason instanceof Timeout) && !stop?.aborted && isBroken(err, status !== undefined),
        dropped: status === undefined && !(reason instanceof Timeout) && !stop?.aborted,
        partial: {
          ...(status !== undefined ? { status } : {}),
          ...(headers ? { headers } : {}),
          ...(size > 0 ? { body: attempt.body } : {}),
        },
      };
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(attempt);
    }
  }

  /**
   * Aborts this client's attempts in flight, with its reason, when the test's signal is aborted: one
   * listener per client on the signal, not one per request (a check sends many at once, and Node
   * warns past ten listeners on one signal).
   */
  private followSignal(signal: AbortSignal, attempt: Attempt): void {
    this.inFlight.add(attempt);
    if (this.following) return;
    this.following = true;
    signal.addEventListener(
      'abort',
      () => {
        for (const a of this.inFlight) a.abort(signal.reason);
      },
      { once: true },
    );
  }
}

const CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the server',
  EPIPE: 'connection closed by the server while the request was being sent',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  UND_ERR_SOCKET: 'connection closed by the server',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'no headers in time',
  UND_ERR_BODY_TIMEOUT: 'body stalled',
  UND_ERR_HEADERS_OVERFLOW: 'response headers too large',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'body shorter or longer than its Content-Length',
  HPE_INVALID_CONSTANT: 'not an HTTP response',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the certificate is self-signed and not trusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'the certificate is issued by a CA this machine does not trust',
  SELF_SIGNED_CERT_IN_CHAIN: 'the certificate chain ends in a CA this machine does not trust',
  CERT_HAS_EXPIRED: 'the certificate has expired',
  ERR_TLS_CERT_ALTNAME_INVALID: 'the certificate is not valid for this host name',
  ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED: 'the server asks for a client certificate',
};

/** The pace the deployment left the run at, for a RateLimited's message. */
function paceRateOf(pace: Pace): { paceRate?: number } {
  const rate = pace.report().rate;
  return rate === undefined ? {} : { paceRate: rate };
}

/** A network error as a short sentence: "connection reset by the server (ECONNRESET)". */
export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const withCause = err as Error & { code?: string; cause?: unknown };
  const code = withCause.code ?? (withCause.cause as { code?: string } | undefined)?.code;
  if (code && CODES[code]) return `${CODES[code]} (${code})`;
  const inner = withCause.cause instanceof Error ? `: ${withCause.cause.message}` : '';
  return `${err.message || err.name}${inner}${code ? ` (${code})` : ''}`;
}

/**
 * Whether a failed attempt met an answer that is not a complete HTTP message: bytes that do not parse
 * as HTTP (llhttp's HPE_ codes: not HTTP at all, Content-Length beside chunked, a bad chunk), a body
 * longer or shorter than its Content-Length, or a connection closed once the answer had begun. A
 * refusal, a timeout or a reset before any answer began are the network's, not the message's.
 */
export function isBroken(err: unknown, answerBegan: boolean): boolean {
  const withCause = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = String(withCause?.code ?? withCause?.cause?.code ?? '');
  if (code.startsWith('HPE_') || code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') return true;
  return answerBegan && (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE');
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

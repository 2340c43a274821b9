import { randomBytes } from 'node:crypto';
import type { Dispatcher } from 'undici';
import type { Config, Network } from '../config/config.ts';
import {
  BrokenMessage,
  ClosedWithoutAnswer,
  ConformanceError,
  HTTP_MESSAGE_ID,
  RateLimited,
} from '../evidence/errors.ts';
import {
  type ExchangeRecord,
  type ExchangeResult,
  recordExchange,
  type SentRequest,
  shellQuote,
  shownUrl,
  toCurl,
} from '../evidence/exchange.ts';
import type { ExchangeSink, ExchangeTiming } from '../evidence/exchange-log.ts';
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
import type { PriorRequest } from './connections.ts';
import { type FailedAttempt, failedAttempt, Timeout } from './failure.ts';
import { Attempt, createDispatcher, proxySecrets } from './network.ts';
import {
  type Admission,
  DEFAULT_CONCURRENCY,
  isRefusal,
  kindOf,
  type Pace,
  PaceGivenUp,
  rateLimitPatienceMs,
  retryAfterMs,
  runPace,
} from './pace.ts';
import { backoffMs, isSafeMethod, type RetriedRequest } from './retry.ts';
import { maySpoil, spoiledFinding } from './spoiled.ts';
import { traceHeaders } from './trace.ts';

export { describeError, isBroken } from './failure.ts';

/** Bytes of a response body read at most; the rest is not read (a 50 MB answer costs 1 MiB). */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * A large body sent again after the server stopped reading it: its first kilobyte, then up to a
 * second (curl waits as long for an answer to Expect: 100-continue) for the answer the server sends
 * before it reads the rest. Sent whole, the answer is lost under the body still being written (the
 * connection breaks with EPIPE or ECONNRESET first) in some runs and read in others.
 */
const EARLY_ANSWER_PAUSE = { afterBytes: 1024, ms: 1_000 };

/** An attempt that got its answer. */
interface Answered {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
  readonly truncated: boolean;
  readonly headersAt: number;
  /** The request before it on its connection (connections.ts). */
  readonly prior?: PriorRequest;
}

/** A request being sent, over its attempts. */
interface Sending {
  readonly method: string;
  readonly path: string;
  /** Its kind, for its lane of the pace (pace.ts kindOf). */
  readonly kind: string;
  /** A 501 to it is HTTP's answer to a method not implemented (RequestOptions.mayBeUnimplemented). */
  readonly mayBeUnimplemented: boolean;
  readonly started: number;
  /** Answers that refused it for now, waited out. */
  retries: number;
  /** Attempts sent again under --retries. */
  transportRetries: number;
  /** What went wrong with its attempts sent again. */
  readonly earlier: string[];
  /** Time it waited for the pace. */
  paced: number;
  /** 503s in a row it got while others were answered. */
  singledOut: number;
  seen: { answered: number; refusals: number };
  /** Since when it has been refused. */
  refusedSince?: number;
  /** Its time waited for the pace when it was first refused (paced then). */
  pacedWhenRefused?: number;
  /** Not sent again before this (a Retry-After of its own). */
  notBefore: number;
  /** Its place in the pace's queue, when it keeps one: when it first asked. */
  place?: number | undefined;
  /** Its large body is sent its first bytes first, then the rest after a pause (EARLY_ANSWER_PAUSE). */
  pausedBody: boolean;
  /** The connection it is sent on, when not the run's pool (RequestOptions.connection). */
  readonly dispatcher?: Dispatcher | undefined;
  /** A connection closed before any answer is the server's refusal (RequestOptions.closedIsRefusal). */
  readonly closedIsRefusal: boolean;
}

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

/**
 * Refusals of one request before it may be given up (RateLimited) for being refused longer than a
 * request waits: one refused fewer times waited behind the others of its lane, not for its own refusals.
 */
const REFUSALS_BEFORE_GIVING_UP = 5;

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
  /**
   * A connection the server closes before any answer began is its refusal of this request, not a
   * sign of its capacity nor a broken message: a CONNECT to a server that opens no tunnels (node:http
   * closes it so unless the server listens for CONNECT). The request then throws ClosedWithoutAnswer.
   */
  readonly closedIsRefusal?: boolean;
  /**
   * Sent on this connection rather than the run's pool (Client.ownConnection): requests given the
   * same one go one after another over a single connection, kept alive as long as the server keeps it.
   */
  readonly connection?: OwnConnection;
}

/**
 * One connection of a check's own, for requests that must follow each other on it (a request after
 * one whose body the server may leave unread: spoiled.ts). Closed by the check once it is done.
 */
export interface OwnConnection {
  readonly dispatcher: Dispatcher;
  close(): Promise<void>;
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
  /** Told each time a request asks the pace to be sent (a check that leads its phase: requirement.ts). */
  readonly onAsk?: () => void;
}

/** A path given to the client that is a whole URL (a Location followed), not one under the base URL. */
const ABSOLUTE_URL = /^https?:\/\//;

/** The key sent where a check asks for a wrong one: one per worker, unlike any real key. */
const WRONG_KEY = `wrong-${randomBytes(8).toString('hex')}`;
/** The wrong key of the second line where a check sends the key's field twice. */
const OTHER_WRONG_KEY = `wrong-${randomBytes(8).toString('hex')}`;

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
  /** When its check began (one client a check), on the pace's clock: its requests' place in the queue. */
  private readonly began: number;
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
    this.began = this.pace.now();
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

  /**
   * A connection of its own (one at a time, one request at a time on it), reaching the target as the
   * run's pool does: through the same proxy and TLS settings. Requests given it follow each other on
   * it while the server keeps it alive; the check closes it.
   */
  ownConnection(): OwnConnection {
    const dispatcher = createDispatcher(this.config.network, { connections: 1, pipelining: 1 });
    return { dispatcher, close: () => dispatcher.close() };
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
      return await this.send(sent, method, path, settle, options);
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
    options: RequestOptions,
  ): Promise<ApiResponse> {
    const state: Sending = {
      method,
      path,
      mayBeUnimplemented: options.mayBeUnimplemented === true,
      dispatcher: options.connection?.dispatcher,
      closedIsRefusal: options.closedIsRefusal === true,
      kind: kindOf(method, path, this.config.baseUrl),
      started: performance.now(),
      retries: 0,
      transportRetries: 0,
      earlier: [],
      paced: 0,
      singledOut: 0,
      seen: { answered: this.pace.answered, refusals: this.pace.refusals },
      notBefore: 0,
      pausedBody: false,
    };
    for (;;) {
      const admitted = await this.admission(request, state);
      // Each attempt an exchange of its own: a span of the run's trace (trace.ts).
      const attempt: SentRequest = {
        ...request,
        headers: { ...request.headers, ...traceHeaders(this.config) },
      };
      const sentAt = performance.now();
      admitted?.sent(sentAt);
      const first = await this.once(attempt, {
        deadline: sentAt + this.timeoutMs,
        started: sentAt,
        admission: admitted,
        pauseBody: state.pausedBody,
        ...(state.dispatcher ? { dispatcher: state.dispatcher } : {}),
      });
      const firstTiming = {
        started: state.started,
        attemptStarted: sentAt,
        ended: performance.now(),
        headersAt: first.headersAt,
      };
      const { sent, outcome, timing, admission } = await this.unspoiled(
        attempt,
        first,
        firstTiming,
        state,
        admitted,
      );
      if ('error' in outcome) {
        await this.afterFailure(sent, outcome, admission, timing, state);
        continue;
      }
      if (this.refused(outcome, admission, state)) {
        this.waitOrGiveUp(sent, outcome, timing, state);
        continue;
      }
      return this.answered(sent, outcome, timing, state, settle);
    }
  }

  /**
   * An answer the request before it on its connection may have spoiled (spoiled.ts) is checked: the
   * request is sent again alone, on a new connection. Answered otherwise there, the first answer was
   * spoiled: ANY-HTTP-MESSAGE is told, naming both requests, and the request goes on with the answer
   * it got alone. A refusal for now (429, 503) there says nothing either way. The first answer's
   * admission ends before the second is asked for (at one request at a time, it would wait for it);
   * the second's is the one the request goes on with.
   */
  private async unspoiled(
    sent: SentRequest,
    outcome: Answered | FailedAttempt,
    timing: ExchangeTiming,
    state: Sending,
    admission: Admission | undefined,
  ): Promise<{
    sent: SentRequest;
    outcome: Answered | FailedAttempt;
    timing: ExchangeTiming;
    admission: Admission | undefined;
  }> {
    const failed = 'error' in outcome;
    const status = failed ? outcome.partial.status : outcome.status;
    const headers = (failed ? outcome.partial.headers : outcome.headers) ?? {};
    const prior = outcome.prior;
    const first = prior?.tag as SentRequest | undefined;
    const answer = {
      status,
      closes: /\bclose\b/i.test(headers.connection ?? ''),
      broken: failed && outcome.broken,
    };
    if (!maySpoil(prior, answer) || first === undefined || prior?.status === undefined)
      return { sent, outcome, timing, admission };
    // Sent alone: through the run's pace, on a connection of its own.
    admission?.done(failed ? undefined : { answer: outcome });
    let second: Admission;
    try {
      second = await this.pace.admit(this.options.signal, { kind: state.kind });
    } catch {
      return { sent, outcome, timing, admission: undefined };
    }
    const fresh = this.ownConnection();
    const again: SentRequest = { ...sent, headers: { ...sent.headers, ...traceHeaders(this.config) } };
    const sentAt = performance.now();
    second.sent(sentAt);
    const alone = await this.once(again, {
      deadline: sentAt + this.timeoutMs,
      started: sentAt,
      dispatcher: fresh.dispatcher,
    });
    void fresh.close();
    const aloneTiming = {
      started: state.started,
      attemptStarted: sentAt,
      ended: performance.now(),
      headersAt: alone.headersAt,
    };
    const aloneStatus = 'error' in alone ? alone.partial.status : alone.status;
    const same = aloneStatus === status && 'error' in alone === failed;
    if (same || 'error' in alone || isRefusal(alone)) {
      // Not spoiled, or not to be told: the check goes on with the first answer; the second is kept.
      this.record(
        again,
        'error' in alone
          ? { ...alone.partial, error: alone.error, durationMs: alone.durationMs }
          : { ...alone, durationMs: aloneTiming.ended - sentAt },
        aloneTiming,
      );
      second.done('error' in alone ? undefined : { answer: alone });
      return { sent, outcome, timing, admission: undefined };
    }
    this.record(
      sent,
      failed
        ? { ...outcome.partial, error: outcome.error, durationMs: outcome.durationMs, resent: 'spoiled' }
        : { ...outcome, durationMs: timing.ended - timing.attemptStarted, resent: 'spoiled' },
      timing,
    );
    const finding = spoiledFinding(
      first,
      prior.status,
      sent,
      failed ? outcome.error : String(status),
      String(aloneStatus),
    );
    this.report({ requirementId: HTTP_MESSAGE_ID, ...finding });
    return { sent: again, outcome: alone, timing: aloneTiming, admission: second };
  }

  /** Waits for the run's pace; undefined when the check was stopped (the attempt then fails at once, saying why). */
  private async admission(request: SentRequest, state: Sending): Promise<Admission | undefined> {
    try {
      // While the deployment has refused nothing, a request's first place in the queue is its
      // check's: when the check began. The checks begun first are served first, so that a check's
      // later requests (a sequence's next step, the shows after a create) are not queued behind the
      // first requests of checks begun after it: a deployment far away is waited for along the
      // longest chain of exchanges, not behind every other check's burst. Once it refuses (a rate
      // limit, load shed), each request queues from when it asked, as the pace's lanes expect.
      const byCheck = state.retries === 0 && this.pace.refusals === 0;
      const place = state.place ?? (byCheck ? this.began : undefined);
      this.options.onAsk?.();
      const admission = await this.pace.admit(this.options.signal, {
        kind: state.kind,
        notBefore: state.notBefore,
        ...(place === undefined ? {} : { place }),
      });
      // Sent again after its first refusal, it keeps the place it had; refused again, it queues anew
      // (a request the deployment keeps refusing does not hold the others back).
      state.place = state.retries === 0 ? (place ?? this.pace.now() - admission.waitedMs) : undefined;
      this.pacedMs += admission.waitedMs;
      state.paced += admission.waitedMs;
      return admission;
    } catch (error) {
      // The run no longer waits for the deployment: not judged.
      if (error instanceof PaceGivenUp)
        throw new RateLimited({
          method: state.method,
          path: state.path,
          reason: `was not sent: ${error.reason}`,
          ...paceRateOf(this.pace, state.kind),
          reproduce: toCurl(request),
        });
      return undefined;
    }
  }

  /**
   * An attempt that got no complete answer: returns when it is to be sent again, or throws what the
   * check is to make of it.
   */
  private async afterFailure(
    sent: SentRequest,
    outcome: FailedAttempt,
    admission: Admission | undefined,
    timing: ExchangeTiming,
    state: Sending,
  ): Promise<void> {
    // What another origin did (a Location that leads elsewhere) says nothing of the deployment's
    // capacity, nor does a connection closed as the refusal of this one request.
    const refusedByClosing = state.closedIsRefusal && outcome.capacity === 'reset' && !outcome.notWritten;
    const capacity =
      sameOrigin(sent.url, this.config.baseUrl) && !refusedByClosing ? outcome.capacity : undefined;
    const verdict = admission?.done(capacity ? { capacity } : undefined);
    const { method } = state;
    const keep = (resent?: ExchangeResult['resent']) =>
      this.record(
        sent,
        {
          ...outcome.partial,
          error: outcome.error,
          retries: state.retries,
          durationMs: outcome.durationMs,
          ...(resent ? { resent } : {}),
        },
        timing,
      );
    // The server stopped reading the body, and may have answered first (413, 401, 429) before the
    // connection broke under the rest: sent once more, its first bytes, then a pause for the answer.
    if (outcome.bodyCut && !state.pausedBody) {
      keep('body-unread');
      state.pausedBody = true;
      state.earlier.push(outcome.error);
      return;
    }
    // The deployment took fewer requests at once since: sent again. One never written on a
    // connection was never applied, whatever its method; one reset before its answer, if it is safe.
    if (verdict?.kind === 'resend' && (outcome.notWritten || isSafeMethod(method))) {
      keep('not-taken');
      state.earlier.push(outcome.error);
      return;
    }
    const retriesAllowed = isSafeMethod(method) ? (this.config.retries ?? 0) : 0;
    if (outcome.beforeAnswer && state.transportRetries < retriesAllowed) {
      // No answer began: the network, not the server's answer. Sent again, and kept as evidence.
      const exchange = keep();
      this.retried.push({ method: sent.method, url: exchange.url, error: redact(outcome.error) });
      state.earlier.push(outcome.error);
      state.transportRetries++;
      await sleep(backoffMs(state.transportRetries), this.options.signal);
      return; // an aborted check's next attempt fails at once, saying why
    }
    keep();
    if (refusedByClosing)
      throw new ClosedWithoutAnswer({
        expected: `an answer to ${method} ${state.path}, or the connection closed as its refusal`,
        received: `${method} ${state.path}: ${outcome.error}`,
        reproduce: toCurl(sent),
        exchanges: this.exchanges.slice(-1),
      });
    throw this.failure(sent, outcome, state);
  }

  /** What a request that got no complete answer fails its check with, or blocks it by (ANY-HTTP-MESSAGE). */
  private failure(sent: SentRequest, outcome: FailedAttempt, state: Sending): ConformanceError {
    const { method, path } = state;
    const failure = {
      expected: `a complete HTTP response to ${method} ${path} within ${this.timeoutMs} ms`,
      received:
        state.earlier.length > 0
          ? `${outcome.error} (and ${state.earlier.length} earlier attempt${state.earlier.length === 1 ? '' : 's'}: ${state.earlier.join('; ')})`
          : outcome.error,
      reproduce: toCurl(sent),
      exchanges: this.exchanges.slice(-3),
    };
    // A safe request whose connection dropped before any answer met the network (--retries sends it
    // again), and so did one never written on a connection; an unsafe one may have been dropped for
    // what it sent (a body of megabytes cut off), which is its check's to judge.
    const dropped = outcome.dropped && (isSafeMethod(method) || outcome.notWritten);
    if (!outcome.broken && !dropped) return new ConformanceError(failure);
    // Whichever check sent it: ANY-HTTP-MESSAGE fails, and the check is blocked by it. A connection
    // dropped before any answer is one cause of the network's, named once, however many checks it hits.
    const broken = new BrokenMessage({
      ...failure,
      expected: !dropped
        ? `a complete HTTP message in answer to ${method} ${path}, framed as its headers say (RFC 9112 §6)`
        : outcome.notWritten && this.concurrencyCeiling() > 1 && sameOrigin(sent.url, this.config.baseUrl)
          ? `an HTTP answer to ${method} ${path} with one request at a time (the run came down from --concurrency ${this.concurrencyCeiling()} to 1, and the deployment still did not take it)`
          : `an HTTP answer to ${method} ${path} (--retries 2 meets a network that drops connections)`,
      received: `${method} ${path}: ${failure.received}`,
    });
    this.report({
      requirementId: HTTP_MESSAGE_ID,
      expected: broken.expected,
      received: broken.received,
      reproduce: broken.reproduce,
    });
    return broken;
  }

  /** --concurrency, or the default: what the run started with. */
  private concurrencyCeiling(): number {
    return this.config.concurrency ?? DEFAULT_CONCURRENCY;
  }

  /**
   * Whether an answer refused its request for now (429, 503, as the pace judges it: pace.ts), to be
   * sent again; a 503 this request keeps getting while others are answered is its own answer.
   */
  private refused(outcome: Answered, admission: Admission | undefined, state: Sending): boolean {
    if (isRefusal(outcome)) {
      // A 503 this request keeps getting while others are answered, and refused none, is its own.
      const now = { answered: this.pace.answered, refusals: this.pace.refusals };
      if (outcome.status !== 503 || now.refusals - state.seen.refusals > 1) state.singledOut = 0;
      else if (now.answered > state.seen.answered) state.singledOut++;
      state.seen = now;
    }
    const again = state.refusedSince !== undefined;
    const verdict = admission?.done({ answer: outcome, again }) ?? { kind: 'answer' };
    if (verdict.kind !== 'refused' || state.singledOut >= SINGLED_OUT_503) return false;
    state.notBefore = verdict.notBefore;
    return true;
  }

  /**
   * A refused request waits for the pace and is sent again, unless it has been refused longer than a
   * request waits: a 429 (or a 503 the pace judges load shed) is never handed to a check ("any 4xx"
   * or "not 2xx" would pass without judging); the check is not judged instead (RateLimited).
   */
  private waitOrGiveUp(sent: SentRequest, outcome: Answered, timing: ExchangeTiming, state: Sending): void {
    const now = performance.now();
    state.refusedSince ??= now;
    state.pacedWhenRefused ??= state.paced;
    const retryAfter = retryAfterMs(outcome.headers['retry-after'], Date.now());
    const patience = this.options.patienceMs ?? rateLimitPatienceMs(this.timeoutMs);
    // The time it was refused for, not the time it then waited its turn behind the others of its
    // lane (a quota of 3 creates a second and 200 creates: a minute's queue, every request answered).
    // Turns count for no more than twice the patience besides: a request the deployment singles out
    // for refusals (each with a Retry-After it waits in its lane) is given up all the same.
    const since = now - state.refusedSince;
    const refusedFor = Math.max(since - (state.paced - state.pacedWhenRefused), since - 2 * patience);
    const tooLong =
      refusedFor + (retryAfter ?? 0) > patience && state.retries + 1 >= REFUSALS_BEFORE_GIVING_UP;
    if (!tooLong && (retryAfter ?? 0) <= patience && !this.options.signal?.aborted) {
      state.retries++;
      this.record(
        sent,
        {
          ...outcome,
          retries: state.retries,
          durationMs: timing.ended - timing.attemptStarted,
          resent: 'refused',
        },
        timing,
      );
      return;
    }
    this.record(
      sent,
      { ...outcome, retries: state.retries, durationMs: timing.ended - state.started },
      timing,
    );
    const asked = outcome.headers['retry-after'];
    throw new RateLimited({
      method: state.method,
      path: state.path,
      reason: `was refused ${state.retries + 1} time${state.retries === 0 ? '' : 's'} (${outcome.status}, ${asked === undefined ? 'no Retry-After' : `Retry-After ${asked}`}) over ${Math.round(refusedFor / 1000)} s (besides its turns behind the others), longer than a request waits for the deployment's limit (${Math.round(patience / 1000)} s)`,
      ...paceRateOf(this.pace, state.kind),
      reproduce: toCurl(sent),
    });
  }

  /** The answer, as the check gets it: recorded, held against the model, kept as evidence where it says something. */
  private answered(
    sent: SentRequest,
    outcome: Answered,
    timing: ExchangeTiming,
    state: Sending,
    settle: (status: number | undefined, body?: Buffer, text?: string) => Finding[],
  ): ApiResponse {
    const durationMs = timing.ended - state.started;
    const answerMs = timing.ended - timing.attemptStarted;
    const exchange = this.record(sent, { ...outcome, retries: state.retries, durationMs }, timing);
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
    const unimplemented = state.mayBeUnimplemented && outcome.status === 501;
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
      retries: state.retries,
      transportRetries: state.transportRetries,
      durationMs,
      answerMs,
      sentAt: timing.attemptStarted,
      pacedMs: state.paced,
      exchange,
      get reproduce() {
        return reproduce();
      },
      findings,
    };
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

  /**
   * One attempt, bounded by the deadline; never throws. Its connection, once there, is told to the
   * pace (a slow one is let go before the request is written on it); `pauseBody` writes a large
   * body's first bytes, then waits for an early answer before the rest.
   */
  private async once(
    sent: SentRequest,
    how: {
      readonly deadline: number;
      readonly started: number;
      readonly admission?: Admission | undefined;
      readonly pauseBody?: boolean;
      /** Another dispatcher than the run's pool (a new connection of its own). */
      readonly dispatcher?: Dispatcher;
    },
  ): Promise<Answered | FailedAttempt> {
    const { deadline, started, admission } = how;
    const attempt = new Attempt(how.dispatcher ?? this.dispatcher, sent.url, {
      method: sent.method,
      headers: sent.headers,
      body: sent.body,
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      maxBodyBytes: this.maxBodyBytes,
      tag: sent,
      ...(sent.asWritten ? { asWritten: true } : {}),
      ...(sent.target ? { target: sent.target } : {}),
      ...(admission ? { onConnection: (ms: number) => admission.connected(ms) } : {}),
      ...(how.pauseBody ? { pauseBody: EARLY_ANSWER_PAUSE } : {}),
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
      const { status, headers, headersAt, truncated, prior } = attempt;
      return {
        status: status!,
        headers: headers!,
        body: attempt.body,
        truncated,
        headersAt: headersAt!,
        ...(prior ? { prior } : {}),
      };
    } catch (err) {
      const waited = Math.round(performance.now() - started);
      return failedAttempt(attempt, err, stop?.aborted ? { reason: stop.reason } : undefined, waited);
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

/** Whether `url` is on the origin of `baseUrl`. */
function sameOrigin(url: string, baseUrl: string): boolean {
  try {
    return new URL(url).origin === new URL(baseUrl).origin;
  } catch {
    return false;
  }
}

/** The pace the deployment left the lane of `kind` at, for a RateLimited's message. */
function paceRateOf(pace: Pace, kind: string): { paceRate?: number } {
  const rate = pace.rateOf(kind);
  return rate === undefined ? {} : { paceRate: Math.round(rate * 10) / 10 };
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

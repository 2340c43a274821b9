/**
 * The exchange log of a run: every request a check sends and what came back, one entry each,
 * appended by the worker as the exchange ends, one line of JSON (JSON Lines), to a file in the run's
 * staging folder, which the CLI reads once vitest has ended and its worker has exited
 * (cli/record/exchanges.ts) for exchanges.har and anything else that wants every exchange (response
 * times by operation). An entry is in the file when write() returns: whatever the check does next,
 * however it ends, and whenever the worker is stopped, nothing is held back to be sent later.
 *
 * An entry is masked before it is written, as every exchange shown is (redact.ts): the request where
 * the suite put a secret (the key's header or query parameter, Authorization, cookies), the answer
 * in every spelling of the key: no secret leaves the worker in the log. Bodies are kept up to a bound
 * (the rest only counted), an answer's masked before it is cut.
 */
import { appendFileSync } from 'node:fs';
import { type Route, type RouteMatch, routeMatcher } from '../../../catalog/routes.ts';
import { type BodyExcerpt, bodyExcerpt } from './body.ts';
import { type ExchangeResult, type SentRequest, shownUrl } from './exchange.ts';
import { redact, redactRequestHeaders, redactResponseHeaders } from './redact.ts';
import { pathUnder } from './url.ts';

/** The key in vitest's provide/inject under which the CLI hands the log's settings to the workers. */
export const EXCHANGE_LOG_KEY = 'petstoreConformanceExchangeLog' as const;

/** The version of the entry format below; the reader refuses entries of another. */
export const EXCHANGE_LOG_VERSION = 1;

export interface ExchangeLogSettings {
  /** The file the worker appends entries to, one line each (in the run's private staging folder). */
  readonly file: string;
  /** Bytes of each body kept in the log; 0 keeps sizes only. */
  readonly bodyBytes: number;
  /** The operations of spec/openapi.yaml, to name the one each request went to. */
  readonly operations: readonly LoggedOperation[];
}

declare module 'vitest' {
  export interface ProvidedContext {
    [EXCHANGE_LOG_KEY]?: ExchangeLogSettings;
  }
}

/** An operation of the service: "GET /pets/{petId}" (showPetById). */
export type LoggedOperation = Route;

/** A body as logged: its size, and its first bytes (masked) as text or base64 (body.ts). */
export type LoggedBody = BodyExcerpt;

/** One entry of the log: one request and what came back (or why nothing did). */
export interface LoggedExchange {
  readonly v: typeof EXCHANGE_LOG_VERSION;
  /** The requirement whose check sent it. */
  readonly requirement: string;
  /** The check (the test's name: "LIST-LIMIT-OVER-MAX … [limit=101]"). */
  readonly check: string;
  /**
   * The operation the request went to, by method and path template (catalog/routes.ts says how a
   * request is matched); absent for a request outside the API's paths (the checks send some on
   * purpose: /v2/pets, /nowhere, /pets/). `operationId` is absent for a method the path does not
   * define (DELETE /pets). Every report that names a request's operation reads it here.
   */
  readonly operation?: RouteMatch;
  /** When the request was first sent: ISO 8601, UTC. */
  readonly startedAt: string;
  /** From the first byte sent to the last byte read, 429 waits included: the response time. */
  readonly durationMs: number;
  /**
   * The last attempt's phases (HAR's timings): `blocked` the refusals (429, 503) waited out before it,
   * `wait` until its status line and headers, `receive` reading its body. Sum: durationMs.
   */
  readonly timings: { readonly blocked: number; readonly wait: number; readonly receive: number };
  readonly request: {
    readonly method: string;
    /** Masked. */
    readonly url: string;
    /** As the client set them (undici adds host, connection, content-length); masked. */
    readonly headers: Readonly<Record<string, string>>;
    readonly body?: LoggedBody;
  };
  /** Absent when no status line came. */
  readonly response?: {
    readonly status: number;
    /** Lower-case names, repeated headers joined with ", "; masked. */
    readonly headers: Readonly<Record<string, string>>;
    readonly body?: LoggedBody;
    /** The body was longer than the client's read cap; reading stopped there. */
    readonly truncated?: true;
  };
  /** What stopped the exchange (timeout, reset, refused), masked; with or without a response. */
  readonly error?: string;
  /** Refusals (429, 503) waited out before the last attempt. */
  readonly retries?: number;
  /**
   * The run sent this request again: `refused` its answer refused it for now (429, 503: waited out,
   * not judged), `not-taken` the deployment did not take it (a connection refused, not made in time,
   * or reset before any answer: the run came down to fewer requests at once), `body-unread` the server
   * stopped reading its body (sent again to read the answer it sent first), `spoiled` its answer was
   * spoiled by the body the request before it on the connection left unread (sent again alone).
   */
  readonly resent?: 'refused' | 'not-taken' | 'body-unread' | 'spoiled';
}

/** Who sent an exchange: the requirement and the check. */
export interface ExchangeLabel {
  readonly requirement: string;
  readonly check: string;
}

/** What the client knows of an exchange when it ends. */
export interface ExchangeTiming {
  /** performance.now() when the request was first sent, and when its last attempt was. */
  readonly started: number;
  readonly attemptStarted: number;
  /** performance.now() when the last attempt's headers came; absent when they did not. */
  readonly headersAt?: number;
  readonly ended: number;
}

/** Writes the exchanges of one check; see exchangeLog(). */
export interface ExchangeSink {
  write(sent: SentRequest, result: ExchangeResult, timing: ExchangeTiming): void;
}

/**
 * The sink of one check's exchanges, or undefined when the run keeps no log (the settings were
 * not provided: the suites run by suites/vitest.config.ts, the harness's own tests).
 */
export function exchangeSink(
  settings: ExchangeLogSettings | undefined,
  baseUrl: string,
  label: ExchangeLabel,
): ExchangeSink | undefined {
  if (settings === undefined) return undefined;
  const operationOf = operationMatcher(settings.operations, baseUrl);
  return {
    write(sent, result, timing) {
      const line: LoggedExchange = {
        v: EXCHANGE_LOG_VERSION,
        requirement: label.requirement,
        check: label.check,
        ...optional('operation', operationOf(sent.method, sent.url)),
        startedAt: new Date(performance.timeOrigin + timing.started).toISOString(),
        durationMs: round(timing.ended - timing.started),
        timings: {
          blocked: round(timing.attemptStarted - timing.started),
          wait: round((timing.headersAt ?? timing.ended) - timing.attemptStarted),
          receive: round(timing.headersAt === undefined ? 0 : timing.ended - timing.headersAt),
        },
        request: {
          method: sent.method,
          url: shownUrl(sent),
          headers: redactRequestHeaders(sent.headers),
          ...optional('body', sent.body && loggedBody(sent.body, settings.bodyBytes, false)),
        },
        ...optional(
          'response',
          result.status === undefined
            ? undefined
            : {
                status: result.status,
                headers: redactResponseHeaders(result.headers ?? {}),
                ...optional('body', result.body && loggedBody(result.body, settings.bodyBytes)),
                ...(result.truncated ? { truncated: true as const } : {}),
              },
        ),
        ...optional('error', result.error === undefined ? undefined : redact(result.error)),
        ...optional('retries', result.retries ? result.retries : undefined),
        ...optional('resent', result.resent),
      };
      appendFileSync(settings.file, `${JSON.stringify(line)}\n`);
    },
  };
}

/**
 * A body as logged (body.ts, as every report keeps a body): an answer's (`fromServer`) masked, then
 * cut at the log's bound; a request's as the suite sent it.
 */
export const loggedBody = bodyExcerpt;

/** The operation of a request: its URL's path under the base URL, matched against the routes (catalog/routes.ts). */
export function operationMatcher(
  operations: readonly LoggedOperation[],
  baseUrl: string,
): (method: string, url: string) => LoggedExchange['operation'] {
  const under = pathUnder(baseUrl);
  const match = routeMatcher(operations);
  return (method, url) => {
    const path = under(url);
    return path === undefined ? undefined : match(method, path);
  };
}

function round(ms: number): number {
  return Math.max(0, Math.round(ms * 100) / 100);
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

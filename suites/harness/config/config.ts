import type { Requirement } from '../../../catalog/catalog.ts';

/**
 * The one configuration object of a run. The CLI builds it at the edge (flag, then environment,
 * then default), freezes it, and hands it to the suites with vitest's provide/inject; nothing in
 * suites/ reads argv or the environment.
 */
export interface Config {
  /** The deployment, including its /v1 prefix, without a trailing slash. */
  readonly baseUrl: string;
  /** Sent on every request when set. A secret: never printed, logged or reported. */
  readonly apiKey?: string;
  /** The header that carries the key (default X-API-Key); unused when apiKeyQuery is set. */
  readonly apiKeyHeader: string;
  /** The query parameter that carries the key instead of a header. */
  readonly apiKeyQuery?: string;
  /**
   * The key travels as `Authorization: <scheme> <key>` (Bearer, ApiKey, Token…) instead of in
   * apiKeyHeader; a wrong key goes in the same scheme, a missing one sends no Authorization.
   */
  readonly apiKeyScheme?: string;
  /** Also check that requests without the key, or with a wrong one, are refused. */
  readonly authRequired: boolean;
  /** Send only safe requests (GET); requirements that need writes are skipped. */
  readonly readOnly: boolean;
  /** SHOULD-level failures gate the verdict too. */
  readonly strict: boolean;
  /** Requirement id prefixes to run (upper case); empty means all. */
  readonly only: readonly string[];
  /** Requirement id prefixes left out after `only` (upper case); empty leaves out nothing. */
  readonly exclude: readonly string[];
  /** Seed of every generated input. */
  readonly seed: number;
  /** Limit for one request, response body included, in milliseconds. */
  readonly timeoutMs: number;
  /**
   * Times a safe request is sent again when the transport failed before any answer (--retries;
   * absent: 0, never). A requirement that passed only thanks to one is reported flaky.
   */
  readonly retries?: number;
  /**
   * The longest an answer may take, request sent to last byte, in milliseconds (--max-response-time):
   * ANY-RESPONSE-TIME fails on any answer slower. Absent: times are reported, not judged.
   */
  readonly maxResponseTimeMs?: number;
  /** Request starts in any second at most, for the whole run (--rate-limit); absent: as the deployment allows. */
  readonly rateLimit?: number;
  /** Requests in flight at most, for the whole run (--concurrency; absent: DEFAULT_CONCURRENCY). */
  readonly concurrency?: number;
  /** Marks what this run creates (pet tags), so that staging data made by the suite is recognisable. */
  readonly runId: string;
  /** Sent as User-Agent on every request: "petstore-conformance/1.0.0". */
  readonly userAgent?: string;
  /**
   * The run's W3C trace id (32 lower-case hex digits): every request carries a traceparent in it, with
   * a span id of its own (harness/http/trace.ts). Absent: no trace headers (--no-trace-headers).
   */
  readonly traceId?: string;
  /** Also send each exchange's id (its span id) in this header, one the deployment logs (--request-id-header). */
  readonly requestIdHeader?: string;
  /** How requests reach the target (proxies, TLS); absent: directly, with Node's TLS defaults. */
  readonly network?: Network;
}

/** Where the key travels, for messages: "header X-API-Key", "query parameter key", "header Authorization (scheme Bearer)". */
export function keyCarrier(config: Pick<Config, 'apiKeyHeader' | 'apiKeyQuery' | 'apiKeyScheme'>): string {
  if (config.apiKeyQuery) return `query parameter ${config.apiKeyQuery}`;
  if (config.apiKeyScheme) return `header Authorization (scheme ${config.apiKeyScheme})`;
  return `header ${config.apiKeyHeader}`;
}

/**
 * Proxies and TLS, resolved at the edge into plain data (strings and booleans, never objects): the
 * Config crosses to the suites' workers by vitest's provide/inject. Certificates and keys are PEM
 * text read from the files given; none of it is ever written to a report.
 */
export interface Network {
  readonly proxy?: ProxySettings;
  readonly tls?: TlsSettings;
}

export interface ProxySettings {
  /** The proxy of http:// targets; '' for none. */
  readonly http: string;
  /** The proxy of https:// targets; '' for none. */
  readonly https: string;
  /** Hosts reached directly, as NO_PROXY lists them (comma- or space-separated; `*` for all). */
  readonly noProxy: string;
  /** Where the settings came from, for the console: "--proxy", "HTTPS_PROXY", … */
  readonly from: string;
}

export interface TlsSettings {
  /** PEM: certificates trusted besides Node's own (--ca-cert). */
  readonly ca?: string;
  /**
   * PEM of NODE_EXTRA_CA_CERTS, read at the edge: with `ca` set the trusted list is built here, and
   * Node 20 cannot list the extra certificates it loaded itself.
   */
  readonly extraCa?: string;
  /** PEM: the client certificate of mutual TLS (--client-cert), with its private key. */
  readonly cert?: string;
  /** PEM: the private key of `cert` (--client-key). A secret. */
  readonly key?: string;
  /** The target's certificate is not verified (--insecure). */
  readonly insecure?: boolean;
}

/** The key in vitest's provide/inject under which the CLI hands the Config to the suites. */
export const CONFIG_KEY = 'petstoreConformanceConfig' as const;

/**
 * The key under which suiteVitestOptions() hands the catalog's requirements, already read and
 * checked in the main process, to the workers: each worker would otherwise parse the YAML again.
 */
export const REQUIREMENTS_KEY = 'petstoreConformanceRequirements' as const;

/**
 * The key under which the CLI hands spec/openapi.yaml, already validated and dereferenced by its
 * preflight (swagger-parser), to the workers: each worker would otherwise load swagger-parser and
 * dereference the document again. A plain object (structured clone keeps the shared schema objects
 * shared); without it, the workers dereference the file themselves.
 */
export const OPENAPI_KEY = 'petstoreConformanceOpenApi' as const;

declare module 'vitest' {
  export interface ProvidedContext {
    [CONFIG_KEY]: Config;
    [REQUIREMENTS_KEY]?: readonly Requirement[];
    [OPENAPI_KEY]?: unknown;
  }
}

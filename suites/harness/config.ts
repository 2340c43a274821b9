import type { Requirement } from '../../spec/catalog.ts';

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
  /** Also check that requests without the key, or with a wrong one, are refused. */
  readonly authRequired: boolean;
  /** Send only safe requests (GET); requirements that need writes are skipped. */
  readonly readOnly: boolean;
  /** SHOULD-level failures gate the verdict too. */
  readonly strict: boolean;
  /** Requirement id prefixes to run; empty means all. */
  readonly only: readonly string[];
  /** Seed of every generated input. */
  readonly seed: number;
  /** Limit for one request, response body included, in milliseconds. */
  readonly timeoutMs: number;
  /** Marks what this run creates (pet tags), so that staging data made by the suite is recognisable. */
  readonly runId: string;
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

/**
 * The edge where configuration enters: argv (node:util parseArgs, strict), then the environment,
 * then the defaults. Nothing else in the project reads argv or process.env for a run.
 */
import { randomBytes, randomInt } from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PREFIX_PATTERN, parsePrefixes } from '../../catalog/select.ts';
import type { Config } from '../../suites/harness/config.ts';
import { MAX_RETRIES } from '../../suites/harness/retry.ts';
import { UsageError } from '../record/errors.ts';
import { NetworkOptionError, resolveNetwork } from './network.ts';

/** The environment variables the command reads; nothing else of the environment matters. */
export const ENV = {
  baseUrl: 'PETSTORE_BASE_URL',
  apiKey: 'PETSTORE_API_KEY',
  productionUrl: 'PETSTORE_PRODUCTION_URL',
  stagingUrl: 'PETSTORE_STAGING_URL',
} as const;

export const DEFAULTS = {
  apiKeyHeader: 'X-API-Key',
  timeoutMs: 10_000,
  reportDir: path.join('reports', 'latest'),
} as const;

const MAX_SEED = 2 ** 31 - 1;
const MAX_TIMEOUT_MS = 600_000;

const OPTION_SPEC = {
  'base-url': { type: 'string' },
  target: { type: 'string' },
  'api-key': { type: 'string' },
  'api-key-header': { type: 'string' },
  'api-key-query': { type: 'string' },
  'auth-required': { type: 'boolean' },
  'read-only': { type: 'boolean' },
  strict: { type: 'boolean' },
  only: { type: 'string', multiple: true },
  exclude: { type: 'string', multiple: true },
  seed: { type: 'string' },
  'timeout-ms': { type: 'string' },
  retries: { type: 'string' },
  'max-response-time': { type: 'string' },
  'report-dir': { type: 'string' },
  html: { type: 'boolean' },
  baseline: { type: 'string' },
  expected: { type: 'string' },
  proxy: { type: 'string' },
  'ca-cert': { type: 'string' },
  insecure: { type: 'boolean' },
  'client-cert': { type: 'string' },
  'client-key': { type: 'string' },
  annotations: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

/** Where the run points: the bundled reference implementation, or a deployment's base URL. */
export type Target =
  | { readonly kind: 'reference' }
  | { readonly kind: 'url'; readonly baseUrl: string; readonly from: string };

/** Everything of a run except the base URL of the reference, which is known once it listens. */
export interface RunPlan {
  readonly target: Target;
  /** The Config without its baseUrl (filled in by withBaseUrl once the target is known). */
  readonly config: Omit<Config, 'baseUrl'>;
  /** Absolute. */
  readonly reportDir: string;
  /** Absolute: where the previous run's reports are moved (beside reportDir). */
  readonly previousReportDir: string;
  readonly html: boolean;
  /** --baseline: the summary.json (or report folder) whose failures do not fail this run; as given. */
  readonly baseline?: string;
  /** --expected: the file of expected deviations (YAML or JSON), as given. */
  readonly expected?: string;
  /** Things worth saying before the run that do not stop it. */
  readonly warnings: readonly string[];
  /** `github`: one ::error line per failed gating requirement (--annotations, or GITHUB_ACTIONS=true). */
  readonly annotations?: 'github';
  /** One line on the proxy and TLS settings in force, printed at the start; none when there are none. */
  readonly networkLine?: string;
}

export type Invocation =
  | { readonly kind: 'help' }
  | { readonly kind: 'version' }
  | ({ kind: 'run' } & RunPlan);

/** Parses argv and the environment into what to do; throws UsageError for anything that cannot run. */
export function parseInvocation(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): Invocation {
  let values: ReturnType<typeof parse>['values'];
  try {
    ({ values } = parse(argv));
  } catch (error) {
    throw new UsageError(parseArgsMessage(error));
  }
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };

  const warnings: string[] = [];
  const target = resolveTarget(values['base-url'], values.target, env, warnings);

  const apiKey = nonEmpty(values['api-key'], '--api-key') ?? envValue(env, ENV.apiKey);
  const apiKeyQuery = nonEmpty(values['api-key-query'], '--api-key-query');
  const headerFlag = nonEmpty(values['api-key-header'], '--api-key-header');
  if (apiKeyQuery !== undefined && headerFlag !== undefined) {
    throw new UsageError(
      '--api-key-header and --api-key-query exclude each other: the key travels in one place',
    );
  }
  const apiKeyHeader = headerFlag ?? DEFAULTS.apiKeyHeader;
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(apiKeyHeader)) {
    throw new UsageError(
      `--api-key-header must be an HTTP header name (letters, digits, -), got "${apiKeyHeader}"`,
    );
  }
  if (apiKey !== undefined && /[\r\n]/.test(apiKey)) {
    throw new UsageError('the API key must not contain a line break');
  }
  const authRequired = values['auth-required'] ?? false;
  if (authRequired && apiKey === undefined && target.kind === 'reference') {
    throw new UsageError(
      `--auth-required against the bundled reference implementation needs --api-key (or ${ENV.apiKey}): the reference requires a key only when given one`,
    );
  }
  if (authRequired && apiKey === undefined) {
    warnings.push(
      `--auth-required without an API key: only the refusal checks (no key, a wrong key) can pass; every other check runs without a key (set --api-key or ${ENV.apiKey})`,
    );
  }

  const only = prefixes(values.only, '--only');
  const exclude = prefixes(values.exclude, '--exclude');

  const seed =
    values.seed === undefined ? randomInt(0, MAX_SEED + 1) : parseInteger(values.seed, '--seed', 0, MAX_SEED);
  const timeoutMs =
    values['timeout-ms'] === undefined
      ? DEFAULTS.timeoutMs
      : parseInteger(values['timeout-ms'], '--timeout-ms', 1, MAX_TIMEOUT_MS);

  const retries =
    values.retries === undefined ? 0 : parseInteger(values.retries, '--retries', 0, MAX_RETRIES);

  const maxResponseTimeMs =
    values['max-response-time'] === undefined
      ? undefined
      : parseInteger(values['max-response-time'], '--max-response-time', 1, MAX_TIMEOUT_MS);

  const reportDirFlag = nonEmpty(values['report-dir'], '--report-dir');
  const reportDir = path.resolve(cwd, reportDirFlag ?? DEFAULTS.reportDir);
  if (reportDir === path.parse(reportDir).root || reportDir === path.resolve(cwd)) {
    throw new UsageError(`--report-dir must be a folder of its own, not ${reportDir}`);
  }

  let network: ReturnType<typeof resolveNetwork>;
  try {
    network = resolveNetwork(values, env, cwd, target.kind === 'url' ? target.baseUrl : undefined);
  } catch (error) {
    if (error instanceof NetworkOptionError) throw new UsageError(error.message);
    throw error;
  }
  warnings.push(...network.warnings);
  const annotations = values.annotations ?? (env.GITHUB_ACTIONS === 'true' ? 'github' : 'none');
  if (annotations !== 'github' && annotations !== 'none') {
    throw new UsageError(`--annotations takes github or none, got "${annotations}"`);
  }

  const config: Omit<Config, 'baseUrl'> = {
    ...(apiKey === undefined ? {} : { apiKey }),
    apiKeyHeader,
    ...(apiKeyQuery === undefined ? {} : { apiKeyQuery }),
    authRequired,
    readOnly: values['read-only'] ?? false,
    strict: values.strict ?? false,
    only,
    exclude,
    seed,
    timeoutMs,
    retries,
    ...(maxResponseTimeMs === undefined ? {} : { maxResponseTimeMs }),
    runId: randomBytes(4).toString('hex'),
    ...(network.network === undefined ? {} : { network: network.network }),
  };
  return {
    kind: 'run',
    target,
    config,
    reportDir,
    previousReportDir: previousDirOf(reportDir),
    html: values.html ?? false,
    ...(values.baseline === undefined ? {} : { baseline: nonEmpty(values.baseline, '--baseline')! }),
    ...(values.expected === undefined ? {} : { expected: nonEmpty(values.expected, '--expected')! }),
    warnings,
    ...(annotations === 'github' ? { annotations } : {}),
    ...(network.summary === undefined ? {} : { networkLine: network.summary }),
  };
}

/** The one frozen Config of a run, once the base URL is known. */
export function withBaseUrl(config: Omit<Config, 'baseUrl'>, baseUrl: string): Config {
  return Object.freeze({
    ...config,
    baseUrl,
    only: Object.freeze([...config.only]),
    exclude: Object.freeze([...config.exclude]),
  });
}

/**
 * Where the previous run's reports go: reports/latest keeps its predecessor in reports/previous,
 * any other folder X in X.previous beside it.
 */
export function previousDirOf(reportDir: string): string {
  const base = path.basename(reportDir);
  return path.join(path.dirname(reportDir), base === 'latest' ? 'previous' : `${base}.previous`);
}

/**
 * A base URL as the suites want it: http or https, no credentials, query or fragment, no trailing
 * slash. Pushes a warning when the path does not end with /v1, the documented prefix.
 */
export function normalizeBaseUrl(raw: string, from: string, warnings: string[]): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${from} is not a URL: "${raw}" (expected a form like http://localhost:8080/v1)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(
      `${from} must be an http or https URL, got "${url.protocol}" (e.g. http://localhost:8080/v1)`,
    );
  }
  if (url.username || url.password) {
    throw new UsageError(`${from} must not carry credentials; pass the key with --api-key or ${ENV.apiKey}`);
  }
  if (url.search || url.hash) {
    throw new UsageError(
      `${from} must not have a query or a fragment: give the base address only, e.g. ${url.origin}/v1`,
    );
  }
  const pathname = url.pathname.replace(/\/+$/, '');
  if (!/\/v1$/.test(pathname)) {
    warnings.push(
      `${from} ${url.origin}${pathname} does not end with /v1; the service is served under /v1 (expected a form like ${url.origin}${pathname}/v1)`,
    );
  }
  return `${url.origin}${pathname}`;
}

function parse(argv: readonly string[]) {
  return parseArgs({ args: [...argv], options: OPTION_SPEC, strict: true, allowPositionals: false });
}

function resolveTarget(
  baseUrlFlag: string | undefined,
  targetFlag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  warnings: string[],
): Target {
  if (baseUrlFlag !== undefined && targetFlag !== undefined) {
    throw new UsageError('--base-url and --target exclude each other: give one');
  }
  if (baseUrlFlag !== undefined) {
    const raw = nonEmpty(baseUrlFlag, '--base-url')!;
    return { kind: 'url', baseUrl: normalizeBaseUrl(raw, '--base-url', warnings), from: '--base-url' };
  }
  if (targetFlag !== undefined) {
    const variable =
      targetFlag === 'production' ? ENV.productionUrl : targetFlag === 'staging' ? ENV.stagingUrl : undefined;
    if (!variable) throw new UsageError(`--target takes production or staging, got "${targetFlag}"`);
    const raw = envValue(env, variable);
    if (raw === undefined) {
      throw new UsageError(
        `--target ${targetFlag} needs ${variable}: set it to the deployment's base URL (…/v1)`,
      );
    }
    return {
      kind: 'url',
      baseUrl: normalizeBaseUrl(raw, variable, warnings),
      from: `--target ${targetFlag}`,
    };
  }
  const fromEnv = envValue(env, ENV.baseUrl);
  if (fromEnv !== undefined) {
    return { kind: 'url', baseUrl: normalizeBaseUrl(fromEnv, ENV.baseUrl, warnings), from: ENV.baseUrl };
  }
  return { kind: 'reference' };
}

/** --only and --exclude: comma-separated requirement id prefixes, any case (see catalog/select.ts). */
function prefixes(values: readonly string[] | undefined, flag: string): string[] {
  const list = parsePrefixes(values ?? []);
  for (const prefix of list) {
    if (!PREFIX_PATTERN.test(prefix)) {
      throw new UsageError(
        `${flag} takes requirement id prefixes such as LIST or CREATE-OK (see petstore-conformance requirements), got "${prefix}"`,
      );
    }
  }
  return list;
}

function parseInteger(raw: string, flag: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw.trim()))
    throw new UsageError(`${flag} takes a whole number from ${min} to ${max}, got "${raw}"`);
  const n = Number(raw.trim());
  if (n < min || n > max)
    throw new UsageError(`${flag} takes a whole number from ${min} to ${max}, got ${raw}`);
  return n;
}

function nonEmpty(value: string | undefined, flag: string): string | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === '') throw new UsageError(`${flag} needs a value`);
  return value;
}

function envValue(env: Readonly<Record<string, string | undefined>>, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value;
}

/** parseArgs errors name the option already; keep the first line and drop Node's error code. */
function parseArgsMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const first = message.split('\n')[0] ?? message;
  const unknown = /Unknown option '([^']+)'/.exec(first);
  if (unknown) return `unknown option ${unknown[1]}`;
  const needsValue = /Option '([^']+)' argument missing/.exec(first);
  if (needsValue) return `${needsValue[1]?.replace(/^-\w, /, '')} needs a value`;
  const positional = /Unexpected argument '([^']+)'/.exec(first);
  if (positional) return `unexpected argument "${positional[1]}": every setting is an --option`;
  return first.replace(/\. To specify .*$/, '');
}

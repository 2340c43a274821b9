/**
 * The edge where configuration enters: argv (node:util parseArgs, strict), then the environment,
 * then the defaults. Nothing else in the project reads argv or process.env for a run.
 */
import { randomBytes, randomInt } from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { packageVersion } from '../../catalog/paths.ts';
import { PREFIX_PATTERN, parsePrefixes } from '../../catalog/select.ts';
import type { Config } from '../../suites/harness/config/config.ts';
import { shortKeyWarning } from '../../suites/harness/evidence/keys.ts';
import { MAX_RETRIES } from '../../suites/harness/http/retry.ts';
import { newTraceId } from '../../suites/harness/http/trace.ts';
import { UsageError } from '../record/errors.ts';
import {
  CONFIG_NAMES,
  type ConfigFile,
  type FileSettings,
  findConfigFile,
  readConfigFile,
} from './config-file.ts';
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
/** --rate-limit: requests a second at most (a run's own pace unlimited above it, on loopback). */
const MAX_RATE_LIMIT = 100_000;
/** --concurrency: requests in flight at most (each a connection of its own). */
const MAX_CONCURRENCY = 1_024;

/** One option of a run: how parseArgs reads it, and what it takes as a key of the config file. */
export interface OptionDef {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  readonly multiple?: boolean;
  /** In a config file: a whole number (a number or digits), or a path (relative to the file's folder). */
  readonly value?: 'integer' | 'path';
  /** false: not a key of the config file. */
  readonly file?: false;
}

/**
 * The one table of a run's options. parseArgs reads argv with it, and the config file's keys are
 * derived from it (config-file.ts: each long option in camelCase): an option added here is a key
 * there, and test/cli/config-file.test.ts fails until schemas/config.schema.json describes it.
 * Every boolean also reads --no-<name> (parseArgs allowNegative), to turn off what a file turned on.
 */
export const OPTIONS = {
  'base-url': { type: 'string' },
  target: { type: 'string' },
  'api-key': { type: 'string' },
  'api-key-header': { type: 'string' },
  'api-key-query': { type: 'string' },
  'api-key-scheme': { type: 'string' },
  'auth-required': { type: 'boolean' },
  'read-only': { type: 'boolean' },
  strict: { type: 'boolean' },
  only: { type: 'string', multiple: true },
  exclude: { type: 'string', multiple: true },
  seed: { type: 'string', value: 'integer' },
  'timeout-ms': { type: 'string', value: 'integer' },
  retries: { type: 'string', value: 'integer' },
  'max-response-time': { type: 'string', value: 'integer' },
  'rate-limit': { type: 'string', value: 'integer' },
  concurrency: { type: 'string', value: 'integer' },
  'request-id-header': { type: 'string' },
  'trace-headers': { type: 'boolean' },
  'report-dir': { type: 'string', value: 'path' },
  html: { type: 'boolean' },
  har: { type: 'boolean' },
  events: { type: 'string', value: 'path' },
  baseline: { type: 'string', value: 'path' },
  expected: { type: 'string', value: 'path' },
  proxy: { type: 'string' },
  'ca-cert': { type: 'string', value: 'path' },
  insecure: { type: 'boolean' },
  'client-cert': { type: 'string', value: 'path' },
  'client-key': { type: 'string', value: 'path' },
  annotations: { type: 'string' },
  config: { type: 'string', value: 'path', file: false },
  help: { type: 'boolean', short: 'h', file: false },
  version: { type: 'boolean', short: 'v', file: false },
} as const satisfies Readonly<Record<string, OptionDef>>;

export type OptionName = keyof typeof OPTIONS;

/** Where the run points: the bundled reference implementation, or a deployment's base URL. */
export type Target =
  | { readonly kind: 'reference' }
  | { readonly kind: 'url'; readonly baseUrl: string; readonly from: string };

/** Everything of a run except the base URL of the reference, which is known once it listens. */
export interface RunPlan {
  /** The working folder: the paths given as typed (--baseline, --expected) are read against it. */
  readonly cwd: string;
  readonly target: Target;
  /** The Config without its baseUrl (target.ts fills it in once the target is open). */
  readonly config: Omit<Config, 'baseUrl'>;
  /** Absolute. */
  readonly reportDir: string;
  /** Absolute: where the previous run's reports are moved (beside reportDir). */
  readonly previousReportDir: string;
  readonly html: boolean;
  /** Write <report-dir>/exchanges.har (on unless --no-har or `har: false`). */
  readonly har: boolean;
  /** --events: where the run's events go, one JSON object a line: '-' for stdout, else an absolute path. */
  readonly events?: string;
  /** The config file read, as the user would type it; none when no file was read. */
  readonly configFile?: string;
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

type Env = Readonly<Record<string, string | undefined>>;
type Flags = ReturnType<typeof parse>['values'];

/**
 * Where each setting comes from: the flag, else its environment variable (for the few that have
 * one), else the config file, else the default (CONTRACT.md). `label` names the source in messages.
 */
interface Sources {
  readonly flags: Flags;
  readonly env: Env;
  readonly file: FileSettings | undefined;
}

/** A setting and where it came from ("--seed", "PETSTORE_API_KEY", "seed in petstore-conformance.config.yaml"). */
interface Setting<T> {
  readonly value: T;
  readonly label: string;
}

function setting<N extends OptionName>(
  sources: Sources,
  name: N,
  variable?: string,
): Setting<NonNullable<Flags[N]>> | undefined {
  const flag = sources.flags[name];
  if (flag !== undefined) return { value: flag as NonNullable<Flags[N]>, label: `--${name}` };
  const fromEnv = variable === undefined ? undefined : envValue(sources.env, variable);
  if (fromEnv !== undefined) return { value: fromEnv as NonNullable<Flags[N]>, label: variable! };
  const fromFile = sources.file?.values[name];
  if (fromFile !== undefined)
    return { value: fromFile as NonNullable<Flags[N]>, label: sources.file!.label(name) };
  return undefined;
}

/** Parses argv, the environment and the config file into what to do; throws UsageError for anything that cannot run. */
export function parseInvocation(argv: readonly string[], env: Env, cwd: string): Invocation {
  let flags: Flags;
  try {
    ({ values: flags } = parse(argv));
  } catch (error) {
    throw new UsageError(parseArgsMessage(error));
  }
  if (flags.help) return { kind: 'help' };
  if (flags.version) return { kind: 'version' };

  const configPath = findConfigFile(flags.config, cwd);
  const configFile = configPath === undefined ? undefined : readConfigFile(configPath, cwd, env, OPTIONS);
  const sources = chooseTarget(flags, env, configFile);
  const warnings: string[] = [];
  const target = resolveTarget(sources, configFile, warnings);

  const text = (name: OptionName, variable?: string): Setting<string> | undefined => {
    const found = setting(sources, name, variable);
    if (found === undefined) return undefined;
    if (typeof found.value !== 'string' || found.value.trim() === '')
      throw new UsageError(`${found.label} needs a value`);
    return found as Setting<string>;
  };
  const bool = (name: OptionName): boolean | undefined => {
    const found = setting(sources, name);
    return found === undefined ? undefined : found.value === true;
  };

  const apiKey = text('api-key', ENV.apiKey)?.value;
  const query = text('api-key-query');
  const header = text('api-key-header');
  const scheme = text('api-key-scheme');
  const carriers = [query, header, scheme].filter((c) => c !== undefined);
  if (carriers.length > 1) {
    throw new UsageError(
      `${carriers.map((c) => c.label).join(' and ')} exclude each other: the key travels in one place (--api-key-header, --api-key-query, or Authorization with --api-key-scheme)`,
    );
  }
  const apiKeyHeader = header?.value ?? DEFAULTS.apiKeyHeader;
  if (!TOKEN.test(apiKeyHeader)) {
    throw new UsageError(
      `${header?.label ?? '--api-key-header'} must be an HTTP header name (letters, digits, -), got "${apiKeyHeader}"`,
    );
  }
  if (scheme !== undefined && !TOKEN.test(scheme.value)) {
    throw new UsageError(
      `${scheme.label} must be an authentication scheme (a word such as Bearer, ApiKey or Token), got "${scheme.value}"`,
    );
  }
  if (apiKey !== undefined && /[\r\n]/.test(apiKey)) {
    throw new UsageError('the API key must not contain a line break');
  }
  const authRequired = bool('auth-required') ?? false;
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
  if (scheme !== undefined && apiKey === undefined) {
    warnings.push(`${scheme.label} without an API key: no Authorization header is sent`);
  }
  const shortKey = shortKeyWarning(apiKey);
  if (shortKey !== undefined) warnings.push(shortKey);

  const only = prefixes(setting(sources, 'only'));
  const exclude = prefixes(setting(sources, 'exclude'));

  /** A whole-number setting from `min` to `max`; undefined when not set. */
  const integer = (name: OptionName, min: number, max: number): number | undefined => {
    const found = text(name);
    return found === undefined ? undefined : parseInteger(found.value, found.label, min, max);
  };
  const seed = integer('seed', 0, MAX_SEED) ?? randomInt(0, MAX_SEED + 1);
  const timeoutMs = integer('timeout-ms', 1, MAX_TIMEOUT_MS) ?? DEFAULTS.timeoutMs;
  const retries = integer('retries', 0, MAX_RETRIES) ?? 0;
  const maxResponseTimeMs = integer('max-response-time', 1, MAX_TIMEOUT_MS);
  const rateLimit = integer('rate-limit', 1, MAX_RATE_LIMIT);
  const concurrency = integer('concurrency', 1, MAX_CONCURRENCY);
  const traceHeaders = bool('trace-headers') ?? true;
  const requestIdHeader = text('request-id-header');
  if (requestIdHeader !== undefined && !TOKEN.test(requestIdHeader.value)) {
    throw new UsageError(
      `${requestIdHeader.label} must be an HTTP header name (letters, digits, -), got "${requestIdHeader.value}"`,
    );
  }
  if (requestIdHeader !== undefined && !traceHeaders) {
    warnings.push(`${requestIdHeader.label} with --no-trace-headers: no request id is sent`);
  }

  const reportDirSetting = text('report-dir');
  const reportDir = path.resolve(cwd, reportDirSetting?.value ?? DEFAULTS.reportDir);
  if (reportDir === path.parse(reportDir).root || reportDir === path.resolve(cwd)) {
    throw new UsageError(
      `${reportDirSetting?.label ?? '--report-dir'} must be a folder of its own, not ${reportDir}`,
    );
  }
  const previousReportDir = previousDirOf(reportDir);

  const eventsSetting = text('events');
  let events: string | undefined;
  if (eventsSetting !== undefined) {
    events = eventsSetting.value === '-' ? '-' : path.resolve(cwd, eventsSetting.value);
    for (const dir of [reportDir, previousReportDir]) {
      if (events !== '-' && (events === dir || events.startsWith(`${dir}${path.sep}`))) {
        throw new UsageError(
          `${eventsSetting.label} ${eventsSetting.value}: the events file cannot be inside the report folder ${dir}, which every run replaces`,
        );
      }
    }
  }

  // flag, then HTTP(S)_PROXY, then the file (network.ts reads the environment's proxies itself).
  const proxyFlag = sources.flags.proxy;
  const fileProxy =
    proxyFlag === undefined && !PROXY_VARIABLES.some((v) => envValue(env, v) !== undefined)
      ? text('proxy')
      : undefined;
  const networkFlags = {
    proxy: proxyFlag ?? fileProxy?.value,
    'ca-cert': text('ca-cert')?.value,
    insecure: bool('insecure'),
    'client-cert': text('client-cert')?.value,
    'client-key': text('client-key')?.value,
  };
  let network: ReturnType<typeof resolveNetwork>;
  try {
    network = resolveNetwork(
      networkFlags,
      env,
      cwd,
      target.kind === 'url' ? target.baseUrl : undefined,
      fileProxy?.label,
    );
  } catch (error) {
    if (error instanceof NetworkOptionError) throw new UsageError(error.message);
    throw error;
  }
  warnings.push(...network.warnings);
  const annotationsSetting = text('annotations');
  const annotations = annotationsSetting?.value ?? (env.GITHUB_ACTIONS === 'true' ? 'github' : 'none');
  if (annotations !== 'github' && annotations !== 'none') {
    throw new UsageError(
      `${annotationsSetting?.label ?? '--annotations'} takes github or none, got "${annotations}"`,
    );
  }
  const baseline = text('baseline')?.value;
  const expected = text('expected')?.value;

  const config: Omit<Config, 'baseUrl'> = {
    ...(apiKey === undefined ? {} : { apiKey }),
    apiKeyHeader,
    ...(query === undefined ? {} : { apiKeyQuery: query.value }),
    ...(scheme === undefined ? {} : { apiKeyScheme: scheme.value }),
    authRequired,
    readOnly: bool('read-only') ?? false,
    strict: bool('strict') ?? false,
    only,
    exclude,
    seed,
    timeoutMs,
    retries,
    ...(maxResponseTimeMs === undefined ? {} : { maxResponseTimeMs }),
    ...(rateLimit === undefined ? {} : { rateLimit }),
    ...(concurrency === undefined ? {} : { concurrency }),
    runId: randomBytes(4).toString('hex'),
    userAgent: `petstore-conformance/${packageVersion()}`,
    ...(traceHeaders ? { traceId: newTraceId() } : {}),
    ...(traceHeaders && requestIdHeader !== undefined ? { requestIdHeader: requestIdHeader.value } : {}),
    ...(network.network === undefined ? {} : { network: network.network }),
  };
  return {
    kind: 'run',
    cwd,
    target,
    config,
    reportDir,
    previousReportDir,
    html: bool('html') ?? false,
    har: bool('har') ?? true,
    ...(events === undefined ? {} : { events }),
    ...(configFile === undefined ? {} : { configFile: configFile.shown }),
    ...(baseline === undefined ? {} : { baseline }),
    ...(expected === undefined ? {} : { expected }),
    warnings,
    ...(annotations === 'github' ? { annotations } : {}),
    ...(network.summary === undefined ? {} : { networkLine: network.summary }),
  };
}

/** An HTTP token (RFC 9110 §5.6.2): a header name, an authentication scheme. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The environment's proxy variables (network.ts): any of them set wins over a config file's proxy. */
const PROXY_VARIABLES = ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY'];

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
  return parseArgs({
    args: [...argv],
    options: OPTIONS,
    strict: true,
    allowPositionals: false,
    allowNegative: true,
  });
}

/**
 * The target a run's settings come from, and with it the config file's settings: the top level of
 * the file, with `targets[name]` over it when a target is chosen. The target is --target, else the
 * file's `target` unless --base-url or PETSTORE_BASE_URL points elsewhere.
 */
function chooseTarget(flags: Flags, env: Env, file: ConfigFile | undefined): Sources {
  if (file === undefined) return { flags, env, file: undefined };
  const elsewhere = flags['base-url'] !== undefined || envValue(env, ENV.baseUrl) !== undefined;
  const name = flags.target ?? (elsewhere ? undefined : file.defaultTarget());
  return { flags, env, file: file.settings(name) };
}

/**
 * The deployment: --base-url; else --target (its URL from PETSTORE_PRODUCTION_URL or
 * PETSTORE_STAGING_URL, else from the file's `targets`); else PETSTORE_BASE_URL; else the file's
 * baseUrl or target; else the bundled reference.
 */
function resolveTarget(sources: Sources, file: ConfigFile | undefined, warnings: string[]): Target {
  const { flags, env } = sources;
  const fileValues = sources.file?.values ?? {};
  if (flags['base-url'] !== undefined && flags.target !== undefined) {
    throw new UsageError('--base-url and --target exclude each other: give one');
  }
  const url = (raw: string, label: string, from: string): Target => ({
    kind: 'url',
    baseUrl: normalizeBaseUrl(raw, label, warnings),
    from,
  });
  if (flags['base-url'] !== undefined) {
    return url(nonEmpty(flags['base-url'], '--base-url')!, '--base-url', '--base-url');
  }
  /** A named target, chosen by `how` ("--target", or the file's `target`). */
  const named = (name: string, how: string): Target => {
    const variable =
      name === 'production' ? ENV.productionUrl : name === 'staging' ? ENV.stagingUrl : undefined;
    const fromEnv = variable === undefined ? undefined : envValue(env, variable);
    if (fromEnv !== undefined) return url(fromEnv, variable!, how);
    const inFile = file?.targets.includes(name) ? fileValues['base-url'] : undefined;
    if (typeof inFile === 'string') {
      const from = how.includes(file!.shown) ? how : `${how}, ${file!.shown}`;
      return url(inFile, sources.file!.label('base-url'), from);
    }
    const ways = [
      ...(variable ? [`set ${variable} to the deployment's base URL (…/v1)`] : []),
      file
        ? `give targets.${name}.baseUrl in ${file.shown}${file.targets.length ? ` (its targets: ${file.targets.join(', ')})` : ''}`
        : `name it under targets in a config file (${CONFIG_NAMES[0]})`,
    ];
    const without = variable || file ? '' : '; without a config file, --target takes production or staging';
    throw new UsageError(`${how} needs a base URL: ${ways.join(', or ')}${without}`);
  };
  if (flags.target !== undefined) {
    const name = nonEmpty(flags.target, '--target')!;
    return named(name, `--target ${name}`);
  }
  const fromEnv = envValue(env, ENV.baseUrl);
  if (fromEnv !== undefined) return url(fromEnv, ENV.baseUrl, ENV.baseUrl);
  const fileUrl = fileValues['base-url'];
  const fileTarget = fileValues.target;
  if (typeof fileTarget === 'string') {
    if (file!.topLevel.has('base-url'))
      throw new UsageError(`baseUrl and target in ${file!.shown} exclude each other: give one`);
    return named(fileTarget, `target ${fileTarget} in ${file!.shown}`);
  }
  if (typeof fileUrl === 'string') return url(fileUrl, sources.file!.label('base-url'), file!.shown);
  return { kind: 'reference' };
}

/** --only and --exclude: comma-separated requirement id prefixes, any case (see catalog/select.ts). */
function prefixes(given: Setting<string | boolean | string[]> | undefined): string[] {
  const values = given === undefined ? [] : Array.isArray(given.value) ? given.value : [String(given.value)];
  const list = parsePrefixes(values);
  for (const prefix of list) {
    if (!PREFIX_PATTERN.test(prefix)) {
      throw new UsageError(
        `${given!.label} takes requirement id prefixes such as LIST or CREATE-OK (see petstore-conformance requirements), got "${prefix}"`,
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

function envValue(env: Env, name: string): string | undefined {
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

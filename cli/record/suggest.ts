/**
 * A command a run suggests (issue 36: "rerun with --rate-limit 2" was typed as the rerun subcommand,
 * which refuses the option): the whole command line of a run made as this one was, with a setting
 * changed, that runs as printed. Built from what the run used (its Config), never from argv, so that
 * no key is ever in it: the key comes from PETSTORE_API_KEY, as the README has it.
 */
import type { Config } from '../../suites/harness/config/config.ts';
import { shellQuote } from '../../suites/harness/evidence/exchange.ts';
import { NAME } from './command.ts';

/** What a run was made of, for the command that makes it again. */
export interface RunMade {
  readonly config: Config;
  /** The base URL checked. */
  readonly target: string;
  /** How it was chosen: "--base-url", "--target staging", "bundled reference implementation, …". */
  readonly targetFrom: string;
  /** The config file read, as given. */
  readonly configFile?: string;
}

/** A flag and its value, or a switch (`true`); undefined leaves the flag out. */
type Flags = Readonly<Record<string, string | number | true | undefined>>;

/**
 * `npx petstore-conformance --base-url … --seed … <the run's settings> <changed>`: the settings
 * that decide what is sent and judged, each as its flag (the config file named when one was read),
 * with `changed` over them. Runs as printed, with the key in PETSTORE_API_KEY.
 */
export function runAgainCommand(run: RunMade, changed: Flags): string {
  const { config } = run;
  const target = run.targetFrom.startsWith('bundled reference')
    ? {}
    : run.targetFrom.startsWith('--target ')
      ? { target: run.targetFrom.slice('--target '.length) }
      : { 'base-url': run.target };
  const flags: Flags = {
    ...(run.configFile === undefined ? {} : { config: run.configFile }),
    ...target,
    seed: config.seed,
    strict: config.strict || undefined,
    'read-only': config.readOnly || undefined,
    'auth-required': config.authRequired || undefined,
    only: config.only.length > 0 ? config.only.join(',') : undefined,
    exclude: config.exclude.length > 0 ? config.exclude.join(',') : undefined,
    'timeout-ms': config.timeoutMs,
    retries: config.retries || undefined,
    concurrency: config.concurrency,
    'rate-limit': config.rateLimit,
    'api-key-header':
      config.apiKeyQuery === undefined && config.apiKeyScheme === undefined ? config.apiKeyHeader : undefined,
    'api-key-query': config.apiKeyQuery,
    'api-key-scheme': config.apiKeyScheme,
    'request-id-header': config.requestIdHeader,
    'max-response-time': config.maxResponseTimeMs,
    ...changed,
  };
  const words = Object.entries(flags).flatMap(([name, value]) =>
    value === undefined ? [] : value === true ? [`--${name}`] : [`--${name}`, wordOf(value)],
  );
  return ['npx', NAME, ...words].join(' ');
}

/** A value as one shell word: quoted unless it is plain. */
function wordOf(value: string | number): string {
  const text = String(value);
  return /^[\w.,:/@%+=-]+$/.test(text) ? text : shellQuote(text);
}

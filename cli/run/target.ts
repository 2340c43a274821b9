/**
 * Stage 3 of a run: the target. The bundled reference implementation, started on a free loopback
 * port, or a deployment that must at least accept a TCP connection (else the run cannot judge).
 * Whether a deployment does is asked while the checks start (`reachable`), not before them: a
 * deployment 200 ms away would otherwise keep every run waiting two round trips more.
 */
import type { Config } from '../../suites/harness/config/config.ts';
import type { Dependencies, ReferenceOptions } from './dependencies.ts';
import type { RunPlan } from './options.ts';
import { checkReachable } from './reachable.ts';
import { mark, STAGE } from './timeline.ts';

export interface OpenTarget {
  /** The base URL the suites send to, without a trailing slash. */
  readonly baseUrl: string;
  /** How it was chosen, for the console: "--base-url", "bundled reference implementation, …". */
  readonly from: string;
  /** The run's one Config, its base URL this target's. */
  readonly config: Config;
  /**
   * Settles once the target is known to accept connections (at once for the reference); rejects with
   * CannotJudgeError when it does not, and the run, whose checks started meanwhile, cannot judge.
   */
  readonly reachable: Promise<void>;
  /** Stops what this stage started (the reference); bounded in time, never rejects. */
  close(): Promise<void>;
}

/**
 * Starts the reference, or names the deployment and starts asking whether it is reachable (its
 * `reachable` rejects with CannotJudgeError when not).
 */
export async function openTarget(
  options: Pick<RunPlan, 'target' | 'config'>,
  deps: Pick<Dependencies, 'startReference'>,
): Promise<OpenTarget> {
  const { target, config } = options;
  mark(STAGE.targetOpening);
  if (target.kind === 'url') {
    const reachable = checkReachable(target.baseUrl, Math.min(config.timeoutMs, 10_000), config.network).then(
      () => mark(STAGE.targetOpen),
    );
    // Awaited by the run once its checks are under way; until then, a rejection is not unhandled.
    reachable.catch(() => undefined);
    return {
      baseUrl: target.baseUrl,
      from: target.from,
      config: withBaseUrl(config, target.baseUrl),
      reachable,
      close: async () => undefined,
    };
  }
  const reference = await deps.startReference({
    port: 0,
    host: '127.0.0.1',
    ...referenceKey(config),
  });
  mark(STAGE.targetOpen);
  const baseUrl = reference.url.replace(/\/+$/, '');
  return {
    baseUrl,
    from: 'bundled reference implementation, started for this run',
    config: withBaseUrl(config, baseUrl),
    reachable: Promise.resolve(),
    close: () => withinMs(5_000, reference.close()),
  };
}

/** The one frozen Config of a run, once the base URL is known. */
function withBaseUrl(config: Omit<Config, 'baseUrl'>, baseUrl: string): Config {
  return Object.freeze({
    ...config,
    baseUrl,
    only: Object.freeze([...config.only]),
    exclude: Object.freeze([...config.exclude]),
  });
}

async function withinMs(ms: number, promise: Promise<unknown>): Promise<void> {
  await Promise.race([promise.catch(() => undefined), new Promise((r) => setTimeout(r, ms).unref())]);
}

/**
 * The key the reference requires, where the run sends it. With --api-key-scheme the reference
 * requires the whole Authorization value, "<scheme> <key>", as it requires any key header's value.
 */
function referenceKey(
  config: RunPlan['config'],
): Pick<ReferenceOptions, 'apiKey' | 'apiKeyHeader' | 'apiKeyQuery'> {
  if (config.apiKeyQuery !== undefined)
    return {
      ...(config.apiKey === undefined ? {} : { apiKey: config.apiKey }),
      apiKeyQuery: config.apiKeyQuery,
    };
  if (config.apiKeyScheme !== undefined) {
    return {
      ...(config.apiKey === undefined ? {} : { apiKey: `${config.apiKeyScheme} ${config.apiKey}` }),
      apiKeyHeader: 'Authorization',
    };
  }
  return {
    ...(config.apiKey === undefined ? {} : { apiKey: config.apiKey }),
    apiKeyHeader: config.apiKeyHeader,
  };
}

/**
 * What the CLI runs: the reference implementation (when no target is given) and the suites' vitest
 * options. Kept behind one seam so that main() can be driven by tests of its own.
 */

import { startReferenceServer } from '../reference-impl/index.ts';
import { packageRoot, packageVersion } from '../spec/paths.ts';
import type { Config } from '../suites/harness/config.ts';
import { suiteVitestOptions } from '../suites/vitest.shared.ts';
import type { VitestOptions } from './run.ts';

export interface ReferenceServer {
  /** http://127.0.0.1:PORT/v1 */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export interface ReferenceOptions {
  readonly port?: number;
  readonly host?: string;
  readonly apiKey?: string;
  readonly apiKeyHeader?: string;
  readonly apiKeyQuery?: string;
}

export interface Dependencies {
  startReference(options: ReferenceOptions): Promise<ReferenceServer>;
  /**
   * The suites' vitest options (root, include, setup files, timeouts, provide) without reporters;
   * `openapi` is spec/openapi.yaml as the preflight validated and dereferenced it.
   */
  suiteVitestOptions(config: Config, openapi?: object): VitestOptions;
  /** The package root: suite files are named relative to it. */
  root(): string;
  version(): string;
  /** Time allowed for vitest to start and collect the first suite file; default 60 s. */
  readonly startupMs?: number;
}

export const defaultDependencies: Dependencies = {
  startReference: startReferenceServer,
  suiteVitestOptions,
  root: packageRoot,
  version: packageVersion,
};

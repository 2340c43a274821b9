/**
 * What the CLI runs: the reference implementation (when no target is given) and the suites' vitest
 * options. Kept behind one seam so that main() can be driven by tests of its own.
 */
import { packageRoot, packageVersion } from '../spec/paths.ts';
import type { Config } from '../suites/harness/config.ts';
import { standInVitestOptions, startStandInReference } from '../test/cli/fixtures/stand-ins.ts';
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
}

export interface Dependencies {
  startReference(options: ReferenceOptions): Promise<ReferenceServer>;
  /** The suites' vitest options (root, include, setup files, timeouts, provide) without reporters. */
  suiteVitestOptions(config: Config): VitestOptions;
  /** The package root: suite files are named relative to it. */
  root(): string;
  version(): string;
}

export const defaultDependencies: Dependencies = {
  startReference: startStandInReference,
  suiteVitestOptions: standInVitestOptions,
  root: packageRoot,
  version: packageVersion,
};

/**
 * What the CLI runs: the reference implementation (when no target is given) and the suites' vitest
 * options. Kept behind one seam so that main() can be driven by tests of its own.
 */

import { Worker } from 'node:worker_threads';
import { packageRoot, packageVersion } from '../../catalog/paths.ts';
import type { Config } from '../../suites/harness/config/config.ts';
import { suiteVitestOptions } from '../../suites/vitest.shared.ts';
import type { FromReference, ToReference } from './reference-thread.ts';
import type { VitestOptions } from './suites.ts';

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
   * `openapi` is spec/openapi.yaml as the plan validated and dereferenced it (run/spec.ts).
   */
  suiteVitestOptions(config: Config, openapi?: object): VitestOptions;
  /** The package root: suite files are named relative to it. */
  root(): string;
  version(): string;
  /** Time allowed for vitest to start and collect the first suite file; default 60 s. */
  readonly startupMs?: number;
}

/**
 * The reference on a thread of its own (cli/run/reference-thread.ts): starting the thread and loading
 * the reference take the second core, not the main thread that is loading vitest, and during the
 * checks it serves beside the main thread's reporters. From the sources (the project's own tests),
 * where a thread cannot load TypeScript, it runs in this thread.
 */
async function startReference(options: ReferenceOptions): Promise<ReferenceServer> {
  if (!import.meta.url.endsWith('.js')) {
    const { startReferenceServer } = await import('../../reference-impl/index.ts');
    return startReferenceServer(options);
  }
  const worker = new Worker(new URL('./reference-thread.js', import.meta.url), {
    workerData: { ...options },
  });
  const next = () =>
    new Promise<FromReference>((resolve, reject) => {
      const onExit = (code: number) =>
        reject(new Error(`the thread of the reference implementation ended (exit code ${code})`));
      worker.once('error', reject);
      worker.once('exit', onExit);
      worker.once('message', (message: FromReference) => {
        worker.off('error', reject);
        worker.off('exit', onExit);
        resolve(message);
      });
    });
  const started = await next().catch(async (error: unknown) => {
    await worker.terminate();
    throw error;
  });
  if (started.type !== 'listening') {
    await worker.terminate();
    throw new Error(
      `the reference implementation did not start: ${started.type === 'failed' ? started.message : started.type}`,
    );
  }
  let closed: Promise<void> | undefined;
  return {
    url: started.url,
    port: started.port,
    close() {
      closed ??= (async () => {
        const done = next().catch(() => undefined);
        worker.postMessage({ type: 'close' } satisfies ToReference);
        await done;
        await worker.terminate();
      })();
      return closed;
    },
  };
}

export const defaultDependencies: Dependencies = {
  startReference,
  suiteVitestOptions,
  root: packageRoot,
  version: packageVersion,
};

import { defineConfig } from 'vitest/config';
import { parsePrefixes } from '../catalog/select.ts';
import type { Config } from './harness/config/config.ts';
import { suiteVitestOptions } from './vitest.shared.ts';

/**
 * For developers: run the suites straight with vitest, without the CLI.
 *
 *   PETSTORE_BASE_URL=http://127.0.0.1:8080/v1 npx vitest run --config suites/vitest.config.ts
 *
 * vitest's own output, and the Allure results of the checks, written by allure-vitest's reporter
 * into ./allure-results (PETSTORE_ALLURE_RESULTS names another folder): `npx allure generate
 * allure-results` renders them.
 *
 * This file is an edge like the CLI: it reads the environment and builds the Config; the tests never
 * do. PETSTORE_BASE_URL is required and PETSTORE_API_KEY optional; for convenience while developing,
 * PETSTORE_API_KEY_HEADER, PETSTORE_API_KEY_QUERY, PETSTORE_API_KEY_SCHEME, PETSTORE_AUTH_REQUIRED=1, PETSTORE_READ_ONLY=1,
 * PETSTORE_ONLY=LIST,SHOW, PETSTORE_EXCLUDE, PETSTORE_SEED, PETSTORE_TIMEOUT_MS and PETSTORE_RETRIES
 * are read too.
 */
const env = process.env;
const baseUrl = env.PETSTORE_BASE_URL;
if (!baseUrl) {
  throw new Error('suites/vitest.config.ts: set PETSTORE_BASE_URL (e.g. http://127.0.0.1:8080/v1)');
}
const flag = (value: string | undefined) => value === '1' || value === 'true';
const config: Config = Object.freeze({
  baseUrl: baseUrl.replace(/\/+$/, ''),
  ...(env.PETSTORE_API_KEY ? { apiKey: env.PETSTORE_API_KEY } : {}),
  apiKeyHeader: env.PETSTORE_API_KEY_HEADER || 'X-API-Key',
  ...(env.PETSTORE_API_KEY_QUERY ? { apiKeyQuery: env.PETSTORE_API_KEY_QUERY } : {}),
  ...(env.PETSTORE_API_KEY_SCHEME ? { apiKeyScheme: env.PETSTORE_API_KEY_SCHEME } : {}),
  authRequired: flag(env.PETSTORE_AUTH_REQUIRED),
  readOnly: flag(env.PETSTORE_READ_ONLY),
  strict: flag(env.PETSTORE_STRICT),
  only: parsePrefixes([env.PETSTORE_ONLY ?? '']),
  exclude: parsePrefixes([env.PETSTORE_EXCLUDE ?? '']),
  seed: env.PETSTORE_SEED ? Number(env.PETSTORE_SEED) : Math.floor(Math.random() * 2 ** 31),
  timeoutMs: env.PETSTORE_TIMEOUT_MS ? Number(env.PETSTORE_TIMEOUT_MS) : 10_000,
  retries: env.PETSTORE_RETRIES ? Number(env.PETSTORE_RETRIES) : 0,
  runId: `dev-${Date.now().toString(36)}`,
});
console.log(`petstore-conformance suites: ${config.baseUrl}, seed ${config.seed}, run ${config.runId}`);

export default defineConfig({
  test: {
    ...suiteVitestOptions(config),
    reporters: [
      'default',
      ['allure-vitest/reporter', { resultsDir: env.PETSTORE_ALLURE_RESULTS || 'allure-results' }],
    ],
  },
});

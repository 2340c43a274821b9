// --api-key-scheme: the key as `Authorization: <scheme> <key>`, against the bundled reference too
// (which then requires exactly that). Servers that require a scheme, conformant or not, are variants
// (test/variants/faulty/scheme.ts).
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { UsageError } from '../../cli/record/errors.ts';
import { parseInvocation } from '../../cli/run/options.ts';
import { build, type Json, ROOT, readJson, runInProcess } from '../helpers/cli.ts';

const KEY = 'scheme-key-0c4f7a';

describe('--api-key-scheme at the edge', () => {
  const parse = (argv: string[]) => parseInvocation(argv, {}, '/work/project');

  test('sets the scheme; the key then travels in Authorization alone', () => {
    const plan = parse(['--base-url', 'http://h/v1', '--api-key', KEY, '--api-key-scheme', 'Bearer']);
    expect(plan).toMatchObject({ config: { apiKey: KEY, apiKeyScheme: 'Bearer' } });
  });

  test('excludes --api-key-header and --api-key-query, and takes a scheme name only', () => {
    expect(() => parse(['--api-key-scheme', 'Bearer', '--api-key-header', 'X-Key'])).toThrow(
      /--api-key-header and --api-key-scheme exclude each other|--api-key-scheme and --api-key-header exclude each other/,
    );
    expect(() => parse(['--api-key-scheme', 'Bearer', '--api-key-query', 'k'])).toThrow(UsageError);
    expect(() => parse(['--api-key-scheme', 'Bearer token', '--api-key', KEY])).toThrow(
      '--api-key-scheme must be an authentication scheme (a word such as Bearer, ApiKey or Token), got "Bearer token"',
    );
  });

  test('without a key, warns that no Authorization is sent', () => {
    const plan = parse(['--base-url', 'http://h/v1', '--api-key-scheme', 'Token']);
    expect(plan.kind === 'run' && plan.warnings).toContain(
      '--api-key-scheme without an API key: no Authorization header is sent',
    );
  });
});

test('against the bundled reference, which then requires Authorization: Bearer <key>: every AUTH check passes', async () => {
  await build();
  const reportDir = path.join(ROOT, 'reports', 'test-scheme');
  const run = await runInProcess(
    [
      '--api-key',
      KEY,
      '--api-key-scheme',
      'Bearer',
      '--auth-required',
      '--only',
      'AUTH,LIST-OK',
      '--report-dir',
      reportDir,
    ],
    { timeoutMs: 120_000 },
  );
  expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
  expect(run.stdout).toContain('API key: set, sent in header Authorization (scheme Bearer)');
  const results = readJson(path.join(reportDir, 'summary.json')).results.filter((r: Json) =>
    r.id.startsWith('AUTH-'),
  );
  expect(results.map((r: Json) => [r.id, r.status])).toEqual([
    ['AUTH-KEY-ACCEPTED', 'passed'],
    ['AUTH-MISSING-KEY-REFUSED', 'passed'],
    ['AUTH-WRONG-KEY-REFUSED', 'passed'],
  ]);
  expect(`${run.stdout}${run.stderr}`).not.toContain(KEY);
}, 180_000);

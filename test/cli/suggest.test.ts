// A command the run suggests runs as printed (issue 36): its words, read back by sh and given to the
// command's own option parser, make a run with the settings of the run that suggested it and the
// one changed; no key is ever in it.
import { spawnSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { runAgainCommand } from '../../cli/record/suggest.ts';
import { parseInvocation } from '../../cli/run/options.ts';
import { testConfig } from '../helpers/config.ts';

/** The words sh makes of a command line (its quoting undone), as a shell hands them to the command. */
function wordsOf(command: string): string[] {
  const out = spawnSync('sh', ['-c', `for w in ${command}; do printf '%s\\0' "$w"; done`], {
    encoding: 'utf8',
  });
  return out.stdout.split('\0').filter((w, i, all) => i < all.length - 1 || w !== '');
}

describe('the command a run suggests', () => {
  const SECRET = 'k3y-suggest-91c';
  const config = testConfig('https://staging.example/v1', {
    apiKey: SECRET,
    seed: 1234,
    strict: true,
    readOnly: true,
    only: ['LIST', 'SHOW-OK'],
    exclude: ['LIST-LIMIT-FILLS'],
    timeoutMs: 5000,
    retries: 2,
    concurrency: 16,
    apiKeyHeader: 'X-Pets-Key',
    requestIdHeader: 'X-Request-Id',
  });

  test('is the whole command, with the setting changed, that the option parser takes as printed', () => {
    const command = runAgainCommand(
      { config, target: config.baseUrl, targetFrom: '--base-url' },
      { 'rate-limit': 3 },
    );
    expect(command).toMatch(/^npx petstore-conformance --base-url https:\/\/staging\.example\/v1 /);
    expect(command).not.toContain(SECRET);
    const [npx, name, ...args] = wordsOf(command);
    expect([npx, name]).toEqual(['npx', 'petstore-conformance']);
    const invocation = parseInvocation(args, { PETSTORE_API_KEY: SECRET }, process.cwd());
    if (invocation.kind !== 'run') throw new Error(`not a run: ${invocation.kind}`);
    expect(invocation.target).toMatchObject({ kind: 'url', baseUrl: config.baseUrl });
    expect(invocation.config).toMatchObject({
      seed: 1234,
      strict: true,
      readOnly: true,
      only: ['LIST', 'SHOW-OK'],
      exclude: ['LIST-LIMIT-FILLS'],
      timeoutMs: 5000,
      retries: 2,
      concurrency: 16,
      rateLimit: 3,
      apiKeyHeader: 'X-Pets-Key',
      requestIdHeader: 'X-Request-Id',
      apiKey: SECRET,
    });
  });

  test('names the target as the run chose it: --target, or none for the bundled reference', () => {
    const staging = runAgainCommand(
      { config, target: config.baseUrl, targetFrom: '--target staging' },
      { 'rate-limit': 3 },
    );
    expect(staging).toMatch(/^npx petstore-conformance --target staging --seed 1234 /);
    const bundled = runAgainCommand(
      {
        config: testConfig('http://127.0.0.1:4567/v1'),
        target: 'http://127.0.0.1:4567/v1',
        targetFrom: 'bundled reference implementation, started for this run',
      },
      {},
    );
    expect(bundled).not.toContain('127.0.0.1');
  });
});

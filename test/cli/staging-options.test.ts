// The options of noisy staging and the fix loop, at the edge: --retries, --max-response-time and
// --expected parse into the run's plan, and a bad value is a usage error naming the option.
import { describe, expect, test } from 'vitest';
import { UsageError } from '../../cli/record/errors.ts';
import { parseInvocation } from '../../cli/run/options.ts';

const cwd = '/work/project';
const plan = (argv: string[]) => {
  const invocation = parseInvocation(argv, {}, cwd);
  if (invocation.kind !== 'run') throw new Error(`expected a run, got ${invocation.kind}`);
  return invocation;
};
const usage = (argv: string[]) => {
  try {
    parseInvocation(argv, {}, cwd);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error(`expected a UsageError for ${argv.join(' ')}`);
};

describe('--retries', () => {
  test('defaults to 0 (the gate stays deterministic) and takes 0 to 10', () => {
    expect(plan([]).config.retries).toBe(0);
    expect(plan(['--retries', '2']).config.retries).toBe(2);
    expect(plan(['--retries', '10']).config.retries).toBe(10);
  });

  test.each([['-1'], ['11'], ['two'], ['1.5']])('refuses %s', (value) => {
    expect(usage([`--retries=${value}`])).toMatch(/^--retries takes a whole number from 0 to 10, got/);
  });
});

describe('--max-response-time', () => {
  test('is absent by default (times reported, none judged) and takes milliseconds', () => {
    expect(plan([]).config.maxResponseTimeMs).toBeUndefined();
    expect(plan(['--max-response-time', '250']).config.maxResponseTimeMs).toBe(250);
  });

  test.each([['0'], ['fast'], ['600001']])('refuses %s', (value) => {
    expect(usage(['--max-response-time', value])).toMatch(
      /^--max-response-time takes a whole number from 1 to 600000/,
    );
  });
});

describe('--expected', () => {
  test('keeps the path as given; the file is read when the run is planned', () => {
    expect(plan(['--expected', 'deviations.yaml']).expected).toBe('deviations.yaml');
    expect(plan([]).expected).toBeUndefined();
  });

  test('refuses an empty value', () => {
    expect(usage(['--expected', ' '])).toBe('--expected needs a value');
  });
});

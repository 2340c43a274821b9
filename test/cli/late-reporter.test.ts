// The Allure reporter loaded once the run is under way (cli/run/late-reporter.ts): what vitest
// reported before it was there reaches it in order, the run's end waits for it, and it stands in for
// every hook the staging reporter has.
import { expect, test } from 'vitest';
import type { Reporter, TestCase } from 'vitest/node';
import { StagingAllureReporter } from '../../cli/run/allure-staging.ts';
import { LATE_HOOKS, LateReporter } from '../../cli/run/late-reporter.ts';

const testCase = (id: string) => ({ id }) as unknown as TestCase;

test('what is reported before the reporter is loaded reaches it in order once it is', async () => {
  const seen: string[] = [];
  const real: Reporter = {
    onInit: () => void seen.push('init'),
    onTestCaseResult: (t) => void seen.push(`result ${t.id}`),
    onTestRunEnd: () => void seen.push('end'),
  };
  let release!: () => void;
  const made = new Promise<void>((resolve) => {
    release = resolve;
  });
  const late = new LateReporter(async () => {
    await made;
    return real;
  });
  late.onInit({} as never);
  late.onTestCaseResult(testCase('a'));
  const loading = late.load();
  late.onTestCaseResult(testCase('b'));
  expect(seen).toEqual([]);
  release();
  await loading;
  expect(seen).toEqual(['init', 'result a', 'result b']);
  late.onTestCaseResult(testCase('c'));
  expect(seen.at(-1)).toBe('result c');
});

test("the run's end waits for the reporter, loading it if nothing has yet", async () => {
  const seen: string[] = [];
  let makes = 0;
  const late = new LateReporter(async () => {
    makes++;
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { onTestRunEnd: () => void seen.push('end') } satisfies Reporter;
  });
  await late.onTestRunEnd([], [], 'passed');
  expect(seen).toEqual(['end']);
  await late.load();
  expect(makes).toBe(1);
});

test('a reporter that cannot be loaded fails the run end, not silently', async () => {
  const late = new LateReporter(() => Promise.reject(new Error('no allure-vitest')));
  await expect(late.onTestRunEnd([], [], 'passed')).rejects.toThrow('no allure-vitest');
});

test('it forwards every hook the staging Allure reporter has', () => {
  const hooks = new Set<string>();
  for (
    let proto = StagingAllureReporter.prototype;
    proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto)
  )
    for (const name of Object.getOwnPropertyNames(proto)) if (/^on[A-Z]/.test(name)) hooks.add(name);
  expect([...hooks].sort()).toEqual([...LATE_HOOKS].sort());
  for (const hook of LATE_HOOKS) expect(typeof LateReporter.prototype[hook]).toBe('function');
});

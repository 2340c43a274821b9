// How soon V8 optimizes in the command's process (cli/run/tier-up.ts, set by bin/): a flag for the
// V8 of Node 20 and 22 that this V8 has, none for later ones, none over the user's own.
import { spawnSync } from 'node:child_process';
import { beforeAll, expect, test } from 'vitest';
import { tierUpFlag } from '../../cli/run/tier-up.ts';
import { BIN, build, ROOT } from '../helpers/cli.ts';

beforeAll(build, 180_000);

test("Node 20's V8 optimizes after a larger bytecode budget, Node 22's after more calls, later ones as they do", () => {
  expect(tierUpFlag('11.3.244.8-node.33')).toBe('--interrupt-budget=2000000');
  expect(tierUpFlag('12.4.254.21-node.33')).toBe('--invocation-count-for-turbofan=90000');
  expect(tierUpFlag('13.6.233.10-node.27')).toBeUndefined();
  expect(tierUpFlag('10.2.154.26-node.26')).toBeUndefined();
  expect(tierUpFlag('not a version')).toBeUndefined();
});

test('a flag the user gave node is kept, in either spelling', () => {
  expect(tierUpFlag('11.3.244.8', ['--interrupt-budget=67584'])).toBeUndefined();
  expect(tierUpFlag('11.3.244.8', ['--interrupt_budget=67584'])).toBeUndefined();
  expect(tierUpFlag('12.4.254.21', ['--invocation-count-for-turbofan=3000'])).toBeUndefined();
  expect(tierUpFlag('11.3.244.8', ['--interrupt-budget-for-feedback-allocation=10'])).toBe(
    '--interrupt-budget=2000000',
  );
});

test('the flag chosen for this V8 is one it has', () => {
  const flag = tierUpFlag(process.versions.v8);
  if (flag === undefined) return; // a V8 the command leaves as it is
  const options = spawnSync(process.execPath, ['--v8-options'], { encoding: 'utf8' }).stdout;
  expect(options).toContain(`  ${flag.slice(0, flag.indexOf('='))} (`);
});

test('the command sets it without a word on stderr', () => {
  const run = spawnSync(process.execPath, [BIN, '--version'], { cwd: ROOT, encoding: 'utf8' });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  // V8 says so on stderr when it does not know a flag: that is what the test above would see.
  const unknown = spawnSync(
    process.execPath,
    ['-e', "require('v8').setFlagsFromString('--no-such-flag-x')"],
    {
      encoding: 'utf8',
    },
  );
  expect(unknown.stderr).toContain('--no-such-flag-x');
});

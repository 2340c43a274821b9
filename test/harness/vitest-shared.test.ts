// The vitest options of a run (suites/vitest.shared.ts) are the same on every machine: one worker,
// whatever the cores, so that the run's model and the pets the lists count are the run's, not a
// worker's share of it. os.availableParallelism() and os.cpus() are mocked to 1, 2, 4 and 16 cores,
// and the module is loaded afresh under each.
import os from 'node:os';
import { afterAll, expect, test, vi } from 'vitest';
import { testConfig } from '../helpers/config.ts';

const machine = vi.hoisted(() => ({ cores: 2 }));
vi.mock('node:os', async (original) => {
  const real = await original<typeof import('node:os')>();
  const availableParallelism = () => machine.cores;
  const cpus = () => Array.from({ length: machine.cores }, () => real.cpus()[0]!);
  return { ...real, availableParallelism, cpus, default: { ...real, availableParallelism, cpus } };
});
afterAll(() => vi.doUnmock('node:os'));

const config = testConfig('http://127.0.0.1:9/v1');

/** The options suiteVitestOptions() gives on a machine of `cores` cores, as JSON (the sequencer by name). */
async function optionsOn(cores: number) {
  machine.cores = cores;
  vi.resetModules();
  const { suiteVitestOptions } = await import('../../suites/vitest.shared.ts');
  const options = suiteVitestOptions(config);
  const sequencer = options.sequence?.sequencer?.name;
  return JSON.parse(JSON.stringify({ ...options, sequence: { ...options.sequence, sequencer } }));
}

test('one worker, files one after another, on 1, 2, 4 or 16 cores: the options do not depend on the machine', async () => {
  const onTwo = await optionsOn(2);
  for (const cores of [1, 4, 16]) {
    const options = await optionsOn(cores);
    // The mock is what the module saw.
    expect(os.availableParallelism()).toBe(cores);
    expect(options, `on ${cores} cores`).toEqual(onTwo);
  }
  expect(onTwo).toMatchObject({ pool: 'threads', maxWorkers: 1, fileParallelism: false, isolate: false });
});

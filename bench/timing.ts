/**
 * Preloaded by the suite benchmark (node --import) into the process it times: at exit, writes the
 * process's CPU time (every thread: vitest's workers are threads) and the stage marks of the run
 * (cli/run/timeline.ts) to the file PETSTORE_BENCH_TIMING names.
 */
import { writeFileSync } from 'node:fs';

const file = process.env.PETSTORE_BENCH_TIMING;
if (file) {
  process.on('exit', () => {
    const { user, system } = process.cpuUsage();
    const marks = Object.fromEntries(
      performance
        .getEntriesByType('mark')
        .map((m) => [m.name.replace(/^petstore-conformance:/, ''), m.startTime]),
    );
    writeFileSync(file, JSON.stringify({ cpuMs: (user + system) / 1000, exitMs: performance.now(), marks }));
  });
}

/**
 * How soon V8 optimizes a function, for the command's process (bin/petstore-conformance.js sets it
 * before anything else is loaded).
 *
 * A default run is over in about a second. In that second TurboFan, V8's optimizing compiler,
 * compiles the functions that have run often on background threads, for the main thread, the
 * reference's and vitest's worker; on 2 cores those threads took 450 ms of CPU beside the checks'
 * 1,000, and the run ends before most of that code pays back. With a function's budget before it is
 * optimized raised 30 times, a default run took about 100 ms less (about 230 ms less CPU), measured
 * pair by pair on Node 20 and 22 (docs/benchmarks.md); a long run still has its hot functions
 * optimized, later. Node 24's V8 (a Maglev tier before TurboFan) gained nothing: left as it is.
 *
 * Only a flag the running V8 has is named (V8 prints an error for one it does not know).
 */

/** The V8 flag to set for `v8Version` (process.versions.v8), or undefined to leave V8 as it is. */
export function tierUpFlag(v8Version: string, execArgv: readonly string[] = []): string | undefined {
  const major = Number.parseInt(v8Version, 10);
  // V8 11 (Node 20): a function is optimized once it has run through this many bytes of bytecode
  // (67,584 by default); V8 12 (Node 22): once called this many times (3,000 by default).
  const flag =
    major === 11
      ? '--interrupt-budget=2000000'
      : major === 12
        ? '--invocation-count-for-turbofan=90000'
        : undefined;
  if (flag === undefined) return undefined;
  // A flag given to node on its command line is the user's choice.
  const name = flag.slice(0, flag.indexOf('='));
  const spelled = (arg: string) => arg.replaceAll('_', '-');
  if (execArgv.some((arg) => spelled(arg) === name || spelled(arg).startsWith(`${name}=`))) return undefined;
  return flag;
}

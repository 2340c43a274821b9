/**
 * Marks on the process's performance timeline (performance.mark) where a run passes from one stage
 * to the next. `npm run bench` reads them to show where the time of a run goes (start-up, reference
 * start, first test, checks, reports); nothing else does, and a mark costs a microsecond.
 */
export const STAGE = {
  /** The target stage begins: everything before it is start-up (Node, the CLI, the plan). */
  targetOpening: 'petstore-conformance:target-opening',
  /** The reference listens (or the deployment answered the reachability check). */
  targetOpen: 'petstore-conformance:target-open',
  vitestStarting: 'petstore-conformance:vitest-starting',
  /**
   * The first suite file's tests were collected: vitest, its worker and the first file are loaded,
   * and the checks start (the main thread hears of it within a few ms; of a test's start, only
   * about 0.1 s later, as vitest sends those in batches).
   */
  collected: 'petstore-conformance:first-file-collected',
  firstTest: 'petstore-conformance:first-test-done',
  /** vitest finished (or the run was cut at its deadline); what follows is judging and reports. */
  testsDone: 'petstore-conformance:tests-done',
} as const;

export function mark(name: (typeof STAGE)[keyof typeof STAGE]): void {
  performance.mark(name);
}

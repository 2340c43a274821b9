/**
 * The run's first phase: the checks of POST /pets, whose creates make the pets the second phase
 * lists and shows (2-cross-list-and-show.test.ts). Its checks run at once; the next phase starts
 * when the last of them has ended (vitest runs the files of suites/ one after another, in the order
 * of their paths: vitest.shared.ts).
 */
import './create/create.checks.ts';

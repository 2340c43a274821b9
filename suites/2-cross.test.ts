/**
 * The run's second phase: the checks that hold for every operation (cross/cross.checks.ts), all at
 * once, once the creates of the first phase (1-create.test.ts) have ended. Some create pets of their
 * own, many at once (ANY-NO-5XX's writes), which is why they are not in the last phase: there the
 * lists count the pets stored and one check creates alone (3-list-and-show.test.ts).
 */
import './cross/cross.checks.ts';

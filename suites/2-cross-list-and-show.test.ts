/**
 * The run's second and last phase: the checks that hold for every operation (cross/cross.checks.ts),
 * and those of GET /pets and GET /pets/{petId}, all at once, once every create of the first phase
 * (1-create.test.ts) has ended. One phase, not a file each, so that a deployment far away is waited
 * for once: the time it waits on the network is its longest chain of exchanges, not the sum of
 * several files' chains.
 *
 * After the creates, not beside them: a list check counts the pets stored (ensurePets) and creates
 * the shortfall, so it must count once the first phase's hundreds of creates have ended for every
 * run of one seed to send the same requests (what the cross and show checks create here cannot make
 * the first page shorter than 100). One check of CREATE-PERSISTED creates alone
 * (show/show.checks.ts): it waits until no other write of the run is in flight, the cross checks'
 * among them, and holds the later ones back until it is answered (harness/model/model.ts).
 */
// The show checks first: the phase's longest chain is one of them (show/show.checks.ts).
import './show/show.checks.ts';
import './cross/cross.checks.ts';
import './list/list.checks.ts';

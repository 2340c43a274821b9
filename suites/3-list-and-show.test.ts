/**
 * The run's last phase: the checks of GET /pets and GET /pets/{petId}, all at once, once every
 * create of the phases before has ended. One phase, not a file each, so that a deployment far away
 * is waited for once: the time it waits on the network is its longest chain of exchanges, not the
 * sum of two files' chains.
 *
 * After the creates, not beside them: a list check counts the pets stored (ensurePets) and creates
 * the shortfall, so it must count once the creates have ended for every run of one seed to send the
 * same requests; and one check of CREATE-PERSISTED creates alone (show/show.checks.ts), which holds
 * back every other create of the run while it is in flight. The show checks create a few pets of
 * their own, and a list of 100 pets stays a list of 100 pets whatever they add.
 */
import './list/list.checks.ts';
import './show/show.checks.ts';

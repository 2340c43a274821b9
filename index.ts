/**
 * petstore-conformance as a library (`import … from 'petstore-conformance'`):
 *
 * - the reference implementation of the pets service: startReferenceServer() listens on a port of
 *   its own; createReferenceHandler() gives the node:http handler to mount on a server of yours;
 *   a PetStore given as `store` starts it with pets in it;
 * - the command itself: main(argv, env) runs exactly what `petstore-conformance` runs and resolves to
 *   its exit status (EXIT: 0 conformant, 1 non-conformant, 2 could not judge), writing the reports.
 *
 * Everything else in the package is internal and may change between versions.
 */
export { EXIT, type Io, main } from './cli/main.ts';
export {
  CLOSE_GRACE_MS,
  createReferenceHandler,
  type Handler,
  type Pet,
  type PetStatus,
  PetStore,
  type ReferenceOptions,
  type RunningServer,
  type StartOptions,
  startReferenceServer,
} from './reference-impl/index.ts';

/**
 * The reference implementation of the pets service, as a library. Start it with
 * startReferenceServer(); or mount createReferenceHandler() on a node:http server of your own.
 */
export {
  createReferenceHandler,
  DEPRECATED_AT,
  type Handler,
  type ReferenceOptions,
  SUNSET_AT,
} from './handlers.ts';
export { MAX_BODY_BYTES } from './http.ts';
export { CLOSE_GRACE_MS, type RunningServer, type StartOptions, startReferenceServer } from './server.ts';
export { int64Text, type Pet, type PetStatus, PetStore } from './store.ts';

/**
 * The reference implementation of the pets service, as a library. Start it with
 * startReferenceServer(); or mount createReferenceHandler() on a node:http server of your own.
 */
export { int64Text } from './json.ts';
export {
  CLOSE_GRACE_MS,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_PETS,
  MAX_BODY_BYTES,
  MAX_DEPTH,
} from './limits.ts';
export { type RunningServer, type StartOptions, startReferenceServer } from './server.ts';
export {
  createReferenceHandler,
  DEPRECATED_AT,
  type Handler,
  type ReferenceOptions,
  SUNSET_AT,
} from './service.ts';
export { type AddResult, type Pet, type PetStatus, PetStore, type StoreOptions } from './store.ts';

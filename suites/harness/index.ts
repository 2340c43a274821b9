/**
 * The harness of the conformance suites: the only module the tests in suites/ import.
 *
 *   requirement(id, check) / requirement.each(id, rows, check)   one test per requirement (and row)
 *   setup (pets.ts): createPet, createAndFind, ensurePets, aPetToShow; a precondition that cannot be
 *     had throws Blocked (blocked.ts): the check is reported blocked by the requirement that judges it
 *   CheckContext: api (Client), config, contract, newPet(), freshId(), skip(reason), note(message)
 *   expect*: status, JSON body, Content-Type, schema; each throws a ConformanceError with evidence
 *   generated inputs from the OpenAPI schemas (fast-check), seeded and shrunk
 *   the run's model (model.ts): every answer held against what the run created; generated sequences
 *     of operations checked against it (sequences.ts)
 *   the JSON minefield (minefield.ts): create bodies that are not JSON, and JSON spelled otherwise
 *   other spellings of a documented path (spellings.ts), sent as written (RequestOptions.asWritten)
 */

import { loadContract } from './contract.ts';

/** fast-check, for tests that combine the harness's generators. */
export { default as fc } from 'fast-check';
export { Blocked, blocked, isBlocked, suspected } from './blocked.ts';
export { CONCURRENT_CREATES, MINEFIELD_CONCURRENCY } from './budget.ts';
export {
  type ApiResponse,
  Client,
  type ClientOptions,
  MAX_BODY_BYTES,
  type RequestOptions,
  type ServerErrorSeen,
} from './client.ts';
export { CONFIG_KEY, type Config } from './config.ts';
export { Contract, type ContractIssue, formatIssues, loadContract, type Schema } from './contract.ts';
export {
  BrokenMessage,
  ConformanceError,
  type ConformanceErrorInit,
  HTTP_MESSAGE_ID,
  isBrokenMessage,
  isConformanceError,
} from './errors.ts';
export { clip, type ExchangeRecord, formatExchange, toCurl } from './exchange.ts';
export {
  describeBody,
  describeResponse,
  expectApplicationJson,
  expectJsonArray,
  expectJsonObject,
  expectSchema,
  expectStatus,
  expectStatusBetween,
  expectStatusNot,
  fail,
  isApplicationJson,
  isJsonMediaType,
  type JsonBody,
  readJson,
} from './expect.ts';
export {
  applyMutation,
  arbitraryOf,
  checkGenerated,
  isInvalid,
  type Mutation,
  mutationsOf,
} from './generate.ts';
export {
  exactInteger,
  exactText,
  INT64_MAX,
  INT64_MIN,
  integerOfText,
  parseExact,
  stringifyExact,
} from './json.ts';
export { keySecrets, MIN_HALF_LENGTH, NEAR_MISSES, type NearMiss, nearMissKey } from './keys.ts';
export {
  bodyOf,
  type Category,
  NOT_JSON,
  type NotJson,
  printfCommand,
  STILL_JSON,
  type StillJson,
  showBytes,
  type Template,
} from './minefield.ts';
export {
  type Attempt,
  differences,
  type Finding,
  Model,
  PET_FIELDS,
  type PetFields,
  runModel,
  showString,
} from './model.ts';
export {
  aPetThatExists,
  aPetToShow,
  createAndFind,
  createAndShowKept,
  createPet,
  createPets,
  ensurePets,
  inParallel,
  isSuccess,
  listedPets,
  NOT_FOUND_AFTER_CREATE,
  petPath,
  shownPet,
} from './pets.ts';
export { type CheckContext, type Row, requirement } from './requirement.ts';
export { freshId, type PetInput, runConfig, runTag } from './run.ts';
export { checkSequences, IdRange, type SequenceOptions } from './sequences.ts';
export { expectShownAsCreated, sameFields } from './shown.ts';
export { type Spelling, spellingsOf } from './spellings.ts';

/** The contract of spec/openapi.yaml, dereferenced and compiled (once per worker). */
export const contract = await loadContract();

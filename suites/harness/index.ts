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
 *   other spellings of a documented path (spellings.ts), sent as written (RequestOptions.asWritten),
 *     with query strings and in absolute form (targetsOf, RequestOptions.target)
 */

import { loadContract } from './contract/contract.ts';

/** fast-check, for tests that combine the harness's generators. */
export { default as fc } from 'fast-check';
export { CONFIG_KEY, type Config } from './config/config.ts';
export { freshId, type PetInput, runConfig, runTag } from './config/run.ts';
export {
  Contract,
  type ContractIssue,
  formatIssues,
  loadContract,
  type Schema,
} from './contract/contract.ts';
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
} from './contract/expect.ts';
export {
  applyMutation,
  arbitraryOf,
  isInvalid,
  type Mutation,
  mutationsOf,
} from './contract/generate.ts';
export {
  bodyOf,
  type Category,
  EXTENDED,
  LEFT_TO_THE_READER,
  type LeftToTheReader,
  MALFORMED,
  NOT_JSON,
  type NotJson,
  printfCommand,
  type Reading,
  STILL_JSON,
  type StillJson,
  showBytes,
  type Template,
} from './contract/minefield.ts';
export {
  LIST_QUERIES,
  QUERIES,
  type QueryForm,
  type Spelling,
  spellingsOf,
  targetsOf,
} from './contract/spellings.ts';
export {
  BrokenMessage,
  ConformanceError,
  type ConformanceErrorInit,
  HTTP_MESSAGE_ID,
  isBrokenMessage,
  isClosedWithoutAnswer,
  isConformanceError,
} from './evidence/errors.ts';
export { clip, type ExchangeRecord, formatExchange, toCurl } from './evidence/exchange.ts';
export type { Finding } from './evidence/finding.ts';
export {
  exactInteger,
  exactText,
  INT64_MAX,
  INT64_MIN,
  integerOfText,
  parseExact,
  stringifyExact,
} from './evidence/json.ts';
export { keySecrets, MIN_HALF_LENGTH, NEAR_MISSES, type NearMiss, nearMissKey } from './evidence/keys.ts';
export { CONCURRENT_CREATES, MINEFIELD_CONCURRENCY } from './http/budget.ts';
export {
  type ApiResponse,
  Client,
  type ClientOptions,
  MAX_BODY_BYTES,
  type RequestOptions,
  type ServerErrorSeen,
} from './http/client.ts';
export {
  type Attempt,
  differences,
  Model,
  PET_FIELDS,
  type PetFields,
  runModel,
  showString,
} from './model/model.ts';
export { Blocked, blocked, isBlocked, suspected } from './requirement/blocked.ts';
export { type CheckContext, type Row, requirement } from './requirement/requirement.ts';
export { freshIdLike, freshMutation, freshOutOfRange } from './steps/fresh.ts';
export { checkGenerated } from './steps/generated.ts';
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
} from './steps/pets.ts';
export { expectOutOfRangeRefused } from './steps/refused.ts';
export { checkSequences, IdRange, type SequenceOptions } from './steps/sequences.ts';
export { expectShownAsCreated, sameFields } from './steps/shown.ts';

/** The contract of spec/openapi.yaml, dereferenced and compiled (once per worker). */
export const contract = await loadContract();

/**
 * The validators of the service, compiled from spec/openapi.yaml, the one source of its schemas
 * (nothing here is a hand copy): swagger-parser reads and dereferences the document, ajv (JSON
 * Schema 2020-12, as OpenAPI 3.1 uses, with ajv-formats for int64) compiles the two schemas this
 * server judges requests with. Once per process, on first use. The suites compile their own from
 * the same file: the two sides share the contract, never code (STYLE point 15).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** What is wrong with a value, in ajv's words (`pet/status must be equal to one of the allowed values`), or undefined when it is valid. */
export type Problem = (value: unknown) => string | undefined;

export interface Validators {
  /** The request body of createPets: a Pet. */
  readonly pet: Problem;
  /** The `limit` query parameter of listPets (integer, maximum 100), named as the document names it. */
  readonly limit: Problem;
  /** The default of `limit`, as the document declares it. */
  readonly defaultLimit: number;
}

let loading: Promise<Validators> | undefined;

/** The validators, compiled on first use and shared by every server of the process. */
export function loadValidators(): Promise<Validators> {
  loading ??= compile();
  return loading;
}

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is read here as loosely typed data
type Doc = Record<string, any>;

async function compile(): Promise<Validators> {
  const api = (await SwaggerParser.dereference(openapiFile())) as Doc;
  // listPets declares one parameter, limit.
  const [limit] = api.paths['/pets'].get.parameters;
  const pet = api.paths['/pets'].post.requestBody.content['application/json'].schema;
  // ajv's defaults: strict mode refuses what it cannot compile as meant (unknown keywords), and the
  // first error found is the one reported.
  const ajv = new Ajv2020();
  addFormats.default(ajv); // a CommonJS module: its callable is module.exports.default too
  const problem = (schema: object, dataVar: string): Problem => {
    const validate = ajv.compile(schema);
    // Stryker disable next-line ObjectLiteral: the wording of an error: the service document shows no error body
    return (value) => (validate(value) ? undefined : ajv.errorsText(validate.errors, { dataVar }));
  };
  return {
    // Stryker disable next-line StringLiteral: the wording of an error: the service document shows no error body
    pet: problem(pet, 'pet'),
    limit: problem(limit.schema, limit.name),
    defaultLimit: limit.schema.default,
  };
}

/**
 * spec/openapi.yaml of this package: two folders up from dist/reference-impl/ in the build, else
 * beside reference-impl/ in the sources. An installation without it fails reading the build's place,
 * naming it.
 */
function openapiFile(): string {
  const places = ['../../spec/openapi.yaml', '../spec/openapi.yaml'].map((place) =>
    fileURLToPath(new URL(place, import.meta.url)),
  );
  return places.find(existsSync) ?? places[0]!;
}

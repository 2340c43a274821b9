/**
 * The validators of the service, compiled from spec/openapi.yaml, the one source of its schemas
 * (nothing here is a hand copy): swagger-parser reads and dereferences the document, ajv (JSON
 * Schema 2020-12, as OpenAPI 3.1 uses, with ajv-formats for int64) compiles the two schemas this
 * server judges requests with. Once per process, on first use. The suites compile their own from
 * the same file: the two sides share the contract, never code (STYLE point 15).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FieldError } from './responses.ts';

export interface Validators {
  /** The request body of createPets: a Pet. */
  readonly pet: ValidateFunction;
  /** The `limit` query parameter of listPets (integer, maximum 100). */
  readonly limit: ValidateFunction;
  /** The default of `limit`, as the document declares it. */
  readonly defaultLimit: number;
}

let loading: Promise<Validators> | undefined;

/** The validators, compiled on first use and shared by every server of the process. */
export function loadValidators(): Promise<Validators> {
  loading ??= compile().catch((error: unknown) => {
    loading = undefined; // a later call may try again
    throw error;
  });
  return loading;
}

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is read here as loosely typed data
type Doc = Record<string, any>;

async function compile(): Promise<Validators> {
  const api = (await SwaggerParser.dereference(openapiFile())) as Doc;
  const limit = api.paths['/pets'].get.parameters.find((p: Doc) => p.name === 'limit' && p.in === 'query');
  const pet = api.paths['/pets'].post.requestBody.content['application/json'].schema;
  // The schemas are not checked against JSON Schema's meta-schema here (validateSchema: false): that
  // is the spec's own check (swagger-parser's validate, in the build and in the suites' preflight).
  // Strict mode still refuses what ajv cannot compile as meant: unknown keywords, ambiguous types.
  const ajv = new Ajv2020({ allErrors: true, strict: true, validateSchema: false });
  addFormats.default(ajv); // a CommonJS module: its callable is module.exports.default too
  return { pet: ajv.compile(pet), limit: ajv.compile(limit.schema), defaultLimit: limit.schema.default };
}

/**
 * spec/openapi.yaml of this package: the first found walking up from this file, which lies in
 * reference-impl/ of the sources or dist/reference-impl/ of the build.
 */
function openapiFile(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = path.join(dir, 'spec', 'openapi.yaml');
    if (existsSync(file)) return file;
    const parent = path.dirname(dir);
    if (parent === dir)
      throw new Error(`spec/openapi.yaml not found above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

/** Says, for each error of a validation, which field is wrong and how. */
export function fieldErrors(errors: ErrorObject[] | null | undefined, parameter?: string): FieldError[] {
  return (errors ?? []).map((error) => {
    const path = error.instancePath;
    const name = parameter ?? (path === '' ? 'the body' : decodePointer(path));
    const where = parameter ? { parameter } : { pointer: `#${path}` };
    if (error.keyword === 'required') {
      const missing = String(error.params.missingProperty);
      return { detail: `${missing} is required`, pointer: `#${path}/${missing}` };
    }
    if (error.keyword === 'enum') {
      const allowed = (error.params.allowedValues as unknown[]).join(', ');
      return { detail: `${name} must be one of: ${allowed}`, ...where };
    }
    return { detail: `${name} ${error.message ?? 'is invalid'}`, ...where };
  });
}

/** `/a~1b` → `a/b`: a JSON Pointer as a field name for messages. */
function decodePointer(pointer: string): string {
  return pointer.slice(1).replaceAll('~1', '/').replaceAll('~0', '~');
}

/**
 * The validators of the reference implementation, compiled once from spec/openapi.yaml, the single
 * source of the schemas (nothing here is a hand copy). The suites compile their own validators from the
 * same document; the two sides share the contract, never code (STYLE point 15).
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { specFiles } from '../spec/paths.ts';

// ajv-formats is CommonJS: under NodeNext its default import is module.exports, typed as the module.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

export interface Contract {
  /** The request body of createPets: a Pet. */
  readonly pet: ValidateFunction;
  /** The `limit` query parameter of listPets (integer, maximum 100). */
  readonly limit: ValidateFunction;
  /** The default of `limit`, as the document declares it. */
  readonly defaultLimit: number;
}

/** One entry of a problem's `errors` member (RFC 9457 §3): what is wrong, and where. */
export interface FieldError {
  detail: string;
  /** A JSON Pointer into the request body, as a URI fragment (`#/status`). */
  pointer?: string;
  /** The query parameter at fault. */
  parameter?: string;
}

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is read here as loosely typed data
type Doc = Record<string, any>;

let loading: Promise<Contract> | undefined;

/** The validators, compiled on first use and shared by every server of the process. */
export function loadContract(): Promise<Contract> {
  loading ??= compile().catch((error: unknown) => {
    loading = undefined; // a later call may try again
    throw error;
  });
  return loading;
}

async function compile(): Promise<Contract> {
  const api = (await SwaggerParser.dereference(specFiles.openapi)) as Doc;
  // OpenAPI 3.1 schemas are JSON Schema 2020-12; formats (int64) come from ajv-formats.
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  addFormats(ajv);
  const list = api.paths['/pets'].get;
  const limit = list.parameters.find((p: Doc) => p.name === 'limit' && p.in === 'query');
  return {
    pet: ajv.compile(api.paths['/pets'].post.requestBody.content['application/json'].schema),
    limit: ajv.compile(limit.schema),
    defaultLimit: limit.schema.default,
  };
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

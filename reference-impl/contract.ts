/**
 * The validators of the reference implementation, compiled once from spec/openapi.yaml, the single
 * source of the schemas (nothing here is a hand copy): by ajv when the server starts, or by the build
 * (ajv's standalone code, with this module's options, kept by spec/checked.ts while the spec is
 * unchanged). The suites compile their own validators from the same document; the two sides share
 * the contract, never code (STYLE point 15).
 */
import { createRequire } from 'node:module';
import type { Options } from 'ajv';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { readChecked } from '../spec/checked.ts';
import { specFiles } from '../spec/paths.ts';

const require = createRequire(import.meta.url);

/** OpenAPI 3.1 schemas are JSON Schema 2020-12; formats (int64) come from ajv-formats. */
const AJV_OPTIONS: Options = { allErrors: true, strict: true };

/** ajv, loaded when this server compiles a schema itself rather than take the build's code. */
function newAjv(options: Options = AJV_OPTIONS): Ajv2020 {
  const { Ajv2020: Ajv } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  // ajv-formats is CommonJS: its callable is module.exports (or its default).
  const formats = require('ajv-formats') as { default?: unknown };
  const addFormats = (formats.default ?? formats) as (ajv: Ajv2020) => void;
  const ajv = new Ajv(options);
  addFormats(ajv);
  return ajv;
}

/** The two schemas this server validates with, from the (dereferenced) document. */
function schemas(api: Doc): { pet: object; limit: Doc } {
  const limit = api.paths['/pets'].get.parameters.find((p: Doc) => p.name === 'limit' && p.in === 'query');
  return { pet: api.paths['/pets'].post.requestBody.content['application/json'].schema, limit };
}

/**
 * The validators of this server as ajv's standalone code, with its own options: what the build
 * keeps (spec/checked.ts), so that starting the server loads no ajv and compiles nothing.
 */
export function precompileReference(api: Doc): Record<'pet' | 'limit', string> {
  const ajv = newAjv({ ...AJV_OPTIONS, code: { source: true } });
  const { default: standaloneCode } =
    require('ajv/dist/standalone/index.js') as typeof import('ajv/dist/standalone/index.js');
  const { pet, limit } = schemas(api);
  return {
    pet: standaloneCode(ajv, ajv.compile(pet)),
    limit: standaloneCode(ajv, ajv.compile(limit.schema)),
  };
}

/** A validator from its standalone code (CommonJS), its few runtime imports resolved from here. */
function instantiate(code: string): ValidateFunction {
  const module: { exports: unknown } = { exports: {} };
  new Function('module', 'exports', 'require', code)(module, module.exports, require);
  return module.exports as ValidateFunction;
}

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

/**
 * The document and its validators as the build checked and precompiled them, while that still holds
 * byte for byte (spec/checked.ts): neither swagger-parser nor ajv is loaded then. Otherwise
 * spec/openapi.yaml is dereferenced by swagger-parser and compiled by ajv here.
 */
async function compile(): Promise<Contract> {
  const checked = readChecked();
  if (checked) return compileContract(checked.openapi as Doc);
  const { default: SwaggerParser } = await import('@apidevtools/swagger-parser');
  return compileContract((await SwaggerParser.dereference(specFiles.openapi)) as Doc);
}

/**
 * The validators of a (dereferenced) document: from `precompiled`, the standalone code
 * precompileReference() made of this very document, or compiled with ajv here.
 */
export function compileContract(api: Doc, precompiled?: Readonly<Record<'pet' | 'limit', string>>): Contract {
  const { pet, limit } = schemas(api);
  if (precompiled) {
    return {
      pet: instantiate(precompiled.pet),
      limit: instantiate(precompiled.limit),
      defaultLimit: limit.schema.default,
    };
  }
  const ajv = newAjv();
  return { pet: ajv.compile(pet), limit: ajv.compile(limit.schema), defaultLimit: limit.schema.default };
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

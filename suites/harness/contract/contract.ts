import { createRequire } from 'node:module';
import type { ErrorObject, Options, ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { inject } from 'vitest';
import { readChecked } from '../../../catalog/checked.ts';
import { specFiles } from '../../../catalog/paths.ts';
import { OPENAPI_KEY } from '../config/config.ts';
import { bodyExcerpt, bodyInline } from '../evidence/body.ts';
import { clip } from '../evidence/exchange.ts';
import {
  exactInteger,
  exactOfParsed,
  exactText,
  INT64_MAX,
  INT64_MIN,
  inInt64,
  isExactNumber,
} from '../evidence/json.ts';

const require = createRequire(import.meta.url);

/** The options of every validator of the suites (draft 2020-12, as OpenAPI 3.1 uses; errors with their schema and data). */
const AJV_OPTIONS: Options = { allErrors: true, strict: false, verbose: true };

/** ajv 2020 with ajv-formats, loaded and made when a schema is compiled here rather than precompiled. */
function newAjv(options: Options = AJV_OPTIONS): Ajv2020 {
  const { Ajv2020: Ajv } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const formats = require('ajv-formats') as { default?: unknown };
  // ajv-formats is CommonJS with a default export; under NodeNext the callable is one level down.
  const addFormats = (formats.default ?? formats) as (ajv: Ajv2020) => void;
  const ajv = new Ajv(options);
  addFormats(ajv);
  return ajv;
}

/**
 * Every schema the contract validates with, each once, by the JSON pointer where a walk of the
 * (dereferenced) document meets it first: components/schemas, then each operation's request and
 * response bodies. The same walk at build time and in a worker gives the same pointers, so that a
 * validator precompiled for a pointer is found again.
 */
export function contractSchemas(document: Contract['document']): Map<Schema, string> {
  const out = new Map<Schema, string>();
  const add = (schema: Schema | undefined, pointer: string) => {
    if (schema && !out.has(schema)) out.set(schema, pointer);
  };
  const token = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {}))
    add(schema, `#/components/schemas/${token(name)}`);
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      const raw = op as RawOperation;
      const at = `#/paths/${token(path)}/${method}`;
      for (const [media, content] of Object.entries(raw.requestBody?.content ?? {}))
        add(content.schema, `${at}/requestBody/content/${token(media)}/schema`);
      for (const [status, response] of Object.entries(raw.responses ?? {}))
        for (const [media, content] of Object.entries(response.content ?? {}))
          add(content.schema, `${at}/responses/${token(status)}/content/${token(media)}/schema`);
    }
  }
  return out;
}

/**
 * The validators of contractSchemas() as ajv's standalone code (with the suites' options), by
 * pointer: what the build keeps (catalog/checked.ts) so that no worker loads ajv or compiles a schema.
 */
export function precompileContract(document: Contract['document']): Record<string, string> {
  const ajv = newAjv({ ...AJV_OPTIONS, code: { source: true } });
  const { default: standaloneCode } =
    require('ajv/dist/standalone/index.js') as typeof import('ajv/dist/standalone/index.js');
  const out: Record<string, string> = {};
  for (const [schema, pointer] of contractSchemas(document))
    out[pointer] = standaloneCode(ajv, ajv.compile(schema));
  return out;
}

/** A validator from its standalone code (CommonJS), its few runtime imports resolved from here. */
function instantiate(code: string): ValidateFunction {
  const module: { exports: unknown } = { exports: {} };
  new Function('module', 'exports', 'require', code)(module, module.exports, require);
  return module.exports as ValidateFunction;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** A JSON Schema of the (dereferenced) OpenAPI document, read loosely. */
export interface Schema {
  readonly type?: string | readonly string[];
  readonly format?: string;
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly required?: readonly string[];
  readonly items?: Schema;
  readonly enum?: readonly unknown[];
  readonly additionalProperties?: boolean | Schema;
  readonly [keyword: string]: unknown;
}

export interface Operation {
  readonly operationId: string;
  readonly method: string;
  /** The path template, e.g. /pets/{petId}. */
  readonly path: string;
  readonly deprecated: boolean;
  /** The documented statuses: "200", "4XX", "default". */
  readonly statuses: readonly string[];
  readonly requestSchema?: Schema;
}

/** One way a body breaks the contract, located by JSON pointer. */
export interface ContractIssue {
  /** RFC 6901 pointer into the body; "/" for the whole body. */
  readonly pointer: string;
  /** What is wrong there, e.g. "must be integer". */
  readonly message: string;
  /** The shape expected there, e.g. {"type":"integer","format":"int64"}. */
  readonly expected: string;
  /** The value found there, as JSON text (cut). */
  readonly found: string;
}

interface RawOperation {
  operationId: string;
  deprecated?: boolean;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}

/**
 * The contract as code: spec/openapi.yaml dereferenced once (swagger-parser) and an ajv validator
 * (draft 2020-12, as OpenAPI 3.1 uses, with ajv-formats) per operation and status, compiled once on
 * first use (ajv's code generation is the costly part of starting a worker), or given precompiled
 * (ajv's standalone code, by the build: see `precompiled`). ajv reads numbers as doubles, so int64
 * fields are also checked on the lossless parse of the same text: 2^63 and 2^63 - 1 are one double,
 * but not one int64.
 */
export class Contract {
  private readonly operations = new Map<string, Operation>();
  private readonly raw = new Map<string, RawOperation>();
  private readonly validators = new Map<Schema, ValidateFunction>();
  private readonly names = new Map<Schema, string>();
  /** Component names by schema text: a precompiled validator's errors carry copies of the schemas. */
  private readonly namesByText = new Map<string, string>();
  private readonly pointers: Map<Schema, string>;
  private ajv: Ajv2020 | undefined;

  /**
   * `precompiled`: standalone validator code by pointer (contractSchemas()), made from this very
   * document (precompileContract()); schemas without one are compiled with ajv.
   */
  constructor(
    readonly document: {
      paths: Record<string, Record<string, unknown>>;
      components?: { schemas?: Record<string, Schema> };
    },
    private readonly precompiled: Readonly<Record<string, string>> = {},
  ) {
    this.pointers = contractSchemas(document);
    for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) {
      this.names.set(schema, name);
      this.namesByText.set(JSON.stringify(schema), name);
    }
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!METHODS.includes(method)) continue;
        const raw = op as RawOperation;
        const requestSchema = raw.requestBody?.content?.['application/json']?.schema;
        this.raw.set(raw.operationId, raw);
        this.operations.set(raw.operationId, {
          operationId: raw.operationId,
          method: method.toUpperCase(),
          path,
          deprecated: raw.deprecated === true,
          statuses: Object.keys(raw.responses ?? {}),
          ...(requestSchema ? { requestSchema } : {}),
        });
        if (requestSchema) this.compile(requestSchema);
        for (const response of Object.values(raw.responses ?? {})) {
          for (const media of Object.values(response.content ?? {}))
            if (media.schema) this.compile(media.schema);
        }
      }
    }
  }

  /** The operation of an operationId; throws for an id the document does not have (a suite bug). */
  operation(operationId: string): Operation {
    const op = this.operations.get(operationId);
    if (!op) throw new Error(`contract: no operation ${operationId} in spec/openapi.yaml`);
    return op;
  }

  /** A schema of components/schemas by name (Pet, Pets, PetStatus). */
  schema(name: string): Schema {
    const schema = this.document.components?.schemas?.[name];
    if (!schema) throw new Error(`contract: no schema ${name} in spec/openapi.yaml`);
    return schema;
  }

  /** The documented response key a status falls under ("200", "4XX" or "default"), if any. */
  documentedStatus(operationId: string, status: number): string | undefined {
    const statuses = this.operation(operationId).statuses;
    const exact = String(status);
    if (statuses.includes(exact)) return exact;
    const range = `${exact[0]}XX`;
    if (statuses.includes(range)) return range;
    return statuses.includes('default') ? 'default' : undefined;
  }

  /** The media types documented for a response, e.g. ["application/json"]; [] when no body is described. */
  responseMediaTypes(operationId: string, status: number): string[] {
    const key = this.documentedStatus(operationId, status);
    const response = key ? this.raw.get(operationId)?.responses?.[key] : undefined;
    return Object.keys(response?.content ?? {});
  }

  /** The JSON schema of a response, or undefined when none is documented for that status. */
  responseSchema(operationId: string, status: number): Schema | undefined {
    const key = this.documentedStatus(operationId, status);
    const response = key ? this.raw.get(operationId)?.responses?.[key] : undefined;
    return response?.content?.['application/json']?.schema;
  }

  /**
   * Every way a JSON value breaks a schema: ajv on `value` (numbers as doubles), then the int64
   * fields on `exact` (the lossless parse of the same text; pass it whenever the value came as text).
   */
  validate(schema: Schema, value: unknown, exact?: unknown): ContractIssue[] {
    const validate = this.compile(schema);
    const issues: ContractIssue[] = [];
    if (!validate(value)) {
      for (const e of validate.errors ?? []) issues.push(this.issueOf(e));
    }
    if (exact !== undefined) this.int64Issues(schema, exact, [], issues);
    return issues;
  }

  /** Every way a JSON text breaks a schema; a text that is not JSON is one issue at "/". */
  validateText(schema: Schema, text: string): ContractIssue[] {
    let value: unknown;
    let exact: unknown;
    try {
      value = JSON.parse(text);
      exact = exactOfParsed(text, value);
    } catch (err) {
      return [
        {
          pointer: '/',
          message: `not JSON: ${(err as Error).message}`,
          expected: this.describe(schema),
          found: bodyInline(bodyExcerpt(text, 300), { quoted: true }),
        },
      ];
    }
    return this.validate(schema, value, exact);
  }

  /** A short description of a schema: its component name, or compact JSON with components named. */
  describe(schema: Schema): string {
    const name = this.nameOf(schema);
    if (name === 'Pets') return 'Pets (an array of Pet)';
    if (name) return name;
    const text = JSON.stringify(schema, (_key, value) => {
      if (value !== schema && value && typeof value === 'object') return this.nameOf(value) ?? value;
      return value;
    });
    return cut(text, 200);
  }

  /** The component name of a schema: the object itself, or a copy of it (in a precompiled validator's errors). */
  private nameOf(schema: object): string | undefined {
    return this.names.get(schema as Schema) ?? this.namesByText.get(JSON.stringify(schema));
  }

  private compile(schema: Schema): ValidateFunction {
    let fn = this.validators.get(schema);
    if (!fn) {
      const pointer = this.pointers.get(schema);
      const code = pointer === undefined ? undefined : this.precompiled[pointer];
      if (code !== undefined) fn = instantiate(code);
      else {
        this.ajv ??= newAjv();
        fn = this.ajv.compile(schema);
      }
      this.validators.set(schema, fn);
    }
    return fn;
  }

  private issueOf(e: ErrorObject): ContractIssue {
    const pointer =
      e.keyword === 'required'
        ? `${e.instancePath}/${(e.params as { missingProperty: string }).missingProperty}`
        : e.instancePath || '/';
    const parent = (e.parentSchema ?? {}) as Schema;
    const expected =
      e.keyword === 'required'
        ? `a property "${(e.params as { missingProperty: string }).missingProperty}" (required by ${this.describe(parent)})`
        : this.describe(parent);
    const message =
      e.keyword === 'enum'
        ? `must be one of ${JSON.stringify((e.params as { allowedValues: unknown[] }).allowedValues)}`
        : e.keyword === 'format'
          ? `must be ${parent.type ?? ''} of format ${(e.params as { format: string }).format}`
          : (e.message ?? e.keyword);
    const found = e.keyword === 'required' ? '(missing)' : cut(safeJson(e.data));
    return { pointer, message, expected, found };
  }

  /**
   * The int64 fields of `value` (a lossless parse) outside int64, by walking the schema's properties
   * and items. The path is kept as keys and indices, and written as a JSON pointer only for an issue.
   */
  private int64Issues(schema: Schema, value: unknown, path: (string | number)[], out: ContractIssue[]): void {
    if (schema.format === 'int64' && isExactNumber(value)) {
      const types = typeof schema.type === 'string' ? [schema.type] : (schema.type ?? []);
      if (!types.includes('integer')) return;
      const n = exactInteger(value);
      if (n !== undefined && !inInt64(n)) {
        out.push({
          pointer: path.length === 0 ? '/' : path.map((key) => `/${escapePointer(String(key))}`).join(''),
          message: `must be an int64 (${INT64_MIN} to ${INT64_MAX})`,
          expected: this.describe(schema),
          found: exactText(value),
        });
      }
      return;
    }
    if (Array.isArray(value) && schema.items) {
      for (let i = 0; i < value.length; i++) {
        path.push(i);
        this.int64Issues(schema.items as Schema, value[i], path, out);
        path.pop();
      }
    } else if (value && typeof value === 'object' && !isExactNumber(value) && schema.properties) {
      for (const key in schema.properties) {
        if (!Object.hasOwn(schema.properties, key) || !Object.hasOwn(value, key)) continue;
        path.push(key);
        this.int64Issues(schema.properties[key]!, (value as Record<string, unknown>)[key], path, out);
        path.pop();
      }
    }
  }
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Masked first, then cut (a cut inside a secret would leave its start unmasked). */
function cut(text: string, max = 300): string {
  return clip(text, max, () => '…');
}

/** Formats issues as "at /3/id: must be integer (expected {…}, found "x")", one per line. */
export function formatIssues(issues: readonly ContractIssue[], max = 5): string {
  const lines = issues
    .slice(0, max)
    .map((i) => `at ${i.pointer}: ${i.message} (expected ${i.expected}, found ${i.found})`);
  if (issues.length > max) lines.push(`and ${issues.length - max} more`);
  return lines.join('; ');
}

/**
 * The contract of spec/openapi.yaml (or another document), once per worker. For spec/openapi.yaml
 * compiled (dist/), the document and its validators come as the build checked and precompiled them,
 * while that still holds byte for byte (catalog/checked.ts): no ajv, no compiling. Otherwise the CLI
 * provides the document its preflight already validated and dereferenced (OPENAPI_KEY), so a worker
 * does not load swagger-parser at all (about 0.1 s of a worker's start); otherwise, as under
 * suites/vitest.config.ts or in the harness's own tests, the worker dereferences the file itself.
 */
export function loadContract(file = specFiles.openapi): Promise<Contract> {
  const key = Symbol.for(`petstore-conformance.contract:${file}`);
  const holder = globalThis as { [key]?: Promise<Contract> };
  if (holder[key]) return holder[key];
  const checked = file === specFiles.openapi ? readChecked() : undefined;
  if (checked) {
    holder[key] = Promise.resolve(
      new Contract(checked.openapi as Contract['document'], checked.validators.suites),
    );
    return holder[key];
  }
  const provided = file === specFiles.openapi ? inject(OPENAPI_KEY) : undefined;
  holder[key] = (
    provided !== undefined
      ? Promise.resolve(provided)
      : import('@apidevtools/swagger-parser').then(({ default: SwaggerParser }) =>
          SwaggerParser.dereference(file),
        )
  ).then((doc) => new Contract(doc as unknown as Contract['document']));
  return holder[key];
}

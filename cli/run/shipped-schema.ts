/**
 * The files a run reads from its user (the config file, the expected deviations) checked against
 * the JSON Schemas the package ships in schemas/, the ones editors check them with: ajv, with
 * ajv-formats, each schema compiled once, and loaded only when such a file is read.
 *
 * What is wrong is said in the schema's own words: every node that can fail carries a `title`
 * saying what it takes ("true or false", "a date as YYYY-MM-DD"), and a node marked `writeOnly` (the
 * API key) is never quoted back. The caller says where, in its file's terms.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Ajv as AjvType, AnySchema, ErrorObject, ValidateFunction } from 'ajv';
import { packageRoot } from '../../catalog/paths.ts';

/** The first thing wrong with a document, as the schema says it. */
export type SchemaProblem =
  /** `key` is not one of `allowed` (additionalProperties: false). */
  | {
      readonly kind: 'unknown key';
      readonly at: readonly string[];
      readonly key: string;
      readonly allowed: readonly string[];
    }
  /** `key` is not a name the schema allows there (propertyNames). */
  | {
      readonly kind: 'bad name';
      readonly at: readonly string[];
      readonly key: string;
      readonly expected: string;
    }
  /** The object at `at` lacks `key`, which takes `expected`. */
  | {
      readonly kind: 'missing';
      readonly at: readonly string[];
      readonly key: string;
      readonly expected: string;
    }
  /** The value at `at` is not `expected`; `secret` when it must never be quoted back. */
  | {
      readonly kind: 'invalid';
      readonly at: readonly string[];
      readonly expected: string;
      readonly value: unknown;
      readonly secret: boolean;
    };

const validators = new Map<string, { validate: ValidateFunction; schema: AnySchema }>();

/** schemas/<name> of the package, absolute. */
export function shippedSchemaFile(name: string): string {
  return path.join(packageRoot(), 'schemas', name);
}

/** What is wrong with `data` by schemas/<name> ("config.schema.json"); undefined when nothing is. */
export function schemaProblem(name: string, data: unknown): SchemaProblem | undefined {
  let compiled = validators.get(name);
  if (compiled === undefined) {
    const require = createRequire(import.meta.url);
    const { default: Ajv } = require('ajv') as { default: new (options: object) => AjvType };
    const { default: addFormats } = require('ajv-formats') as { default: (ajv: AjvType) => void };
    const ajv = new Ajv({ strict: true, verbose: true });
    addFormats(ajv);
    const schema = JSON.parse(readFileSync(shippedSchemaFile(name), 'utf8')) as AnySchema;
    compiled = { validate: ajv.compile(schema), schema };
    validators.set(name, compiled);
  }
  if (compiled.validate(data)) return undefined;
  return problemOf(decisive(compiled.validate.errors ?? []), compiled.schema);
}

/**
 * The error that says what is wrong: ajv stops at the first failing keyword, reporting an `anyOf`
 * after the failures of each of its branches (which say only why that branch did not fit) and an
 * `if` after its `then` or `else` (which say it better): the last error once those are set aside.
 */
function decisive(errors: readonly ErrorObject[]): ErrorObject {
  const combined = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const kept = errors.filter(
    (e) => e.keyword !== 'if' && !combined.some((c) => e.schemaPath.startsWith(`${c.schemaPath}/`)),
  );
  return (kept.at(-1) ?? errors.at(-1))!;
}

function problemOf(error: ErrorObject, root: AnySchema): SchemaProblem {
  const at = error.instancePath
    .split('/')
    .slice(1)
    .map((key) => key.replace(/~1/g, '/').replace(/~0/g, '~'));
  const node = (error.parentSchema ?? {}) as Node;
  const words = (n: Node | undefined) => resolve(n, root)?.title ?? error.message ?? 'something else';
  switch (error.keyword) {
    case 'additionalProperties':
      return {
        kind: 'unknown key',
        at,
        key: String(error.params.additionalProperty),
        allowed: Object.keys(node.properties ?? {}),
      };
    case 'propertyNames':
      return {
        kind: 'bad name',
        at,
        key: String(error.params.propertyName),
        expected: words(node.propertyNames),
      };
    case 'required': {
      const key = String(error.params.missingProperty);
      return { kind: 'missing', at, key, expected: words(node.properties?.[key]) };
    }
    default:
      return {
        kind: 'invalid',
        at,
        expected: words(node),
        value: error.data,
        secret: node.writeOnly === true,
      };
  }
}

/** The parts of a schema node read here. */
interface Node {
  readonly title?: string;
  readonly writeOnly?: boolean;
  readonly $ref?: string;
  readonly properties?: Readonly<Record<string, Node>>;
  readonly propertyNames?: Node;
}

/** A node, or the node its local $ref ("#/definitions/x") points to. */
function resolve(node: Node | undefined, root: AnySchema): Node | undefined {
  if (node?.$ref === undefined || !node.$ref.startsWith('#/')) return node;
  let at: unknown = root;
  for (const key of node.$ref.slice(2).split('/')) at = (at as Record<string, unknown> | undefined)?.[key];
  return at as Node | undefined;
}

/** What a value is, for "got …": a short quote of it. */
export function quoted(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

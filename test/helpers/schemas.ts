// JSON Schemas the tests check documents against, compiled with ajv: the HAR 1.2 schema (har-schema,
// the JSON Schemas of the HAR spec that har-validator uses) and the schemas this package ships.
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Ajv as AjvType, ValidateFunction } from 'ajv';
import { ROOT } from './cli.ts';

const require = createRequire(import.meta.url);
const Ajv = require('ajv').default as new (options: object) => AjvType;
const formats = require('ajv-formats') as { default?: (ajv: AjvType) => void };
const addFormats = formats.default ?? (formats as unknown as (ajv: AjvType) => void);

function errorsOf(validate: ValidateFunction, data: unknown): string[] {
  if (validate(data)) return [];
  return (validate.errors ?? []).slice(0, 10).map((e) => `${e.instancePath || '/'} ${e.message}`);
}

let har: ValidateFunction | undefined;

/** What is wrong with a HAR document against the HAR 1.2 schema: nothing when it is valid. */
export function harErrors(document: unknown): string[] {
  if (har === undefined) {
    // har-schema is draft-06 and uses keywords of its own ("optional", "min"): checked as written, not strictly.
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json'));
    for (const schema of Object.values(require('har-schema') as Record<string, object>))
      ajv.addSchema(schema);
    har = ajv.getSchema('har.json#')!;
  }
  return errorsOf(har, document);
}

const shipped = new Map<string, ValidateFunction>();

/** A schema of schemas/ ("events.schema.json"), compiled strictly as its readers' tools would. */
export function shippedSchema(name: string): (data: unknown) => string[] {
  let validate = shipped.get(name);
  if (validate === undefined) {
    const ajv = new Ajv({ strict: true, allErrors: true });
    addFormats(ajv);
    validate = ajv.compile(require(path.join(ROOT, 'schemas', name)));
    shipped.set(name, validate);
  }
  return (data) => errorsOf(validate, data);
}

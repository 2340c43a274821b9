// The suites' validators the build precompiles (catalog/checked.ts: ajv's standalone code, kept in
// dist/catalog/checked.bin) judge exactly as the ones the harness compiles at run time: the same issues,
// in the same words, for valid and broken bodies alike.
import SwaggerParser from '@apidevtools/swagger-parser';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { specFiles } from '../catalog/paths.ts';
import {
  Contract,
  contractSchemas,
  precompileContract,
  type Schema,
} from '../suites/harness/contract/contract.ts';
import { applyMutation, arbitraryOf, mutationsOf } from '../suites/harness/contract/generate.ts';
import { stringifyExact } from '../suites/harness/evidence/json.ts';

const document = (await SwaggerParser.dereference(specFiles.openapi)) as unknown as Contract['document'];
const Pet = document.components!.schemas!.Pet!;

/** Bodies for a schema: generated valid ones, each broken once, and the shapes servers get wrong. */
function bodies(schema: Schema): string[] {
  const valid = fc.sample(arbitraryOf(schema), { seed: 3, numRuns: 40 });
  const broken = fc
    .sample(fc.record({ pet: arbitraryOf(Pet), mutation: mutationsOf(Pet) }), { seed: 4, numRuns: 60 })
    .map(({ pet, mutation }) => applyMutation(pet as Record<string, unknown>, mutation));
  const texts = [...valid, ...broken, ...broken.map((b) => [b, b])].map((v) => stringifyExact(v));
  return [
    ...texts,
    '{}',
    '[]',
    'null',
    '"a pet"',
    '[{}]',
    '{"id":"1","name":2}',
    '[{"id":1.5,"name":"a"}]',
    '{"id":9223372036854775808,"name":"over"}',
    '[{"id":-9223372036854775809,"name":"under"}]',
    '{"id":1,"name":"a","status":"gone","tag":null}',
  ];
}

describe('validators precompiled at build time', () => {
  test("the suites': the same issues, described the same way, as compiled by ajv in the worker", () => {
    const compiled = new Contract(document);
    const precompiled = new Contract(document, precompileContract(document));
    for (const schema of contractSchemas(document).keys()) {
      for (const text of bodies(schema)) {
        expect(precompiled.validateText(schema, text), text).toEqual(compiled.validateText(schema, text));
      }
    }
    // A broken pet names the component it breaks, though the precompiled errors carry copies of it.
    expect(precompiled.validateText(Pet, '{"id":1}')).toEqual([
      expect.objectContaining({ pointer: '/name', expected: 'a property "name" (required by Pet)' }),
    ]);
  });
});

import { describe, expect, test } from 'vitest';
import { loadContract } from '../../suites/harness/contract/contract.ts';
import { expectSchema } from '../../suites/harness/contract/expect.ts';
import { ConformanceError } from '../../suites/harness/evidence/errors.ts';
import { Client } from '../../suites/harness/http/client.ts';
import { testConfig } from '../helpers/config.ts';
import { httpServer } from '../helpers/servers.ts';

const contract = await loadContract();

/** The failure expectSchema reports for a body the server sends. */
async function schemaFailure(operationId: string, status: number, body: string): Promise<ConformanceError> {
  const server = await httpServer((req, res) => {
    req.resume();
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body);
  });
  try {
    const res = await new Client(testConfig(server.url)).get('/pets');
    try {
      expectSchema(contract, res, operationId);
    } catch (e) {
      expect(e).toBeInstanceOf(ConformanceError);
      return e as ConformanceError;
    }
    throw new Error('expected a ConformanceError');
  } finally {
    await server.close();
  }
}

describe('the contract, compiled once from spec/openapi.yaml', () => {
  test('knows the operations, their documented statuses and media types', () => {
    expect(contract.operation('listPets')).toMatchObject({ method: 'GET', path: '/pets', statuses: ['200'] });
    expect(contract.operation('showPetById').deprecated).toBe(true);
    expect(contract.documentedStatus('createPets', 201)).toBe('201');
    expect(contract.documentedStatus('listPets', 500)).toBeUndefined();
    expect(contract.documentedStatus('listStoreOrders', 500)).toBe('default');
    expect(contract.responseMediaTypes('listPets', 200)).toEqual(['application/json']);
    expect(contract.responseMediaTypes('createPets', 201)).toEqual([]);
    expect(() => contract.operation('deletePet')).toThrow('no operation deletePet');
  });

  test('a body that breaks the schema fails naming the operation, the JSON pointer, the shape and the body', async () => {
    const err = await schemaFailure(
      'listPets',
      200,
      '[{"id":1,"name":"a"},{"id":"7","name":"b","status":"lost"}]',
    );
    expect(err.expected).toBe('the listPets 200 body to match Pets (an array of Pet)');
    expect(err.received).toContain(
      'at /1/id: must be integer (expected {"type":"integer","format":"int64"}, found "7")',
    );
    expect(err.received).toContain('at /1/status: must be one of ["available","pending","sold"]');
    expect(err.received).toContain('body: [{"id":1,"name":"a"},{"id":"7"');
  });

  test('a missing required property is located where it is missing', async () => {
    const err = await schemaFailure('showPetById', 200, '{"id":1}');
    expect(err.received).toContain(
      'at /name: must have required property \'name\' (expected a property "name" (required by Pet), found (missing))',
    );
  });

  test('an id one past int64 is caught exactly, though a double cannot tell it from the largest int64', async () => {
    expect(Number('9223372036854775808')).toBe(Number('9223372036854775807'));
    const err = await schemaFailure(
      'listPets',
      200,
      '[{"id":9223372036854775807,"name":"max"},{"id":9223372036854775808,"name":"over"}]',
    );
    expect(err.received).toContain(
      'at /1/id: must be an int64 (-9223372036854775808 to 9223372036854775807)',
    );
    expect(err.received).toContain('found 9223372036854775808');
    expect(err.received).not.toContain('at /0/id');
  });

  test('a body that is not JSON fails as such; a status with no schema fails as such', async () => {
    const notJson = await schemaFailure('listPets', 200, '[{"id":1,');
    expect(notJson.expected).toBe('the listPets 200 body to match Pets (an array of Pet)');
    expect(notJson.received).toMatch(/^200, application\/json body of 9 bytes that is not JSON/);
    const noSchema = await schemaFailure('listPets', 500, '{}');
    expect(noSchema.expected).toBe('a status for which listPets documents a body schema');
  });

  test('validates texts exactly: numbers are read without loss before int64 is judged', () => {
    const pet = contract.schema('Pet');
    expect(contract.validateText(pet, '{"id":-9223372036854775808,"name":"min"}')).toEqual([]);
    expect(contract.validateText(pet, '{"id":-9223372036854775809,"name":"under"}')).toMatchObject([
      { pointer: '/id', found: '-9223372036854775809' },
    ]);
    expect(contract.validateText(pet, '{"id":1e3,"name":"exp"}')).toEqual([]);
    expect(contract.validateText(pet, '{"id":1,"name":"a",')).toMatchObject([{ pointer: '/' }]);
  });
});

import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, test } from 'vitest';
import { specFiles } from '../catalog/paths.ts';

// The suites and the reference implementation read their schemas from this one document.
// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is read here as loosely typed data
type Doc = Record<string, any>;

describe('spec/openapi.yaml', async () => {
  const api = (await SwaggerParser.validate(specFiles.openapi)) as Doc;

  test('is a valid OpenAPI document', () => {
    expect(api.openapi).toMatch(/^3\.1\./);
    expect(api.info.version).toBe('1.0.0');
  });

  test('serves production and staging, both under /v1', () => {
    expect(api.servers.map((s: Doc) => s.url)).toEqual(['https://{host}/v1', 'https://{host}/v1']);
  });

  test('declares Pet with id and name required and tag and status optional, none nullable', () => {
    const pet = api.components.schemas.Pet;
    expect(pet.required).toEqual(['id', 'name']);
    expect(pet.properties.id).toEqual({ type: 'integer', format: 'int64' });
    expect(pet.properties.name).toEqual({ type: 'string' });
    expect(pet.properties.tag).toEqual({ type: 'string' });
    expect(pet.properties.status.enum).toEqual(['available', 'pending', 'sold']);
    expect(pet.additionalProperties).toBeUndefined();
  });

  test('limits listPets to at most 100 with a default of 100', () => {
    const [limit] = api.paths['/pets'].get.parameters;
    expect(limit).toMatchObject({ name: 'limit', in: 'query', required: false });
    expect(limit.schema).toEqual({ type: 'integer', maximum: 100, default: 100 });
    expect(api.paths['/pets'].get.responses['200'].content['application/json'].schema.type).toBe('array');
  });

  test('answers createPets with 201 and no body described', () => {
    const create = api.paths['/pets'].post;
    expect(create.requestBody.required).toBe(true);
    expect(Object.keys(create.responses)).toEqual(['201']);
    expect(create.responses['201'].content).toBeUndefined();
  });

  test('marks showPetById deprecated with its sunset recorded as not shown', () => {
    const show = api.paths['/pets/{petId}'].get;
    expect(show.deprecated).toBe(true);
    expect(show['x-sunset'].date).toBeNull();
    expect(show.parameters[0]).toMatchObject({
      name: 'petId',
      in: 'path',
      required: true,
      schema: { type: 'string' },
    });
  });

  test('lists GET /store/orders under the Store tag with its shape left open', () => {
    const orders = api.paths['/store/orders'].get;
    expect(orders.tags).toEqual(['Store']);
    expect(orders.responses.default.content).toBeUndefined();
  });

  test('declares an API key whose carrier is marked unspecified', () => {
    expect(api.components.securitySchemes.ApiKey).toMatchObject({
      type: 'apiKey',
      'x-unspecified': 'carrier',
    });
    expect(api.security).toEqual([{}, { ApiKey: [] }]);
  });
});

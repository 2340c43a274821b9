// The routes of spec/openapi.yaml and the one rule that puts a request under one of them
// (catalog/routes.ts): the exchange log names each request's operation by it, and exchanges.har and
// the response times read that name (test/cli/response-times.test.ts holds them together).
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { specFiles } from '../catalog/paths.ts';
import { routeMatcher, routeNames, routesOf } from '../catalog/routes.ts';

const routes = routesOf(parse(readFileSync(specFiles.openapi, 'utf8')));

describe('the routes of the document', () => {
  test('every operation with an operationId, in the order the document gives them, methods in upper case', () => {
    expect(routes).toEqual([
      { method: 'GET', path: '/pets', operationId: 'listPets' },
      { method: 'POST', path: '/pets', operationId: 'createPets' },
      { method: 'GET', path: '/pets/{petId}', operationId: 'showPetById' },
      { method: 'GET', path: '/store/orders', operationId: 'listStoreOrders' },
    ]);
    expect(routeNames(routes).get('showPetById')).toBe('GET /pets/{petId}');
  });

  test('what is not an operation is passed over: a path item’s parameters, an operation without an id, no paths', () => {
    const document = {
      paths: {
        '/a': {
          summary: 'not an operation',
          parameters: [{ name: 'x', in: 'query' }],
          get: { operationId: 'getA' },
          put: {},
        },
        '/b': null,
      },
    };
    expect(routesOf(document)).toEqual([{ method: 'GET', path: '/a', operationId: 'getA' }]);
    expect(routesOf({})).toEqual([]);
    expect(routesOf(null)).toEqual([]);
  });
});

describe('the route a request belongs to: its path under the base URL, matched exactly', () => {
  const match = routeMatcher(routes);
  const operation = (method: string, path: string) => {
    const found = match(method, path);
    return found === undefined
      ? 'outside'
      : (found.operationId ?? `${found.method} ${found.path} (no operation)`);
  };

  test.each([
    // The routes as written.
    ['GET', '/pets', 'listPets'],
    ['POST', '/pets', 'createPets'],
    ['GET', '/pets/12', 'showPetById'],
    ['GET', '/store/orders', 'listStoreOrders'],
    // A template expression is one whole, non-empty segment, whatever it holds, as sent.
    ['GET', '/pets/abc', 'showPetById'],
    ['GET', `/pets/${'x'.repeat(2000)}`, 'showPetById'],
    ['GET', '/pets/12%20x', 'showPetById'],
    ['GET', '/pets/a%2Fb', 'showPetById'],
    ['GET', '/pets/%', 'showPetById'],
    // A trailing slash, a doubled slash, an empty segment, a segment more: another path.
    ['GET', '/pets/', 'outside'],
    ['GET', '/pets/12/', 'outside'],
    ['GET', '//pets', 'outside'],
    ['GET', '/pets//12', 'outside'],
    ['GET', '/pets/12/toys', 'outside'],
    ['GET', '/', 'outside'],
    ['GET', '', 'outside'],
    // Literal parts as written: no decoding, no other letter case.
    ['GET', '/p%65ts', 'outside'],
    ['GET', '/PETS', 'outside'],
    ['GET', '/pets.json', 'outside'],
    // A path of the document, a method it does not define for it.
    ['DELETE', '/pets/12', 'DELETE /pets/{petId} (no operation)'],
    ['HEAD', '/pets', 'HEAD /pets (no operation)'],
    ['get', '/pets', 'get /pets (no operation)'],
  ])('%s %s: %s', (method, path, expected) => {
    expect(operation(method, path)).toBe(expected);
  });

  test('a concrete path wins over a template that matches it too, whatever their order', () => {
    const mine = { method: 'GET', path: '/pets/mine', operationId: 'listMine' };
    const show = { method: 'GET', path: '/pets/{petId}', operationId: 'showPet' };
    for (const order of [
      [show, mine],
      [mine, show],
    ]) {
      const m = routeMatcher(order);
      expect(m('GET', '/pets/mine')?.operationId).toBe('listMine');
      expect(m('GET', '/pets/12')?.operationId).toBe('showPet');
    }
  });

  test('characters of a pattern in a template are literal', () => {
    const m = routeMatcher([{ method: 'GET', path: '/a.b/{id}+', operationId: 'odd' }]);
    expect(m('GET', '/a.b/1+')?.operationId).toBe('odd');
    expect(m('GET', '/axb/1+')).toBeUndefined();
    expect(m('GET', '/a.b/1')).toBeUndefined();
  });
});

import { gzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { serverForBlock } from '../helpers/servers.ts';
import { call, createPet, idsOf, idText } from './helpers.ts';

describe('POST /v1/pets', () => {
  let nextId = 1000;
  /** A fresh id for each test, so tests do not collide on the shared store. */
  const freshId = () => ++nextId;

  const ref = serverForBlock();

  test('a valid pet is answered 201 with the pet as JSON and a Location of /v1/pets/{id}', async () => {
    const id = freshId();
    const res = await createPet(ref.base, `{"id":${id},"name":"Rex","tag":"dog","status":"available"}`);
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers.location).toBe(`/v1/pets/${id}`);
    expect(res.text).toBe(`{"id":${id},"name":"Rex","tag":"dog","status":"available"}`);
  });

  test('the created pet is then shown and listed with the same fields', async () => {
    const id = freshId();
    const json = `{"id":${id},"name":"Tom","status":"pending"}`;
    expect((await createPet(ref.base, json)).status).toBe(201);
    expect((await call(ref.base, 'GET', `/pets/${id}`)).text).toBe(json);
    expect((await call(ref.base, 'GET', '/pets')).text).toContain(json);
  });

  test.each([
    ['2^63 - 1', '9223372036854775807'],
    ['-2^63', '-9223372036854775808'],
    ['2^53 + 1', '9007199254740993'],
    ['-(2^53 + 1)', '-9007199254740993'],
    ['0', '0'],
  ])('the id %s comes back digit for digit from create, show and list', async (_, id) => {
    const created = await createPet(ref.base, `{"id":${id},"name":"edge"}`);
    expect(created.status).toBe(201);
    expect(created.text).toBe(`{"id":${id},"name":"edge"}`);
    expect(created.headers.location).toBe(`/v1/pets/${id}`);
    const shown = await call(ref.base, 'GET', `/pets/${id}`);
    expect(shown.status).toBe(200);
    expect(shown.text).toBe(`{"id":${id},"name":"edge"}`);
    expect(idsOf(await call(ref.base, 'GET', '/pets'))).toContain(id);
  });

  test('an id written -0 is stored as 0, so it collides with 0', async () => {
    await createPet(ref.base, '{"id":0,"name":"zero"}');
    const res = await createPet(ref.base, '{"id":-0,"name":"minus zero"}');
    expect(res.status).toBe(409);
  });

  test.each([
    ['2^63', '9223372036854775808'],
    ['-2^63 - 1', '-9223372036854775809'],
    ['2^64', '18446744073709551616'],
    ['a 1000-digit number', '1'.repeat(1000)],
  ])('an id outside int64 (%s) is refused with 400 naming the id', async (_, id) => {
    const res = await createPet(ref.base, `{"id":${id},"name":"big"}`);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(res.text)).toMatchObject({
      status: 400,
      detail: expect.stringMatching(/^pet\/id must be /),
    });
    expect(res.text).not.toContain('"status":500');
  });

  test.each([
    ['1.0', '1.0'],
    ['1e2', '1e2'],
    ['1E+2', '1E+2'],
  ])('an integer id not in plain digits (%s) is refused with 400 naming the id', async (_, id) => {
    const res = await createPet(ref.base, `{"id":${id},"name":"form"}`);
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({ detail: 'pet/id must be an int64 in plain digits' });
  });

  test.each([
    ['no id', '{"name":"x"}', 'id'],
    ['no name', `{"id":1}`, 'name'],
    ['an empty object', '{}', 'id'],
  ])('a pet with %s is refused with 400 naming the missing field', async (_, body, field) => {
    const res = await createPet(ref.base, body);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(res.text)).toEqual({
      title: 'Bad Request',
      status: 400,
      detail: `pet must have required property '${field}'`,
    });
  });

  test.each([
    ['id as a string', '{"id":"5","name":"x"}', 'pet/id'],
    ['id as a fraction', '{"id":1.5,"name":"x"}', 'pet/id'],
    ['id as null', '{"id":null,"name":"x"}', 'pet/id'],
    ['id as true', '{"id":true,"name":"x"}', 'pet/id'],
    ['name as a number', '{"id":5,"name":5}', 'pet/name'],
    ['name as null', '{"id":5,"name":null}', 'pet/name'],
    ['tag as null', '{"id":5,"name":"x","tag":null}', 'pet/tag'],
    ['tag as a number', '{"id":5,"name":"x","tag":1}', 'pet/tag'],
    ['status as null', '{"id":5,"name":"x","status":null}', 'pet/status'],
    ['status outside the enum', '{"id":5,"name":"x","status":"lost"}', 'pet/status'],
    ['status in another case', '{"id":5,"name":"x","status":"Available"}', 'pet/status'],
  ])('a pet with %s is refused with 400 naming the field', async (_, body, field) => {
    const res = await createPet(ref.base, body);
    expect(res.status).toBe(400);
    expect((res.json() as { detail: string }).detail).toMatch(new RegExp(`^${field} must be `));
  });

  test.each([
    ['an array', '[{"id":5,"name":"x"}]'],
    ['a string', '"pet"'],
    ['a number', '5'],
    ['a big number', '9223372036854775807'],
    ['null', 'null'],
    ['true', 'true'],
  ])('a JSON body that is not an object (%s) is refused with 400', async (_, body) => {
    const res = await createPet(ref.base, body);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('application/problem+json');
  });

  test.each([
    ['an empty body', ''],
    ['only spaces', '   '],
    ['a truncated object', '{"id":5,"name":"x"'],
    ['single quotes', "{'id':5,'name':'x'}"],
    ['a trailing comma', '{"id":5,"name":"x",}'],
    ['two values', '{"id":5,"name":"x"} {}'],
    ['NaN', '{"id":NaN,"name":"x"}'],
    ['a comment', '{"id":5,"name":"x"/* c */}'],
    ['a repeated key with another value', '{"id":5,"id":6,"name":"x"}'],
  ])('a malformed JSON body (%s) is refused with 400', async (_, body) => {
    const res = await createPet(ref.base, body);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('application/problem+json');
  });

  test('extra properties are kept and served back, numbers digit for digit', async () => {
    const id = freshId();
    const json = `{"id":${id},"name":"x","color":"red","weight":12345678901234567890.125,"nested":{"a":[1,2,{"b":null}]}}`;
    const res = await createPet(ref.base, json);
    expect(res.status).toBe(201);
    expect(res.text).toBe(json);
    expect((await call(ref.base, 'GET', `/pets/${id}`)).text).toBe(json);
  });

  test('names and tags keep every character, escapes included', async () => {
    const id = freshId();
    const name = 'Zoë "the" \\ cat \u2028 🐈 \u0000';
    const res = await createPet(ref.base, JSON.stringify({ id, name, tag: '' }));
    expect(res.status).toBe(201);
    const shown = (await call(ref.base, 'GET', `/pets/${id}`)).json() as { name: string; tag: string };
    expect(shown).toMatchObject({ name, tag: '' });
  });

  test('a second pet with an existing id is refused with 409 and the first is left unchanged', async () => {
    const id = freshId();
    const first = `{"id":${id},"name":"first","tag":"a"}`;
    expect((await createPet(ref.base, first)).status).toBe(201);
    const second = await createPet(ref.base, `{"id":${id},"name":"second"}`);
    expect(second.status).toBe(409);
    expect(second.headers['content-type']).toBe('application/problem+json');
    expect((await call(ref.base, 'GET', `/pets/${id}`)).text).toBe(first);
    const all = idsOf(await call(ref.base, 'GET', '/pets'));
    expect(all.filter((x) => x === String(id))).toHaveLength(1);
  });

  test('pets created concurrently with distinct ids are all stored', async () => {
    const ids = Array.from({ length: 30 }, freshId);
    const results = await Promise.all(ids.map((id) => createPet(ref.base, `{"id":${id},"name":"c${id}"}`)));
    expect(results.map((r) => r.status)).toEqual(ids.map(() => 201));
    for (const id of ids) expect((await call(ref.base, 'GET', `/pets/${id}`)).status).toBe(200);
  });

  test('concurrent creates of one id give exactly one 201 and 409 for the others', async () => {
    const id = freshId();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => createPet(ref.base, `{"id":${id},"name":"n${i}"}`)),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, ...Array(9).fill(409)]);
  });

  test.each([
    ['text/plain', { 'content-type': 'text/plain' }],
    ['application/x-www-form-urlencoded', { 'content-type': 'application/x-www-form-urlencoded' }],
    ['application/merge-patch+json', { 'content-type': 'application/merge-patch+json' }],
    ['no Content-Type', { 'content-type': '' }],
  ])('a body sent as %s is refused with 415', async (_, headers) => {
    const res = await createPet(ref.base, `{"id":${freshId()},"name":"x"}`, headers);
    expect(res.status).toBe(415);
    expect(res.headers['content-type']).toBe('application/problem+json');
  });

  test.each([
    ['gzip-coded', gzipSync(`{"id":1,"name":"x"}`), { 'content-encoding': 'gzip' }],
    [
      'UTF-16',
      Buffer.from('{"id":1,"name":"x"}', 'utf16le'),
      { 'content-type': 'application/json; charset=utf-16' },
    ],
  ])(
    'a body %s is refused with 400: JSON text is UTF-8, whatever the headers name',
    async (_, body, headers) => {
      const res = await call(ref.base, 'POST', '/pets', {
        body,
        headers: { 'content-type': 'application/json', ...headers },
      });
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toBe('application/problem+json');
    },
  );

  test.each([
    'application/json; charset=utf-8',
    'Application/JSON; Charset="UTF-8"',
    'application/json ; foo=bar',
  ])('a body sent as %s is accepted', async (type) => {
    const res = await createPet(ref.base, `{"id":${freshId()},"name":"x"}`, { 'content-type': type });
    expect(res.status).toBe(201);
  });

  test('an id given in the body is read even when the pet lists it last', async () => {
    const id = freshId();
    const res = await createPet(ref.base, `{"name":"late","id":${id}}`);
    expect(res.status).toBe(201);
    expect(idText((res.json() as { id: unknown }).id)).toBe(String(id));
    expect(res.headers.location).toBe(`/v1/pets/${id}`);
  });
});

import { describe, expect, test } from 'vitest';
import { loadContract } from '../../suites/harness/contract/contract.ts';
import type { SentRequest } from '../../suites/harness/evidence/exchange.ts';
import { Model, showString } from '../../suites/harness/model/model.ts';

const contract = await loadContract();
const BASE = 'http://127.0.0.1:9/v1';

function setup(readOnly = false) {
  const model = new Model({ baseUrl: BASE, readOnly }, contract);
  const sent = (method: string, path: string, body?: string): SentRequest => ({
    method,
    url: `${BASE}${path}`,
    headers: {},
    ...(body === undefined ? {} : { body: Buffer.from(body) }),
  });
  return {
    model,
    async create(body: string, status = 201) {
      const w = model.watch(sent('POST', '/pets', body));
      await w.admitted;
      return model.settle(w, status, Buffer.alloc(0));
    },
    read(path: string, body: string, status = 200) {
      return model.settle(model.watch(sent('GET', path)), status, Buffer.from(body));
    },
    async send(method: string, path: string, status: number) {
      const w = model.watch(sent(method, path, '{}'));
      await w.admitted;
      return model.settle(w, status, Buffer.alloc(0));
    },
  };
}

describe('the model of the run: every show and list answer is held against what was created', () => {
  test('a pet read back as it was sent gives no finding; a field not sent may hold any valid value', async () => {
    const m = setup();
    await m.create('{"id":9007199254740993,"name":" Zoë\\u0000","tag":"日本"}');
    expect(
      m.read(
        '/pets/9007199254740993',
        '{"id":9007199254740993,"name":" Zoë\\u0000","tag":"日本","status":"sold","x":1}',
      ),
    ).toEqual([]);
    expect(
      m.read(
        '/pets?limit=5',
        '[{"id":9007199254740993,"name":" Zoë\\u0000","tag":"日本"},{"id":1,"name":"other"}]',
      ),
    ).toEqual([]);
  });

  test('a field that comes back altered is a CREATE-PERSISTED finding, with its code points, on show and in lists', async () => {
    const m = setup();
    await m.create('{"id":12,"name":" Rex","tag":"Zoe\\u0301"}');
    const [shown] = m.read('/pets/12', '{"id":12,"name":"Rex","tag":"Zo\u00e9"}');
    expect(shown).toMatchObject({
      requirementId: 'CREATE-PERSISTED',
      expected:
        'pet 12 with the fields it was created with (name " Rex" [U+0020 U+0052 U+0065 U+0078], tag "Zoe\u0301" [U+005A U+006F U+0065 U+0301])',
      received:
        'GET /v1/pets/12 answered 200 with name "Rex" where " Rex" [U+0020 U+0052 U+0065 U+0078] was sent, tag "Zo\u00e9" [U+005A U+006F U+00E9] where "Zoe\u0301" [U+005A U+006F U+0065 U+0301] was sent',
    });
    expect(shown?.reproduce).toMatch(
      /^curl -i -sS 'http:\/\/127\.0\.0\.1:9\/v1\/pets\/12' {2}# pet 12 was created by this run: POST \/v1\/pets \{"id":12,.*\} answered 201$/,
    );
    const [listed] = m.read('/pets', '[{"id":12,"name":" Rex"}]');
    expect(listed).toMatchObject({
      requirementId: 'CREATE-PERSISTED',
      received:
        'GET /v1/pets answered 200 listing pet 12 with tag (absent) where "Zoe\u0301" [U+005A U+006F U+0065 U+0301] was sent',
    });
  });

  test("ids are compared digit for digit: a show of another id is SHOW-OK's, CREATE-INT64-EXACT's beyond 2^53", async () => {
    const m = setup();
    await m.create('{"id":5,"name":"a"}');
    await m.create('{"id":9223372036854775807,"name":"b"}');
    expect(m.read('/pets/5', '{"id":6,"name":"a"}')[0]?.requirementId).toBe('SHOW-OK');
    expect(m.read('/pets/9223372036854775807', '{"id":9223372036854775806,"name":"b"}')[0]).toMatchObject({
      requirementId: 'CREATE-INT64-EXACT',
      received: 'GET /v1/pets/9223372036854775807 answered 200 with id 9223372036854775806',
    });
  });

  test("an id created twice may come back as either body; one refused with 409 is CREATE-DUPLICATE-ID's; a read sent before the create was answered is not judged", async () => {
    const m = setup();
    await m.create('{"id":6,"name":"one"}');
    await m.create('{"id":6,"name":"two"}');
    expect(m.read('/pets/6', '{"id":6,"name":"two"}')).toEqual([]);
    expect(m.read('/pets/6', '{"id":6,"name":"one"}')).toEqual([]);
    await m.create('{"id":7,"name":"the first"}');
    await m.create('{"id":7,"name":"the second"}', 409);
    expect(m.read('/pets/7', '{"id":7,"name":"the first"}')).toEqual([]);
    expect(m.read('/pets?limit=1', '[{"id":7,"name":"the second"}]')[0]).toMatchObject({
      requirementId: 'CREATE-DUPLICATE-ID',
      received:
        'GET /v1/pets?limit=1 answered 200 listing pet 7 with the fields of the create refused with 409 (name "the second" where "the first" was sent)',
    });
    expect(m.read('/pets/7', '{"id":7,"name":"a third"}')[0]?.requirementId).toBe('CREATE-PERSISTED');
    const early = m.model.watch({ method: 'GET', url: `${BASE}/pets/8`, headers: {} });
    await m.create('{"id":8,"name":"late"}');
    expect(m.model.settle(early, 200, Buffer.from('{"id":8,"name":"other"}'))).toEqual([]);
  });

  test("a pet created and then not found is lost: CREATE-PERSISTED's when its create was alone, CREATE-CONCURRENT's (unless CREATE-PERSISTED fails) when it overlapped", async () => {
    const m = setup();
    await m.create('{"id":21,"name":"alone"}');
    expect(m.read('/pets/21', '{"title":"Not Found"}', 404)[0]).toMatchObject({
      requirementId: 'CREATE-PERSISTED',
      expected:
        'status 200 and pet 21, which this run created (answered 201) while no other write was in flight',
      received: 'GET /v1/pets/21 answered 404: the pet is lost',
    });
    const post = (body: string) =>
      m.model.watch({ method: 'POST', url: `${BASE}/pets`, headers: {}, body: Buffer.from(body) });
    const [a, b] = [post('{"id":22,"name":"a"}'), post('{"id":23,"name":"b"}')];
    await Promise.all([a.admitted, b.admitted]);
    m.model.settle(a, 201, Buffer.alloc(0));
    m.model.settle(b, 201, Buffer.alloc(0));
    expect(m.read('/pets/22', '', 404)[0]).toMatchObject({
      requirementId: 'CREATE-CONCURRENT',
      unless: ['CREATE-PERSISTED'],
    });
    // Never created, or a fresh id: a 404 is the answer the checks expect.
    expect(m.read('/pets/24', '', 404)).toEqual([]);
  });

  test("a page with room that leaves out a pet the run created is LIST-LIMIT-FILLS's; a full page, a page of non-Pets, and answers to requests without the key are not judged", async () => {
    const m = setup();
    await m.create('{"id":31,"name":"a"}');
    await m.create('{"id":32,"name":"b"}');
    expect(m.read('/pets?limit=5', '[{"id":31,"name":"a"}]')[0]).toMatchObject({
      requirementId: 'LIST-LIMIT-FILLS',
      received: 'GET /v1/pets?limit=5 answered 200 with 1 pet(s), pet 32 not among them',
      unless: ['CREATE-PERSISTED', 'CREATE-CONCURRENT'],
    });
    expect(m.read('/pets?limit=1', '[{"id":31,"name":"a"}]')).toEqual([]);
    expect(m.read('/pets', '[{"id":"31","name":"a"}]')).toEqual([]);
    expect(m.read('/pets?limit=abc', '[]')).toEqual([]);
    const keyless = m.model.watch({ method: 'GET', url: `${BASE}/pets`, headers: {} }, false, true);
    expect(m.model.settle(keyless, 200, Buffer.from('[]'))).toEqual([]);
  });

  test('a pet the server may have made something else of is not judged: a 2xx to an invalid body, to a PUT', async () => {
    const m = setup();
    await m.create('{"id":3,"name":7}');
    expect(m.read('/pets/3', '{"id":3,"name":"repaired"}')).toEqual([]);
    await m.create('{"id":4,"name":"kept"}');
    await m.send('PUT', '/pets/4', 204);
    expect(m.read('/pets/4', '{"id":4,"name":"changed"}')).toEqual([]);
    await m.create('{"id":5,"name":"kept"}');
    await m.send('PUT', '/pets/5', 405);
    expect(m.read('/pets/5', '{"id":5,"name":"changed"}')).toHaveLength(1);
  });

  test("a 2xx to any method that is not safe may have changed the pet: WebDAV's MOVE too", async () => {
    const m = setup();
    await m.create('{"id":6,"name":"kept"}');
    await m.send('MOVE', '/pets/6', 201);
    expect(m.read('/pets/6', '{"id":6,"name":"moved"}')).toEqual([]);
    await m.create('{"id":7,"name":"kept"}');
    await m.send('PROPFIND', '/pets/7', 405);
    expect(m.read('/pets/7', '{"id":7,"name":"changed"}')).toHaveLength(1);
  });

  test('what JSON leaves to the reader is not compared: a lone surrogate, a string of a body that is not UTF-8', async () => {
    const m = setup();
    await m.create('{"id":8,"name":"Rex\\uD800","tag":"t"}');
    expect(m.read('/pets/8', '{"id":8,"name":"Rex\uFFFD","tag":"t"}')).toEqual([]);
    expect(m.read('/pets/8', '{"id":8,"name":"Rex","tag":"other"}')[0]?.requirementId).toBe(
      'CREATE-PERSISTED',
    );
    const w = m.model.watch({
      method: 'POST',
      url: `${BASE}/pets`,
      headers: {},
      body: Buffer.concat([
        Buffer.from('{"id":9,"name":"Rex'),
        Buffer.from([0xff]),
        Buffer.from('","tag":"t"}'),
      ]),
    });
    await w.admitted;
    m.model.settle(w, 201, Buffer.alloc(0));
    expect(m.read('/pets/9', '{"id":9,"name":"Rex\u00ff","tag":"t"}')).toEqual([]);
    expect(m.read('/pets/9', '{"id":9,"name":"Rex","tag":"other"}')[0]?.requirementId).toBe(
      'CREATE-PERSISTED',
    );
  });

  test('answers that are not Pets by the schema, or neither 200 nor 404, are left to the checks', async () => {
    const m = setup();
    await m.create('{"id":2,"name":"a"}');
    expect(m.read('/pets/2', '{"pet":{"id":2,"name":"b"}}')).toEqual([]);
    expect(m.read('/pets/2', '{"id":"2","name":"b"}')).toEqual([]);
    expect(m.read('/pets/2', '{"id":2,"name":"b"}', 500)).toEqual([]);
    expect(m.read('/pets', '{"items":[{"id":2,"name":"b"}]}')).toEqual([]);
  });

  test("read-only, a pet shown disagreeing with what a list showed of it is SHOW-OK's", () => {
    const m = setup(true);
    expect(m.read('/pets?limit=1', '[{"id":70,"name":"Rex","tag":"a"}]')).toEqual([]);
    expect(m.read('/pets/70', '{"id":70,"name":"Rex","status":"sold"}')).toEqual([]);
    expect(m.read('/pets/70', '{"id":70,"name":"Max"}')[0]).toMatchObject({
      requirementId: 'SHOW-OK',
      received: 'GET /v1/pets/70 answered 200 with name "Max" where it showed "Rex"',
    });
    expect(setup(false).read('/pets/70', '{"id":70,"name":"Max"}')).toEqual([]);
  });

  test('an alone create waits for the creates in flight and holds back later ones; creates in flight together are marked', async () => {
    const { model } = setup();
    const sent = (id: number): SentRequest => ({
      method: 'POST',
      url: `${BASE}/pets`,
      headers: {},
      body: Buffer.from(`{"id":${id},"name":"n"}`),
    });
    const first = model.watch(sent(1));
    await first.admitted;
    const second = model.watch(sent(2));
    await second.admitted;
    const order: string[] = [];
    const alone = model.watch(sent(3), true);
    const aloneGo = alone.admitted.then(() => order.push('alone'));
    const later = model.watch(sent(4));
    const laterGo = later.admitted.then(() => order.push('later'));
    await new Promise((r) => setTimeout(r, 5));
    expect(order).toEqual([]);
    model.settle(first, 201, Buffer.alloc(0));
    model.settle(second, 201, Buffer.alloc(0));
    await aloneGo;
    await new Promise((r) => setTimeout(r, 5));
    expect(order).toEqual(['alone']);
    model.settle(alone, 201, Buffer.alloc(0));
    await laterGo;
    expect(order).toEqual(['alone', 'later']);
    model.settle(later, 201, Buffer.alloc(0));
    expect(model.attemptsOf('1')[0]?.overlapped).toBe(true);
    expect(model.attemptsOf('2')[0]?.overlapped).toBe(true);
    expect(model.attemptsOf('3')[0]?.overlapped).toBe(false);
    expect(model.attemptsOf('4')[0]?.overlapped).toBe(false);
  });

  test('an alone create waits for every write in flight, not only the creates it follows: a POST to /pets/, one without the key, a DELETE', async () => {
    const { model } = setup();
    const request = (method: string, path: string, body = ''): SentRequest => ({
      method,
      url: `${BASE}${path}`,
      headers: {},
      body: Buffer.from(body),
    });
    const slash = model.watch(request('POST', '/pets/', '{"id":5,"name":"n"}'));
    const keyless = model.watch(request('POST', '/pets', '{"id":6,"name":"n"}'), false, true);
    const removal = model.watch(request('DELETE', '/pets/7'));
    const read = model.watch(request('GET', '/pets'));
    await Promise.all([slash.admitted, keyless.admitted, removal.admitted, read.admitted]);
    let went = false;
    const alone = model.watch(request('POST', '/pets', '{"id":8,"name":"n"}'), true);
    const aloneGo = alone.admitted.then(() => {
      went = true;
    });
    for (const w of [slash, keyless, read]) {
      model.settle(w, 201, Buffer.alloc(0));
      await new Promise((r) => setTimeout(r, 2));
      expect(went).toBe(false);
    }
    model.settle(removal, 405, Buffer.alloc(0));
    await aloneGo;
    // A write sent while the alone create is in flight waits for its answer.
    let after = false;
    const next = model.watch(request('PUT', '/pets/8', '{}'));
    const nextGo = next.admitted.then(() => {
      after = true;
    });
    await new Promise((r) => setTimeout(r, 2));
    expect(after).toBe(false);
    model.settle(alone, 201, Buffer.alloc(0));
    await nextGo;
    expect(model.attemptsOf('8')[0]?.overlapped).toBe(false);
  });

  test('a create in flight with any other write is marked overlapped', async () => {
    const { model } = setup();
    const probe = model.watch({ method: 'PATCH', url: `${BASE}/pets`, headers: {}, body: Buffer.from('{}') });
    await probe.admitted;
    const create = model.watch({
      method: 'POST',
      url: `${BASE}/pets`,
      headers: {},
      body: Buffer.from('{"id":9,"name":"n"}'),
    });
    await create.admitted;
    model.settle(create, 201, Buffer.alloc(0));
    model.settle(probe, 405, Buffer.alloc(0));
    expect(model.attemptsOf('9')[0]?.overlapped).toBe(true);
  });

  test('shows invisible differences as code points: white space at an end, characters outside printable ASCII', () => {
    expect(showString('Rex')).toBe('"Rex"');
    expect(showString('Rex ')).toBe('"Rex " [U+0052 U+0065 U+0078 U+0020]');
    expect(showString('🐈')).toBe('"🐈" [U+1F408]');
    expect(showString(undefined)).toBe('(absent)');
    expect(showString('')).toBe('""');
  });
});

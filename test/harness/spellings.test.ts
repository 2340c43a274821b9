import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { LIST_QUERIES, QUERIES, spellingsOf, targetsOf } from '../../suites/harness/contract/spellings.ts';
import { Client } from '../../suites/harness/http/client.ts';
import { testConfig } from '../helpers/config.ts';
import { type HandMadeServer, httpServer } from '../helpers/servers.ts';

const execFileAsync = promisify(execFile);
const hasCurl = spawnSync('curl', ['--version']).status === 0;

describe('the spellings of a path', () => {
  test('of the list: its last segment reached and spelled otherwise, HEAD, and a POST taken for a GET', () => {
    expect(spellingsOf('/pets', false).map((s) => `${s.method} ${s.path}`)).toEqual([
      'GET /pets/',
      'GET //pets',
      'GET /./pets',
      'GET /x/../pets',
      'GET /%2e/pets',
      'GET /%70ets',
      'GET /%2570ets',
      'GET /pets;x=1',
      'HEAD /pets',
      'POST /pets',
    ]);
    const post = spellingsOf('/pets', false).at(-1);
    expect(post?.headers).toEqual({
      'X-HTTP-Method-Override': 'GET',
      'X-HTTP-Method': 'GET',
      'X-Method-Override': 'GET',
    });
  });

  test('of a pet, read-only: GETs alone, the slash before the id encoded too', () => {
    expect(spellingsOf('/pets/42', true).map((s) => `${s.method} ${s.path}`)).toEqual([
      'GET /pets/42/',
      'GET /pets//42',
      'GET /pets/./42',
      'GET /pets/x/../42',
      'GET /pets/%2e/42',
      'GET /pets/%342',
      'GET /pets/%25342',
      'GET /pets/42;x=1',
      'GET /pets%2F42',
    ]);
  });
});

describe('the targets of a path (targetsOf)', () => {
  const targets = targetsOf('/pets', false, LIST_QUERIES);

  test('are each spelling and the path as documented, with each query, in origin and absolute form', () => {
    const spellings = spellingsOf('/pets', false).length + 1;
    expect(targets).toHaveLength(spellings * LIST_QUERIES.length * 2 - 1);
    expect(new Set(targets.map((t) => `${t.method} ${t.path} ${t.absolute ?? false}`)).size).toBe(
      targets.length,
    );
  });

  test('leave out the path as documented in origin form without a query, which the operations send', () => {
    expect(targets.some((t) => t.path === '/pets' && t.method === 'GET' && !t.absolute)).toBe(false);
    expect(targets.filter((t) => t.path === '/pets' && t.method === 'GET').map((t) => t.case)).toEqual([
      'the path as documented, in absolute form',
    ]);
  });

  test('name each combination: the spelling, the query, the form', () => {
    expect(targets.map((t) => `${t.method} ${t.path}${t.absolute ? ' (absolute)' : ''}`)).toEqual(
      expect.arrayContaining([
        'GET /pets? (absolute)',
        'GET /pets?limit=5',
        'GET /./pets?x=1 (absolute)',
        'GET /%2570ets?',
        'HEAD /pets?x=1 (absolute)',
      ]),
    );
    expect(targets.find((t) => t.path === '/./pets?x=1' && t.absolute)?.case).toBe(
      'a dot segment, an unrelated query parameter, in absolute form',
    );
  });

  test('of a pet, read-only: GETs alone, with the queries given', () => {
    const pet = targetsOf('/pets/42', true, QUERIES);
    expect(pet.every((t) => t.method === 'GET')).toBe(true);
    expect(pet).toHaveLength((spellingsOf('/pets/42', true).length + 1) * QUERIES.length * 2 - 1);
  });
});

describe('a path sent as written (RequestOptions.asWritten)', () => {
  let server: HandMadeServer;
  const seen: string[] = [];
  beforeAll(async () => {
    server = await httpServer((req, res) => {
      req.resume();
      seen.push(`${req.method} ${req.url}`);
      res.end();
    });
  });
  afterAll(() => server.close());

  test('reaches the server as written, every spelling of both paths (undici leaves the path alone)', async () => {
    seen.length = 0;
    const api = new Client(testConfig(server.url));
    const spellings = [...spellingsOf('/pets', false), ...spellingsOf('/pets/42', false)];
    for (const { method, path, headers } of spellings)
      await api.request(method, path, { asWritten: true, ...(headers ? { headers } : {}) });
    expect(seen).toEqual(spellings.map(({ method, path }) => `${method} /v1${path}`));
  });

  test('is otherwise resolved as a URL: without asWritten, dot segments are gone before it leaves', async () => {
    seen.length = 0;
    await new Client(testConfig(server.url)).get('/x/../pets/%2e/42');
    expect(seen).toEqual(['GET /v1/pets/42']);
  });

  test('reaches the server as a whole URL in absolute form, as written (RequestOptions.target)', async () => {
    seen.length = 0;
    await new Client(testConfig(server.url)).get('/./pets?x=1', { asWritten: true, target: 'absolute' });
    expect(seen).toEqual([`GET ${new URL(server.url).origin}/v1/./pets?x=1`]);
  });

  test.runIf(hasCurl)('in absolute form, is re-sent so by its curl line (--request-target)', async () => {
    seen.length = 0;
    const res = await new Client(testConfig(server.url)).get('/./pets', {
      asWritten: true,
      target: 'absolute',
    });
    expect(res.reproduce).toContain(`--request-target '${new URL(server.url).origin}/v1/./pets'`);
    await execFileAsync('sh', ['-c', res.reproduce]);
    expect(seen).toEqual([
      `GET ${new URL(server.url).origin}/v1/./pets`,
      `GET ${new URL(server.url).origin}/v1/./pets`,
    ]);
  });

  test.runIf(hasCurl)('is re-sent as written by its curl line (--path-as-is)', async () => {
    seen.length = 0;
    const res = await new Client(testConfig(server.url)).get('/x/.././pets', { asWritten: true });
    expect(res.reproduce).toContain('--path-as-is');
    await execFileAsync('sh', ['-c', res.reproduce]);
    expect(seen).toEqual(['GET /v1/x/.././pets', 'GET /v1/x/.././pets']);
  });
});

import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { spellingsOf } from '../../suites/harness/contract/spellings.ts';
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
      'GET /pets/42;x=1',
      'GET /pets%2F42',
    ]);
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

  test.runIf(hasCurl)('is re-sent as written by its curl line (--path-as-is)', async () => {
    seen.length = 0;
    const res = await new Client(testConfig(server.url)).get('/x/.././pets', { asWritten: true });
    expect(res.reproduce).toContain('--path-as-is');
    await execFileAsync('sh', ['-c', res.reproduce]);
    expect(seen).toEqual(['GET /v1/x/.././pets', 'GET /v1/x/.././pets']);
  });
});

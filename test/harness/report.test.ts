// What a check's Allure result holds (suites/harness/requirement/report.ts), as the runtime messages
// allure-js-commons sends from inside the test: allure-js-commons' own MessageHolderTestRuntime stands
// for allure-vitest's runtime and keeps them. test/harness/requirement.test.ts and
// test/cli/allure-vitest.test.ts read the results allure-vitest writes from them.
import type { RuntimeMessage } from 'allure-js-commons/sdk';
import { MessageHolderTestRuntime, setGlobalTestRuntime } from 'allure-js-commons/sdk/runtime';
import type { TaskMeta } from 'vitest';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { loadCatalog } from '../../catalog/catalog.ts';
import { loadContract } from '../../suites/harness/contract/contract.ts';
import { Client } from '../../suites/harness/http/client.ts';
import { Blocked } from '../../suites/harness/requirement/blocked.ts';
import { SkipCheck } from '../../suites/harness/requirement/outcome.ts';
import {
  describeRequirement,
  reportEnding,
  reportRequirement,
  sectionLink,
} from '../../suites/harness/requirement/report.ts';
import { testConfig } from '../helpers/config.ts';
import { type HandMadeServer, httpServer } from '../helpers/servers.ts';

const catalog = loadCatalog();
let runtime: MessageHolderTestRuntime;
let server: HandMadeServer | undefined;

beforeEach(() => {
  runtime = new MessageHolderTestRuntime();
  setGlobalTestRuntime(runtime);
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The messages of one kind. */
const sent = <T extends RuntimeMessage['type']>(type: T) =>
  runtime.messages().filter((m): m is Extract<RuntimeMessage, { type: T }> => m.type === type);

/** A client that has sent `n` requests to a server answering 200 with a small JSON list. */
async function clientWith(n: number): Promise<Client> {
  server = await httpServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('[]');
  });
  const api = new Client(testConfig(server.url, { apiKey: 'report-test-key' }));
  for (let i = 0; i < n; i++) await api.get('/pets', { query: { limit: i + 1 } });
  return api;
}

describe('as the test starts: its requirement', () => {
  test('labels, description, links and the case of its row', async () => {
    const r = catalog.get('LIST-LIMIT-OVER-MAX')!;
    await reportRequirement(r, 'limit=101', testConfig('http://x/v1'), await loadContract());
    const labels = sent('metadata').flatMap((m) => m.data.labels ?? []);
    expect(labels).toEqual([
      { name: 'operation', value: 'GET /pets (listPets)' },
      { name: 'requirement', value: 'LIST-LIMIT-OVER-MAX' },
      { name: 'story', value: 'LIST-LIMIT-OVER-MAX (MUST) a limit above 100 is rejected with a 4xx status' },
      { name: 'level', value: 'MUST' },
      { name: 'severity', value: 'critical' },
      { name: 'basis', value: 'derived' },
      { name: 'gating', value: 'yes' },
    ]);
    expect(sent('metadata').flatMap((m) => m.data.parameters ?? [])).toEqual([
      { name: 'case', value: 'limit=101' },
    ]);
    const description = sent('metadata').find((m) => m.data.description)?.data.description;
    expect(description).toBe(describeRequirement(r));
    expect(description).toContain(`> ${r.source.text.trim()}`);
    expect(description).toContain(`section "${r.source.section}"`);
    expect(sent('metadata').flatMap((m) => m.data.links ?? [])).toEqual([
      sectionLink(r),
      {
        name: 'RFC 9110 §15.5',
        url: 'https://www.rfc-editor.org/rfc/rfc9110.html#section-15.5',
        type: 'link',
      },
    ]);
    expect(sectionLink(r).url).toMatch(/^file:\/\/.*\/spec\/service\.md#get-pets-operation-listpets$/);
  });

  test('a SHOULD gates only with --strict; a requirement of any operation is grouped by its topic', async () => {
    const contract = await loadContract();
    const gating = async (id: string, strict: boolean) => {
      runtime = new MessageHolderTestRuntime();
      setGlobalTestRuntime(runtime);
      await reportRequirement(catalog.get(id)!, undefined, testConfig('http://x/v1', { strict }), contract);
      const labels = sent('metadata').flatMap((m) => m.data.labels ?? []);
      return [
        labels.find((l) => l.name === 'gating')?.value,
        labels.find((l) => l.name === 'operation')?.value,
      ];
    };
    expect(await gating('SHOW-UNKNOWN-404', false)).toEqual(['no', 'GET /pets/{petId} (showPetById)']);
    expect(await gating('SHOW-UNKNOWN-404', true)).toEqual(['yes', 'GET /pets/{petId} (showPetById)']);
    expect(await gating('AUTH-KEY-ACCEPTED', false)).toEqual(['yes', 'auth (any operation)']);
    expect(await gating('ANY-NO-5XX', false)).toEqual(['yes', 'any operation']);
    expect(sent('metadata').flatMap((m) => m.data.parameters ?? [])).toEqual([]);
  });
});

describe('as the check ends: what it saw', () => {
  const decode = (m: Extract<RuntimeMessage, { type: 'attachment_content' }>) =>
    Buffer.from(m.data.content, m.data.encoding).toString('utf8');

  test('a passed check attaches no exchange (exchanges.har holds them)', async () => {
    const api = await clientWith(3);
    await reportEnding(undefined, { kind: 'passed' }, {} as TaskMeta, api);
    expect(runtime.messages()).toEqual([]);
  });

  test('a failed check: its request and its response, each an attachment, masked; what it saw for other requirements, failed steps', async () => {
    const api = await clientWith(1);
    const meta = {
      serverErrors: [
        { method: 'GET', url: 'http://x/v1/pets', status: 502, reproduce: "curl 'http://x/v1/pets'" },
      ],
      findings: [
        {
          requirementId: 'SHOW-OK',
          expected: 'the pet created',
          received: '404',
          reproduce: "curl 'http://x/v1/pets/7'",
        },
      ],
    } as TaskMeta;
    await reportEnding(new Error('x'), { kind: 'failed', error: new Error('x') }, meta, api);
    expect(sent('attachment_content').map((m) => m.data.name)).toEqual([
      'request: GET /v1/pets?limit=1',
      expect.stringMatching(/^response: 200 OK · 2 bytes · \d+ ms$/),
    ]);
    const steps = sent('step_start').map((m) => m.data.name);
    expect(steps).toEqual([
      "seen for ANY-NO-5XX: GET http://x/v1/pets answered 502 · reproduce: curl 'http://x/v1/pets'",
      "seen for SHOW-OK: expected the pet created; received 404 · reproduce: curl 'http://x/v1/pets/7'",
    ]);
    expect(sent('step_stop').map((m) => m.data.status)).toEqual(['failed', 'failed']);
    const [request, response] = sent('attachment_content');
    expect(request?.data.contentType).toBe('text/plain');
    expect(decode(request!)).toMatch(/^GET http:.*limit=1\nx-api-key: \*\*\*\n/);
    expect(decode(response!)).toMatch(/^HTTP 200 OK/);
    expect(JSON.stringify(runtime.messages())).not.toContain('report-test-key');
  });

  test('a blocked check is tagged and keeps its evidence; a check skipped for its own reason shows no exchange', async () => {
    const api = await clientWith(1);
    const blocked = new Blocked(['CREATE-OK'], 'a pet', (await api.get('/pets')) as never);
    await reportEnding(
      blocked,
      { kind: 'skipped', reason: blocked.message },
      { blockedBy: ['CREATE-OK'] } as TaskMeta,
      api,
    );
    expect(sent('metadata').flatMap((m) => m.data.labels ?? [])).toEqual([{ name: 'tag', value: 'blocked' }]);
    expect(sent('attachment_content')).toHaveLength(4);

    runtime = new MessageHolderTestRuntime();
    setGlobalTestRuntime(runtime);
    await reportEnding(
      new SkipCheck('the list is empty'),
      { kind: 'skipped', reason: 'the list is empty' },
      {} as TaskMeta,
      api,
    );
    expect(runtime.messages()).toEqual([]);
  });

  test('a check that passed only after retries is tagged flaky', async () => {
    const api = await clientWith(0);
    const meta = { retried: [{ method: 'GET', url: 'http://x/v1/pets', error: 'ECONNRESET' }] } as TaskMeta;
    await reportEnding(undefined, { kind: 'passed' }, meta, api);
    expect(sent('metadata').flatMap((m) => m.data.labels ?? [])).toEqual([{ name: 'tag', value: 'flaky' }]);
    expect(sent('attachment_content')).toEqual([]);
  });
});

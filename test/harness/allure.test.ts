// The request and the response of an exchange as the report shows them: two attachments that read
// as HTTP, in the order sent, keys masked, JSON bodies indented without losing a digit.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  evidenceMessages,
  formatRequest,
  formatResponse,
  indentJson,
  requestTitle,
  responseTitle,
} from '../../suites/harness/allure.ts';
import { excerpt, recordExchange } from '../../suites/harness/exchange.ts';

const base = 'http://127.0.0.1:8080/v1';

describe('JSON bodies, indented token for token', () => {
  test('objects and arrays on lines of their own; numbers, strings and escapes as written', () => {
    expect(indentJson('{"id":9007199254740993,"name":"a, \\"b\\": {c}","tags":[],"o":{}}')).toBe(
      [
        '{',
        '  "id": 9007199254740993,',
        '  "name": "a, \\"b\\": {c}",',
        '  "tags": [],',
        '  "o": {}',
        '}',
      ].join('\n'),
    );
    expect(indentJson('[1,[2]]')).toBe('[\n  1,\n  [\n    2\n  ]\n]');
  });

  test('a body cut in the middle is indented as far as it goes; text that is not JSON is left alone', () => {
    expect(indentJson('[{"id":1},{"id":2,"na')).toBe('[\n  {\n    "id": 1\n  },\n  {\n    "id": 2,\n    "na');
    expect(indentJson('not json')).toBeUndefined();
  });

  test('any JSON object or array comes out as JSON.stringify indents it, whatever white space it had', () => {
    const container = fc.oneof(fc.array(fc.jsonValue()), fc.dictionary(fc.string(), fc.jsonValue()));
    fc.assert(
      fc.property(container, fc.constantFrom(0, 1, 4, '\t', ' \r\n'), (value, space) => {
        expect(indentJson(JSON.stringify(value, null, space))).toBe(JSON.stringify(value, null, 2));
      }),
    );
  });
});

describe('an exchange as a request and a response', () => {
  const post = recordExchange(
    {
      method: 'POST',
      url: `${base}/pets`,
      headers: { 'content-type': 'application/json', 'x-api-key': '***' },
      body: Buffer.from('{"id":12,"name":"Rex"}'),
    },
    {
      status: 201,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify({ id: 12, name: 'Rex', pad: 'x'.repeat(5000) })),
      durationMs: 12.4,
    },
  );

  test('the request: request line, headers, the body indented, its size', () => {
    expect(requestTitle(post)).toBe('POST /v1/pets');
    expect(formatRequest(post)).toBe(
      [
        `POST ${base}/pets`,
        'content-type: application/json',
        'x-api-key: ***',
        '',
        '{',
        '  "id": 12,',
        '  "name": "Rex"',
        '}',
        '',
        'body: 22 bytes',
      ].join('\n'),
    );
  });

  test('the response: status line, headers, the body indented up to its cut, its size', () => {
    expect(responseTitle(post)).toBe('201 Created · 5031 bytes (4.9 KiB) · 12 ms');
    const text = formatResponse(post);
    expect(text.split('\n').slice(0, 7)).toEqual([
      'HTTP 201 Created  (12 ms)',
      'content-type: application/json',
      '',
      '{',
      '  "id": 12,',
      '  "name": "Rex",',
      expect.stringMatching(/^ {2}"pad": "x+$/),
    ]);
    expect(text).toMatch(/\n… \(cut at 4 KiB of 5031 bytes\)\n\nbody: 5031 bytes \(4\.9 KiB\)$/);
    expect(excerpt('x'.repeat(5031))).toMatch(/… \(cut at 4 KiB of 5031 bytes\)$/);
  });

  test('no response: what stopped it, and after how long', () => {
    const x = recordExchange(
      { method: 'GET', url: `${base}/pets`, headers: {} },
      { error: 'timeout after 500 ms', durationMs: 501 },
    );
    expect(responseTitle(x)).toBe('no response · timeout after 500 ms · after 501 ms');
    expect(formatResponse(x)).toBe('(no response: timeout after 500 ms) after 501 ms');
    expect(formatRequest(x)).toBe(`GET ${base}/pets\n\n(no body)`);
  });

  test("a passed check's exchanges together: one attachment, each request above its response", () => {
    const get = recordExchange(
      { method: 'GET', url: `${base}/pets/12`, headers: {} },
      { status: 404, headers: {}, durationMs: 3 },
    );
    const [one, ...more] = evidenceMessages([post, get], 1_700_000_000_000, true);
    expect(more).toEqual([]);
    expect(one?.data.name).toBe(
      'last 2 exchanges: POST /v1/pets → 201 Created · 5031 bytes (4.9 KiB) · 12 ms; GET /v1/pets/12 → 404 Not Found · 3 ms',
    );
    const text = one?.data.content ?? '';
    const at = [
      '── 1/2 ──',
      `POST ${base}/pets`,
      'HTTP 201 Created',
      '── 2/2 ──',
      `GET ${base}/pets/12`,
      'HTTP 404',
    ].map((part) => text.indexOf(part));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    expect(evidenceMessages([get], 1, true)[0]?.data.name).toBe(
      'exchange: GET /v1/pets/12 → 404 Not Found · 3 ms',
    );
  });

  test('attached in the order sent, each request before its response, numbered when there are several', () => {
    const get = recordExchange(
      { method: 'GET', url: `${base}/pets/12`, headers: {} },
      { status: 404, headers: {}, durationMs: 3 },
    );
    const messages = evidenceMessages([post, get], 1_700_000_000_000);
    expect(messages.map((m) => m.data.name)).toEqual([
      'request 1/2: POST /v1/pets',
      'response 1/2: 201 Created · 5031 bytes (4.9 KiB) · 12 ms',
      'request 2/2: GET /v1/pets/12',
      'response 2/2: 404 Not Found · 3 ms',
    ]);
    expect(messages[3]?.data).toMatchObject({
      content: 'HTTP 404 Not Found  (3 ms)\n\n(no body)',
      encoding: 'utf8',
    });
    expect(messages[0]?.data).toMatchObject({
      contentType: 'text/plain',
      wrapInStep: true,
      timestamp: 1_700_000_000_000,
    });
    expect(evidenceMessages([], 1)).toEqual([]);
  });
});

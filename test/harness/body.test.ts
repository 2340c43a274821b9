// A body as every report shows it (suites/harness/evidence/body.ts): the bytes that arrived, decoded as they
// are; re-indented only when valid JSON, every token as written; anything else as it came; a cut
// body says where it was cut. And an exchange as the Allure attachments show it: request and
// response that read as HTTP.
import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  bodyExcerpt,
  bodyForReading,
  bodyInline,
  formatBytes,
  indentedJson,
  keptBytes,
} from '../../suites/harness/evidence/body.ts';
import {
  formatExchange,
  formatRequest,
  formatResponse,
  recordExchange,
  requestTitle,
  responseTitle,
} from '../../suites/harness/evidence/exchange.ts';

const base = 'http://127.0.0.1:8080/v1';

/** JSON text without the white space between its tokens (strings kept as they are). */
function tokens(json: string): string {
  return json.replace(/"(?:[^"\\]|\\.)*"|[ \t\n\r]+/g, (m) => (m.startsWith('"') ? m : ''));
}

/** JSON text as the reader sees it (tokens) when re-indenting it through a parse loses nothing. */
function lossless(json: string): boolean {
  return JSON.stringify(JSON.parse(json)) === tokens(json);
}

const space = fc.constantFrom('', ' ', '\n', '\n    ', '\t', '\r\n', '  \n\t ');

/** Numbers as a server may spell them: exponents, signs, zeros, digits beyond a double's. */
const number = fc.oneof(
  fc.constantFrom(
    '0',
    '-0',
    '1E5',
    '1e+5',
    '2.50',
    '-1.0e-7',
    '9223372036854775807',
    '-9223372036854775808',
    '9007199254740993',
    '123456789012345678901234567890',
    '1e400',
  ),
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
);

/** Strings as a server may spell them: plain, and with every kind of escape. */
const string = fc.oneof(
  fc.string().map((s) => JSON.stringify(s)),
  fc.constantFrom(
    '"\\u00e9"',
    '"é"',
    '"\\/"',
    '"a\\"b\\\\"',
    '"\\ud83d\\ude00"',
    '"\\uD800"',
    '"\\b\\f\\n\\r\\t"',
  ),
);

/** Valid JSON text with the spellings above and any JSON white space between its tokens. */
const jsonText = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    number,
    string,
    fc.constantFrom('true', 'false', 'null'),
    fc
      .array(fc.tuple(space, tie('value'), space), { maxLength: 5 })
      .chain((items) =>
        space.map((inner) =>
          items.length === 0 ? `[${inner}]` : `[${items.map(([a, v, b]) => `${a}${v}${b}`).join(',')}]`,
        ),
      ),
    fc
      .array(fc.tuple(space, string, space, space, tie('value'), space), { maxLength: 5 })
      .chain((members) =>
        space.map((inner) =>
          members.length === 0
            ? `{${inner}}`
            : `{${members.map(([a, k, b, c, v, d]) => `${a}${k}${b}:${c}${v}${d}`).join(',')}}`,
        ),
      ),
  ),
})).value;

describe('valid JSON, re-indented token for token', () => {
  test('objects and arrays on lines of their own; numbers, strings and escapes as written', () => {
    expect(
      indentedJson('{"id":9007199254740993,"name":"a, \\"b\\": {c}","tags":[],"o":{ },"n":1E5,"z":-0}'),
    ).toBe(
      [
        '{',
        '  "id": 9007199254740993,',
        '  "name": "a, \\"b\\": {c}",',
        '  "tags": [],',
        '  "o": {},',
        '  "n": 1E5,',
        '  "z": -0',
        '}',
      ].join('\n'),
    );
    expect(indentedJson(' [1,[2]] ')).toBe('[\n  1,\n  [\n    2\n  ]\n]');
  });

  test('any JSON value comes out as JSON.stringify indents it, whatever white space it had', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(0, 1, 4, '\t', ' \r\n'), (value, indent) => {
        expect(indentedJson(JSON.stringify(value, null, indent))).toBe(JSON.stringify(value, null, 2));
      }),
    );
  });

  test('every token is kept as written; the layout is JSON.stringify(…, null, 2) where a parse loses nothing', () => {
    fc.assert(
      fc.property(jsonText, space, space, (json, before, after) => {
        const text = `${before}${json}${after}`;
        const shown = indentedJson(text);
        expect(shown).toBeDefined();
        expect(tokens(shown!)).toBe(tokens(text));
        if (lossless(text)) expect(shown).toBe(JSON.stringify(JSON.parse(text), null, 2));
      }),
    );
  });
});

describe('anything else, shown as it came', () => {
  test('white space between tokens that is not valid JSON is kept: [1 2] is not 12, tr ue not true', () => {
    for (const text of ['[1 2]', 'tr ue', '{"a":1,}', '[1,2', "{'a':1}", 'NaN', '\ufeff{}', '{"a":01}']) {
      expect(indentedJson(text), text).toBeUndefined();
      expect(bodyForReading(bodyExcerpt(text, 4096))).toBe(text);
    }
  });

  test('a body that is not valid JSON is shown exactly as the bytes arrived', () => {
    const jsonish = fc.string({
      unit: fc.constantFrom(
        '[',
        ']',
        '{',
        '}',
        ',',
        ':',
        ' ',
        '\n',
        '1',
        '-',
        'e',
        '"',
        '\\',
        't',
        'r',
        'u',
        'n',
        'l',
      ),
      maxLength: 40,
    });
    fc.assert(
      fc.property(fc.oneof(jsonish, fc.string({ unit: 'grapheme' })), (text) => {
        fc.pre(indentedJson(text) === undefined);
        const excerpt = bodyExcerpt(Buffer.from(text, 'utf8'), 1024 * 1024);
        expect(bodyForReading(excerpt)).toBe(text);
        expect(excerpt).toEqual({ size: Buffer.byteLength(text), ...(text === '' ? {} : { text }) });
      }),
    );
  });

  test('bytes that are not UTF-8 are shown as base64, said so, never as characters made up for them', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 300 }), (bytes) => {
        fc.pre(!isUtf8(bytes));
        const shown = bodyForReading(bodyExcerpt(bytes, 4096)).split('\n');
        expect(shown[0]).toBe('(not UTF-8 text: its bytes in base64)');
        expect(Buffer.from(shown[1]!, 'base64')).toEqual(Buffer.from(bytes));
        expect(shown.join('\n')).not.toContain('\ufffd');
      }),
    );
  });
});

describe('a cut body says where it was cut', () => {
  test('the first bytes, as they came (never indented), back to a whole character, and the cut below them', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: 'grapheme', minLength: 1 }), jsonText),
        fc.integer({ min: 1, max: 64 }),
        (text, bound) => {
          const size = Buffer.byteLength(text);
          fc.pre(size > bound);
          const excerpt = bodyExcerpt(text, bound);
          expect(excerpt.cut).toBe(true);
          const kept = excerpt.text ?? '';
          expect(text.startsWith(kept)).toBe(true);
          expect(keptBytes(excerpt)).toBeLessThanOrEqual(bound);
          // Back to a whole character: the next one did not fit.
          expect(
            Buffer.byteLength(text.slice(0, kept.length + (text.codePointAt(kept.length)! > 0xffff ? 2 : 1))),
          ).toBeGreaterThan(bound);
          expect(bodyForReading(excerpt)).toBe(
            `${kept}\n… (cut at ${formatBytes(keptBytes(excerpt))} of ${formatBytes(size)})`,
          );
          expect(bodyInline(excerpt, { quoted: true })).toBe(
            `${JSON.stringify(kept)}… (cut at ${formatBytes(keptBytes(excerpt))} of ${formatBytes(size)})`,
          );
        },
      ),
    );
  });

  test('a body the client stopped reading at its cap says so, cut or not', () => {
    const read = bodyExcerpt('x'.repeat(5000), 4096);
    expect(bodyForReading(read, true)).toBe(
      `${'x'.repeat(4096)}\n… (cut at 4 KiB of the first 5000 bytes read: the body was longer, reading stopped there)`,
    );
    expect(bodyForReading(bodyExcerpt('[1,2]', 4096), true)).toBe(
      '[1,2]\n… (reading stopped at 5 bytes: the body was longer)',
    );
    expect(bodyInline(bodyExcerpt('abcdef', 3))).toBe('abc… (cut at 3 bytes of 6 bytes)');
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

  test('the request: request line, headers, the body indented (valid JSON), its size', () => {
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

  test('the response: status line, headers, a cut body as it came with where it was cut, its size', () => {
    expect(responseTitle(post)).toBe('201 Created · 5031 bytes (4.9 KiB) · 12 ms');
    const text = formatResponse(post);
    expect(text.split('\n').slice(0, 4)).toEqual([
      'HTTP 201 Created  (12 ms)',
      'content-type: application/json',
      '',
      expect.stringMatching(/^\{"id":12,"name":"Rex","pad":"x+$/),
    ]);
    expect(text).toMatch(/\n… \(cut at 4 KiB of 5031 bytes\)\n\nbody: 5031 bytes \(4\.9 KiB\)$/);
  });

  test('a response that is not valid JSON reads as it came, whatever its Content-Type says', () => {
    const x = recordExchange(
      { method: 'GET', url: `${base}/pets`, headers: {} },
      {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: Buffer.from('[1 2]'),
        durationMs: 3,
      },
    );
    expect(formatResponse(x)).toBe(
      'HTTP 200 OK  (3 ms)\ncontent-type: application/json\n\n[1 2]\n\nbody: 5 bytes',
    );
  });

  test('no response: what stopped it, and after how long; an exchange is its request, then its response', () => {
    const x = recordExchange(
      { method: 'GET', url: `${base}/pets`, headers: {} },
      { error: 'timeout after 500 ms', durationMs: 501 },
    );
    expect(responseTitle(x)).toBe('no response · timeout after 500 ms · after 501 ms');
    expect(formatResponse(x)).toBe('(no response: timeout after 500 ms) after 501 ms');
    expect(formatRequest(x)).toBe(`GET ${base}/pets\n\n(no body)`);
    expect(formatExchange(x)).toBe(`${formatRequest(x)}\n\n${formatResponse(x)}`);
  });
});

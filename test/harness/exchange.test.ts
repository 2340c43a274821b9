import { describe, expect, test } from 'vitest';
import {
  excerpt,
  formatBytes,
  formatExchange,
  recordExchange,
  toCurl,
} from '../../suites/harness/exchange.ts';

const base = 'http://127.0.0.1:8080/v1';

describe('the curl line that reproduces a request', () => {
  test('a GET is the URL alone, quoted for the shell', () => {
    expect(toCurl({ method: 'GET', url: `${base}/pets?limit=101`, headers: {} })).toBe(
      "curl -sS 'http://127.0.0.1:8080/v1/pets?limit=101'",
    );
  });

  test('a POST carries its method, headers and body, single quotes escaped', () => {
    const body = Buffer.from(`{"id":1,"name":"O'Malley"}`);
    expect(
      toCurl({ method: 'POST', url: `${base}/pets`, headers: { 'content-type': 'application/json' }, body }),
    ).toBe(
      `curl -sS -X POST '${base}/pets' -H 'content-type: application/json' --data-binary '{"id":1,"name":"O'\\''Malley"}'`,
    );
  });

  test('other methods and HEAD', () => {
    expect(toCurl({ method: 'DELETE', url: `${base}/pets/1`, headers: {} })).toBe(
      `curl -sS -X DELETE '${base}/pets/1'`,
    );
    expect(toCurl({ method: 'HEAD', url: `${base}/pets`, headers: {} })).toBe(`curl -sS -I '${base}/pets'`);
  });

  test('a body too long to paste is produced by the given shell expression, or named', () => {
    const body = Buffer.alloc(10_000, 'x');
    expect(
      toCurl({
        method: 'POST',
        url: `${base}/pets`,
        headers: {},
        body,
        reproduceBody: "@<(printf 'x%.0s' {1..10000})",
      }),
    ).toBe(`curl -sS -X POST '${base}/pets' --data-binary @<(printf 'x%.0s' {1..10000})`);
    expect(toCurl({ method: 'POST', url: `${base}/pets`, headers: {}, body })).toMatch(
      /--data-binary @body\.json {2}# 10000-byte body, starting 'x{200}'$/,
    );
  });
});

describe('exchange records', () => {
  test('cut bodies to an excerpt and format as request, then response', () => {
    expect(formatBytes(4096)).toBe('4 KiB');
    expect(formatBytes(1024 * 1024)).toBe('1 MiB');
    expect(formatBytes(100)).toBe('100 bytes');
    expect(excerpt('abcdef', 3)).toBe('abc… (cut at 3 bytes of 6 bytes)');
    const x = recordExchange(
      { method: 'GET', url: `${base}/pets`, headers: {} },
      {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: Buffer.from('[]'),
        durationMs: 3.4,
      },
    );
    expect(formatExchange(x)).toBe(
      `GET ${base}/pets\n\nHTTP 200  (3 ms)\ncontent-type: application/json\n\n[]`,
    );
  });
});

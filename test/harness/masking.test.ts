import { afterEach, describe, expect, test } from 'vitest';
import { expectStatus } from '../../suites/harness/contract/expect.ts';
import { ConformanceError } from '../../suites/harness/evidence/errors.ts';
import { formatExchange } from '../../suites/harness/evidence/exchange.ts';
import { keyShellWord, NEAR_MISSES, nearMissKey } from '../../suites/harness/evidence/keys.ts';
import { createRedactor, MASK, redactUrl, registerSecret } from '../../suites/harness/evidence/redact.ts';
import { Client } from '../../suites/harness/http/client.ts';
import { evidenceAttachments } from '../../suites/harness/requirement/report.ts';
import { testConfig } from '../helpers/config.ts';
import { type HandMadeServer, httpServer, silentServer } from '../helpers/servers.ts';
import { SPECIAL_KEY, spellingsOf } from '../helpers/spellings.ts';

const KEY = 's3cr3t-KEY-4711';
const BEARER = 'Bearer tok-0987654321';

let server: HandMadeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A server that echoes every credential it gets, in a header and in the body, and fails. */
function echoingServer(): Promise<HandMadeServer> {
  return httpServer((req, res) => {
    req.resume();
    const echoed = JSON.stringify({
      key: req.headers['x-api-key'],
      auth: req.headers.authorization,
      url: req.url,
    });
    res.writeHead(500, {
      'content-type': 'application/json',
      'x-echo-key': String(req.headers['x-api-key']),
    });
    res.end(echoed);
  });
}

function failureOf(fn: () => void): ConformanceError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ConformanceError);
    return e as ConformanceError;
  }
  throw new Error('expected a ConformanceError');
}

/** Everything a failure can show: its message, its props as serialised, its curl line, its exchanges. */
function everythingShown(err: ConformanceError, api: Client): string {
  return [
    err.message,
    JSON.stringify(err),
    err.reproduce,
    ...(err.exchanges ?? []).map(formatExchange),
    ...api.exchanges.map((x) => JSON.stringify(x)),
    ...api.exchanges.map(formatExchange),
  ].join('\n');
}

describe('secrets are masked everywhere a failure shows', () => {
  test('the API key in a header and an Authorization value, even when the server echoes them', async () => {
    server = await echoingServer();
    const api = new Client(testConfig(server.url, { apiKey: KEY }));
    const res = await api.get('/pets', { headers: { Authorization: BEARER } });
    expect(res.text).toContain(KEY); // the server did echo it
    const err = failureOf(() => expectStatus(res, 200));
    const shown = everythingShown(err, api);
    expect(shown).not.toContain(KEY);
    expect(shown).not.toContain('tok-0987654321');
    // The key as the line reads it when it runs: from PETSTORE_API_KEY (keys.ts keyShellWord).
    expect(err.reproduce).toBe(
      `curl -i -sS -H 'authorization: ***' -H 'x-api-key: '"\${PETSTORE_API_KEY:-***}" '${server.url}/pets'`,
    );
    expect(res.exchange.responseHeaders?.['x-echo-key']).toBe('***');
  });

  test('the API key in a query parameter, and a wrong key sent on purpose', async () => {
    server = await echoingServer();
    const api = new Client(testConfig(server.url, { apiKey: KEY, apiKeyQuery: 'api_key' }));
    const res = await api.get('/pets', { query: { limit: 3 } });
    const err = failureOf(() => expectStatus(res, 200));
    expect(everythingShown(err, api)).not.toContain(KEY);
    expect(err.reproduce).toBe(
      `curl -i -sS '${server.url}/pets?limit=3&api_key='"\${PETSTORE_API_KEY:-***}"`,
    );

    const headerApi = new Client(testConfig(server.url, { apiKey: KEY }));
    const wrong = await headerApi.get('/pets', { auth: 'wrong' });
    // A wrong key is no secret: the line sends it as it is, and the record shows the header masked.
    expect(wrong.reproduce).toMatch(
      new RegExp(`^curl -i -sS -H 'x-api-key: ''wrong-[0-9a-f]{16}' '${server.url}/pets'$`),
    );
    expect(JSON.stringify(wrong.exchange)).not.toMatch(/wrong-[0-9a-f]{16}/);
  });

  test('the near misses of the key a check sends (AUTH-WRONG-KEY-REFUSED), as the key, even echoed', async () => {
    server = await echoingServer();
    // Long enough to have every near miss, its first half included (MIN_HALF_LENGTH).
    const key = `${KEY}-0a1b2c3d`;
    const api = new Client(testConfig(server.url, { apiKey: key }));
    for (const nearMiss of NEAR_MISSES) {
      const sent = nearMissKey(key, nearMiss)!;
      expect(sent, nearMiss).toBeDefined();
      const res = await api.get('/pets', { auth: { nearMiss } });
      expect(res.text).toContain(JSON.stringify(sent)); // the server did echo it
      const err = failureOf(() => expectStatus(res, 401));
      expect(everythingShown(err, api)).not.toContain(sent);
      // The near miss as the line spells it from PETSTORE_API_KEY, none of the key in it.
      expect(err.reproduce).toBe(
        `curl -i -sS -H 'x-api-key: '${keyShellWord(nearMiss, key)} '${server.url}/pets'`,
      );
      expect(err.reproduce).not.toContain(key.slice(0, 8));
      expect(res.exchange.responseHeaders?.['x-echo-key']).toBe('***');
    }
  });

  test('a request that gets no answer: the error and its exchange', async () => {
    server = await silentServer();
    const api = new Client(testConfig(server.url, { apiKey: KEY, timeoutMs: 200 }));
    const err = await api.get('/pets').then(
      () => undefined,
      (e: ConformanceError) => e,
    );
    expect(err).toBeInstanceOf(ConformanceError);
    expect(everythingShown(err!, api)).not.toContain(KEY);
  });

  test('a ConformanceError built anywhere masks a registered key in what came back, and only there', () => {
    new Client(testConfig('http://127.0.0.1:1/v1', { apiKey: KEY }));
    const err = new ConformanceError({
      expected: 'status 400 for CREATE-WRONG-TYPE',
      received: `got ${KEY} and ${encodeURIComponent(KEY)}`,
      reproduce: "curl -i -sS -H 'x-api-key: ***' 'http://127.0.0.1:1/v1/pets'",
    });
    expect(err.message).toBe(
      "expected: status 400 for CREATE-WRONG-TYPE\nreceived: got *** and ***\nreproduce: curl -i -sS -H 'x-api-key: ***' 'http://127.0.0.1:1/v1/pets'",
    );
    expect(err.received).toBe('got *** and ***');
  });

  test("a key that is also a word rewrites none of the suite's words, and is masked where it went and came back", async () => {
    server = await echoingServer();
    const api = new Client(testConfig(server.url, { apiKey: 'pets', apiKeyQuery: 'key' }));
    const res = await api.post('/pets', { json: { id: 1, name: 'pets', tag: 'petstore-conformance x' } });
    // Sent: the key in its query parameter only, the rest as the suite wrote it.
    expect(res.reproduce).toBe(
      `curl -i -sS -X POST -H 'content-type: application/json' --data-binary '{"id":1,"name":"pets","tag":"petstore-conformance x"}' '${server.url}/pets?key='"\${PETSTORE_API_KEY:-***}"`,
    );
    expect(res.exchange.requestBody?.text).toBe('{"id":1,"name":"pets","tag":"petstore-conformance x"}');
    // Came back: the server echoed the URL (the key with it), masked wherever it holds the word.
    expect(res.exchange.responseBody?.text).toBe('{"url":"/v1/***?key=***"}');
    const err = failureOf(() => expectStatus(res, 201));
    expect(err.expected).toBe('status 201');
    expect(err.received).toContain('"url":"/v1/***?key=***"');
    expect(err.reproduce).toBe(res.reproduce);
  });

  test('a whole URL a check follows (a Location) came from an answer: a key in it is masked, in the curl line too', async () => {
    // (A path without a word an earlier test registered as a key: the registry is the worker's.)
    server = await echoingServer();
    const api = new Client(testConfig(server.url, { apiKey: KEY }));
    const res = await api.get(`${server.url}/items/1?token=${encodeURIComponent(KEY)}`);
    expect(res.exchange.url).toBe(`${server.url}/items/1?token=***`);
    expect(res.reproduce).toBe(
      `curl -i -sS -H 'x-api-key: '"\${PETSTORE_API_KEY:-***}" '${server.url}/items/1?token=***'`,
    );
    // A path the check composed is its own: shown as sent.
    const own = await api.get('/items/1', { query: { token: 'not-a-secret' } });
    expect(own.exchange.url).toBe(`${server.url}/items/1?token=not-a-secret`);
  });

  test("the Allure attachments of the exchanges are masked, made from the records of a check's client", async () => {
    server = await echoingServer();
    const api = new Client(testConfig(server.url, { apiKey: KEY }));
    await api.get('/pets');
    const kept = api.exchanges;
    const sent = evidenceAttachments(kept).map((a) => a.text);
    // The request, then the response, each an attachment of its own.
    expect(sent).toHaveLength(2);
    expect(sent[0]).toContain('x-api-key: ***');
    expect(sent[1]).toContain('HTTP 500');
    expect(sent.join('\n')).not.toContain(KEY);
    expect(JSON.stringify(kept)).not.toContain(KEY);
  });

  test('bodies are masked before they are cut: a key cut at an excerpt boundary leaks none of it', async () => {
    // The key starts a few bytes before each cut: 200 characters (a JSON excerpt in a message) and
    // 4096 bytes (the exchange record); cut first, its first characters would be shown unmasked.
    const bodies = [
      JSON.stringify({ pad: 'p'.repeat(180), key: KEY, more: 'm'.repeat(50) }),
      `${'t'.repeat(4090)}${KEY}${'t'.repeat(100)}`,
    ];
    const head = KEY.slice(0, 5);
    for (const body of bodies) {
      server = await httpServer((req, res) => {
        req.resume();
        res.writeHead(500, { 'content-type': body.startsWith('{') ? 'application/json' : 'text/plain' });
        res.end(body);
      });
      const api = new Client(testConfig(server.url, { apiKey: KEY }));
      const res = await api.get('/pets');
      expect(body.indexOf(KEY)).toBeLessThan(body.startsWith('{') ? 200 : 4096);
      expect(body.indexOf(KEY) + KEY.length).toBeGreaterThan(body.startsWith('{') ? 200 : 4096);
      const err = failureOf(() => expectStatus(res, 200));
      const shown = [err.message, JSON.stringify(err.exchanges), formatExchange(res.exchange)].join('\n');
      expect(shown).not.toContain(head);
      expect(shown).toContain('***');
      await server.close();
      server = undefined;
    }
  });

  test('the key as new URL() percent-encodes it in a query string is masked too', () => {
    const redactor = createRedactor(["k'ey 1"]);
    expect(redactor.text('GET /v1/pets?api_key=k%27ey%201')).toBe('GET /v1/pets?api_key=***');
    expect(redactor.text('api_key=k%27ey+1')).toBe('api_key=***');
    expect(redactor.text("api_key=k'ey%201")).toBe('api_key=***');
  });
});

describe('a URL shows the secrets the suite put in it masked by position', () => {
  test("the key's query parameter wherever it stands, the userinfo; the rest as sent", () => {
    new Client(testConfig('http://127.0.0.1:1/v1', { apiKey: 'url-key-0042', apiKeyQuery: 'api key' }));
    expect(redactUrl('http://h/v1/pets?limit=2&api%20key=url-key-0042&x=pets#top')).toBe(
      'http://h/v1/pets?limit=2&api%20key=***&x=pets#top',
    );
    expect(redactUrl('http://h/v1/pets?api+key=anything')).toBe('http://h/v1/pets?api+key=***');
    expect(redactUrl('http://user:pa55@h:8080/v1/pets?q=1')).toBe('http://***@h:8080/v1/pets?q=1');
    // The path and the other parameters are the suite's: a registered secret there is left alone...
    registerSecret('pets-as-a-secret');
    expect(redactUrl('http://h/v1/pets-as-a-secret?q=pets-as-a-secret')).toBe(
      'http://h/v1/pets-as-a-secret?q=pets-as-a-secret',
    );
    // ...unless the URL came from an answer (a Location followed): then it is the server's text.
    expect(redactUrl('http://h/v1/pets-as-a-secret?q=pets-as-a-secret', true)).toBe('http://h/v1/***?q=***');
  });
});

describe('the redactor masks a secret in every spelling', () => {
  const redactor = createRedactor([SPECIAL_KEY]);
  const spellings = Object.entries(spellingsOf(SPECIAL_KEY));

  test.each(spellings)('%s, in text', (_name, spelling) => {
    expect(redactor.text(`before ${spelling} after`)).toBe(`before ${MASK} after`);
  });

  test.each(spellings)('%s, in UTF-8 bytes and in Latin-1 bytes', (_name, spelling) => {
    expect(redactor.bytes(Buffer.from(`<${spelling}>`, 'utf8')).toString('utf8')).toBe(`<${MASK}>`);
    if ([...spelling].every((c) => c.charCodeAt(0) <= 0xff)) {
      expect(redactor.bytes(Buffer.from(`<${spelling}>`, 'latin1')).toString('latin1')).toBe(`<${MASK}>`);
    }
  });

  test.each(spellings)('%s, alone: a text no longer than the spelling is searched too', (_name, spelling) => {
    expect(redactor.text(spelling)).toBe(MASK);
  });

  test('a text shorter than any spelling of the key is left as it is, Authorization still masked', () => {
    const long = 'a-key-of-thirty-two-characters!!';
    const short = createRedactor([long]);
    expect(short.text(long)).toBe(MASK);
    expect(short.text(long.slice(1))).toBe(long.slice(1));
    expect(short.text('Authorization: x')).toBe(`Authorization: ${MASK}`);
  });

  test('spellings mixed within one occurrence: only some characters escaped', () => {
    const mixed = SPECIAL_KEY.replace('é', '\\u00e9').replace('&', '%26').replace('<', '&lt;');
    expect(redactor.text(`"${mixed}"`)).toBe(`"${MASK}"`);
  });

  test('a base64 token that holds the key is masked whole; the text around it is kept', () => {
    const basic = Buffer.from(`user:${SPECIAL_KEY}`).toString('base64');
    expect(redactor.text(`Authorization-Echo: Basic ${basic}\r\nx`)).toBe(
      `Authorization-Echo: Basic ${MASK}\r\nx`,
    );
    expect(redactor.text(`{"token":"${basic}","n":1}`)).toBe(`{"token":"${MASK}","n":1}`);
  });

  test('nothing else is masked: other text, parts of the key, a short key in base64', () => {
    const text = 'k/ é+ &"<> plain text, k%2F%C3%A9, azEyMzQ1 and a JSON {"a":"b\\/c"}';
    expect(redactor.text(text)).toBe(text);
    const short = createRedactor(['k1234']);
    expect(short.text(`${Buffer.from('k1234').toString('base64')} k1234`)).toBe(`azEyMzQ= ${MASK}`);
  });

  test('hostile input ends: a megabyte of backslashes, percent signs and ampersands', () => {
    for (const c of ['\\', '%25', '&amp;']) {
      const text = c.repeat(300_000);
      expect(redactor.text(text)).toBe(text);
      expect(redactor.bytes(Buffer.from(text)).toString()).toBe(text);
    }
  });
});

// Reproduce lines reproduce (issue 35 item 4): a create the run itself made unusable is sent again
// with a fresh id of the same kind, so that the line shows what the request showed: an id outside
// int64 stays outside on its side, a string of digits stays a string, a leading zero stays, an
// unquoted key is found; what one curl cannot show is the few lines that do.
import { spawnSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { INT64_MAX, INT64_MIN } from '../../suites/harness/evidence/json.ts';
import { answeredBothWays, reproducer } from '../../suites/harness/evidence/reproduce.ts';

const base = 'http://127.0.0.1:1/v1';
const create = (body: string) => ({
  method: 'POST',
  url: `${base}/pets`,
  headers: { 'content-type': 'application/json' },
  body: Buffer.from(body),
});
/** The body a curl line sends (its --data-binary word). */
const sentBody = (line: string) => /--data-binary '([^']*)'/.exec(line)?.[1] ?? '';
const unique = () => 700_000_000 + Math.floor(Math.random() * 100_000_000);

describe('a create the run made unusable, sent again with a fresh id of its kind', () => {
  test('an id past the top of int64, kept (201): the line sends another past the top, not one in range', () => {
    const id = INT64_MAX + 1n + BigInt(unique());
    const line = reproducer(create(`{"id":${id},"name":"a"}`), 201)();
    const sent = BigInt(/"id":(-?\d+)/.exec(sentBody(line))![1]!);
    expect(sent).not.toBe(id);
    expect(sent > INT64_MAX).toBe(true);
    expect(line).toMatch(/ # a fresh id: pet \d+ exists now$/);
  });

  test('an id past the bottom of int64 stays past the bottom', () => {
    const id = INT64_MIN - 1n - BigInt(unique());
    const sent = BigInt(
      /"id":(-?\d+)/.exec(sentBody(reproducer(create(`{"id":${id},"name":"a"}`), 201)()))![1]!,
    );
    expect(sent < INT64_MIN).toBe(true);
  });

  test('an id sent as a string of digits stays a string', () => {
    const id = unique();
    const body = sentBody(reproducer(create(`{"id":"${id}","name":"a"}`), 201)());
    expect(body).toMatch(/^\{"id":"\d+","name":"a"\}$/);
    expect(body).not.toContain(String(id));
  });

  test('an id under an unquoted key, as a lenient reader takes it, is found and replaced', () => {
    const id = unique();
    const body = sentBody(reproducer(create(`{id: ${id}, name: "a"}`), 201)());
    expect(body).toMatch(/^\{id: \d+, name: "a"\}$/);
    expect(body).not.toContain(String(id));
  });

  test('a leading zero stays: the body keeps the spelling the server took', () => {
    const id = unique();
    const body = sentBody(reproducer(create(`{"id":0${id},"name":"a"}`), 201)());
    expect(body).toMatch(/^\{"id":0[1-9]\d*,"name":"a"\}$/);
  });

  test('a create refused keeps its id: re-sending it is what it did', () => {
    const id = INT64_MAX + 1n + BigInt(unique());
    expect(sentBody(reproducer(create(`{"id":${id},"name":"a"}`), 400)())).toContain(`"id":${id}`);
  });
});

describe('what one curl cannot show', () => {
  test('a request answered two ways is the few sh lines that send it until both came, the one received last', () => {
    const script = answeredBothWays(
      "curl -i -sS 'http://127.0.0.1:1/v1/pets/5'",
      404,
      200,
      'pet 5 was shown 200 and 404',
    );
    expect(script).toMatch(/^#!\/bin\/sh\n# pet 5 was shown 200 and 404\n# One request cannot show it: /);
    expect(spawnSync('sh', ['-n', '-c', script]).status).toBe(0);
    // Against a stand-in for curl that answers 404, then 200: both printed, 200 last.
    const shown = spawnSync(
      'sh',
      [
        '-c',
        `n=0; fake() { n=$((n + 1)); [ -f /tmp/.fake-$$ ] && { printf 'HTTP/1.1 200 OK\\n'; return; }; : > /tmp/.fake-$$; printf 'HTTP/1.1 404 Not Found\\n'; }; ${script.replace(/curl -i -sS '[^']*'/, 'fake')}; rm -f /tmp/.fake-$$`,
      ],
      { encoding: 'utf8' },
    ).stdout;
    expect(shown.trim().split('\n')).toEqual(['HTTP/1.1 404 Not Found', 'HTTP/1.1 200 OK']);
  });
});

// The roll-up's causes, each named once (issues 35 and 36): requirements a cause of the deployment's
// kept from being judged, and what depends on them; a 5xx that comes and goes; the failures in the
// order to fix them; progress that counts each requirement once and names a cause once.
import { spawnSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import type { Requirement } from '../../catalog/catalog.ts';
import { Progress } from '../../cli/console/progress.ts';
import { rollUp, type TestOutcome } from '../../cli/record/rollup.ts';
import { inFixOrder } from '../../cli/record/views.ts';

const req = (id: string, level: Requirement['level']) =>
  ({ id, level, title: `${id} title`, operation: 'listPets', needs: [] }) as unknown as Requirement;
const requirements = [
  req('ANY-NO-5XX', 'MUST'),
  req('LIST-A', 'MUST'),
  req('LIST-B', 'MUST'),
  req('LIST-C', 'SHOULD'),
  req('CREATE-OK', 'MUST'),
];
const catalog = { requirements, get: (id: string) => requirements.find((r) => r.id === id) };
const options = { only: [], exclude: [], strict: false };
const outcome = (id: string, state: TestOutcome['state'], extra: Partial<TestOutcome> = {}): TestOutcome => ({
  requirementId: id,
  name: `${id} test`,
  file: 'suites/x.test.ts',
  state,
  failures: [],
  durationMs: 1,
  ...extra,
});
const full = { cause: 'store-full', message: 'the deployment takes no more pets: POST /pets … answered 409' };

describe('requirements not judged', () => {
  test('a check blocked by a requirement not judged is not judged either, for that cause, and does not fail', () => {
    const up = rollUp(
      catalog,
      [
        outcome('ANY-NO-5XX', 'passed'),
        outcome('CREATE-OK', 'skipped', { notJudged: full }),
        outcome('LIST-A', 'skipped', {
          blockedBy: ['CREATE-OK'],
          failures: [{ message: 'blocked', received: 'POST /pets answered 409' }],
        }),
        outcome('LIST-B', 'passed'),
        outcome('LIST-C', 'passed'),
      ],
      options,
    );
    const a = up.results.find((r) => r.id === 'LIST-A');
    expect(a).toMatchObject({ status: 'skipped', notJudged: full, gating: false });
    expect(a?.message).toMatch(
      /^not judged: it needs CREATE-OK, which was not judged \(the deployment takes/,
    );
    expect(a?.blockedBy).toBeUndefined();
    expect(up.verdict).toBe('could-not-judge');
    expect(up.notJudged).toEqual(['LIST-A', 'CREATE-OK']);
  });

  test('a gating failure beside them makes the run non-conformant: the failure is certain', () => {
    const up = rollUp(
      catalog,
      [
        outcome('ANY-NO-5XX', 'passed'),
        outcome('CREATE-OK', 'skipped', { notJudged: full }),
        outcome('LIST-A', 'failed', { failures: [{ message: 'x', expected: '200', received: '500' }] }),
        outcome('LIST-B', 'passed'),
        outcome('LIST-C', 'passed'),
      ],
      options,
    );
    expect(up.verdict).toBe('non-conformant');
    expect(up.notJudged).toEqual(['CREATE-OK']);
  });

  test('a SHOULD not judged without --strict leaves the run conformant', () => {
    const up = rollUp(
      catalog,
      ['ANY-NO-5XX', 'LIST-A', 'LIST-B', 'CREATE-OK']
        .map((id) => outcome(id, 'passed'))
        .concat(outcome('LIST-C', 'skipped', { notJudged: full })),
      options,
    );
    expect(up.verdict).toBe('conformant');
    expect(up.results.find((r) => r.id === 'LIST-C')?.message).toMatch(/^not judged: /);
  });
});

describe('a 5xx that comes and goes', () => {
  const fiveHundred = {
    method: 'GET',
    url: 'http://127.0.0.1:1/v1/pets',
    status: 500,
    reproduce: "curl -i -sS 'http://127.0.0.1:1/v1/pets'",
  };
  const up = rollUp(
    catalog,
    [
      outcome('ANY-NO-5XX', 'passed'),
      outcome('LIST-A', 'skipped', {
        blockedBy: ['ANY-NO-5XX'],
        serverErrors: [fiveHundred],
        comeAndGo: { method: 'GET', url: fiveHundred.url, status: 500, again: 200 },
        failures: [{ message: 'blocked', received: '500' }],
      }),
      outcome('LIST-B', 'passed'),
      outcome('LIST-C', 'passed'),
      outcome('CREATE-OK', 'passed'),
    ],
    options,
  );
  const no5xx = up.results.find((r) => r.id === 'ANY-NO-5XX')!;

  test('fails ANY-NO-5XX, saying the deployment fails now and then; the check that met it is blocked by it', () => {
    expect(no5xx.status).toBe('failed');
    expect(no5xx.received).toMatch(
      /the deployment fails now and then: GET \/v1\/pets, answered 500, was answered 200 when sent again$/,
    );
    expect(up.results.find((r) => r.id === 'LIST-A')).toMatchObject({ blockedBy: ['ANY-NO-5XX'] });
  });

  test('its reproduce is an sh script that sends the request until a 5xx comes, and is valid sh', () => {
    expect(no5xx.reproduce).toMatch(
      /^#!\/bin\/sh\n# The deployment fails now and then: GET \/v1\/pets was answered 500, and 200 when sent again\.\n/,
    );
    expect(no5xx.reproduce).toContain("curl -i -sS 'http://127.0.0.1:1/v1/pets'");
    expect(spawnSync('sh', ['-n', '-c', no5xx.reproduce!]).status).toBe(0);
  });
});

describe('the failures in the order to fix them', () => {
  test('causes first (the more they block, the sooner), gating before not, then catalog order', () => {
    const up = rollUp(
      catalog,
      [
        outcome('ANY-NO-5XX', 'passed'),
        outcome('LIST-A', 'failed', { failures: [{ message: 'a' }] }),
        outcome('LIST-B', 'skipped', { blockedBy: ['LIST-C'], failures: [{ message: 'blocked' }] }),
        outcome('LIST-C', 'failed', { failures: [{ message: 'c' }] }),
        outcome('CREATE-OK', 'failed', { failures: [{ message: 'ok' }] }),
      ],
      options,
    );
    expect(inFixOrder(up.results).map((r) => r.id)).toEqual(['LIST-C', 'LIST-A', 'CREATE-OK']);
  });
});

describe('progress', () => {
  const plain = { green: String, red: String, yellow: String, dim: String, bold: String };

  test('a requirement whose checks span two suite files is counted once: never [3/2]', () => {
    const progress = new Progress([req('LIST-A', 'MUST'), req('LIST-B', 'MUST')], plain, 100);
    progress.collected(['LIST-A']);
    expect(progress.outcome(outcome('LIST-A', 'passed'))).toBe('[1/2] ✓ LIST-A LIST-A title');
    progress.collected(['LIST-A', 'LIST-B']);
    // Its later check passes too: nothing new to say.
    expect(progress.outcome(outcome('LIST-A', 'passed'))).toBeUndefined();
    expect(progress.outcome(outcome('LIST-B', 'passed'))).toBe('[2/2] ✓ LIST-B LIST-B title');
  });

  test('a later check that changes the mark says so under the first count', () => {
    const progress = new Progress([req('LIST-A', 'MUST')], plain, 100);
    progress.collected(['LIST-A']);
    progress.outcome(outcome('LIST-A', 'passed'));
    progress.collected(['LIST-A']);
    expect(progress.outcome(outcome('LIST-A', 'failed'))).toBe('[1/1] ✗ LIST-A LIST-A title');
  });

  test('a cause that keeps checks from being judged is printed once, not once per requirement', () => {
    const progress = new Progress([req('LIST-A', 'MUST'), req('LIST-B', 'MUST')], plain, 100);
    progress.collected(['LIST-A', 'LIST-B']);
    expect(progress.outcome(outcome('LIST-A', 'skipped', { notJudged: full }))).toMatch(
      /^\[1\/2\] ◌ LIST-A not judged: the deployment takes no more pets/,
    );
    expect(progress.outcome(outcome('LIST-B', 'skipped', { notJudged: full }))).toBeUndefined();
  });
});

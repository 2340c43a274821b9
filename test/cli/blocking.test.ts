import { describe, expect, test } from 'vitest';
import type { Requirement } from '../../catalog/catalog.ts';
import { stateOf } from '../../cli/across/diff.ts';
import { blockingRoots } from '../../cli/record/blocking.ts';
import { rerunSelection } from '../../cli/record/rerun.ts';
import {
  isBlockedResult,
  type RequirementResult,
  rollUp,
  type TestOutcome,
} from '../../cli/record/rollup.ts';
import { byCause, UNJUDGED_CAUSE } from '../../cli/record/views.ts';

const req = (id: string, level: Requirement['level']) =>
  ({ id, level, title: `${id} title`, operation: 'createPets', needs: [] }) as unknown as Requirement;
const requirements = [
  req('CREATE-A', 'MUST'),
  req('CREATE-B', 'MUST'),
  req('LIST-F', 'SHOULD'),
  req('LIST-M', 'MUST'),
  req('SHOW-X', 'MUST'),
  req('SHOW-Y', 'MAY'),
];
const catalog = { requirements, get: (id: string) => requirements.find((r) => r.id === id) };

const passed = (id: string): TestOutcome => ({
  requirementId: id,
  name: `${id} test`,
  file: 'suites/x.test.ts',
  state: 'passed',
  failures: [],
  durationMs: 1,
});
const failed = (id: string, received = 'GET /pets/7 answered 404'): TestOutcome => ({
  ...passed(id),
  state: 'failed',
  failures: [{ message: 'x', expected: 'status 200', received, reproduce: "curl -i -sS 'u'" }],
});
const blocked = (id: string, by: string[]): TestOutcome => ({
  ...passed(id),
  state: 'skipped',
  note: `blocked by ${by.join(', ')}: GET /pets/7 answered 404`,
  blockedBy: by,
  failures: [
    {
      message: 'blocked',
      expected: 'status 200 to GET /pets/7',
      received: 'GET /pets/7 answered 404',
      reproduce: "curl -i -sS 'u'",
    },
  ],
});

const run = (outcomes: TestOutcome[], options = { only: [] as string[], strict: false }) => {
  const judged = rollUp(catalog, outcomes, options);
  const byId = new Map(judged.results.map((r) => [r.id, r]));
  /** Every blockedBy names failed requirements only (issue 18, point 3). */
  for (const r of judged.results) {
    for (const id of r.blockedBy ?? [])
      expect(byId.get(id)?.status, `${r.id} blocked by ${id}`).toBe('failed');
  }
  /** A non-conformant verdict names a failed gating requirement. */
  if (judged.verdict === 'non-conformant') {
    expect(judged.results.some((r) => r.status === 'failed' && r.gating)).toBe(true);
  }
  return { ...judged, byId };
};

describe('blocking: every blockedBy names a failed requirement', () => {
  test('two requirements blocked by each other, nothing failed: both fail, each with its own evidence', () => {
    const { byId, verdict, totals } = run([
      blocked('CREATE-A', ['CREATE-B']),
      blocked('CREATE-B', ['CREATE-A']),
      passed('LIST-F'),
      passed('LIST-M'),
      passed('SHOW-X'),
      passed('SHOW-Y'),
    ]);
    for (const id of ['CREATE-A', 'CREATE-B']) {
      expect(byId.get(id)).toMatchObject({
        status: 'failed',
        gating: true,
        received: 'GET /pets/7 answered 404',
      });
      expect(byId.get(id)?.message).toMatch(/could not judge it either \(blocked in turn by this one\)/);
    }
    expect(verdict).toBe('non-conformant');
    expect(totals.blocked).toBe(0);
  });

  test('a chain is followed to the failed requirement at its end', () => {
    const { byId } = run([
      failed('CREATE-A'),
      blocked('CREATE-B', ['CREATE-A']),
      blocked('SHOW-X', ['CREATE-B']),
      passed('LIST-F'),
      passed('LIST-M'),
      passed('SHOW-Y'),
    ]);
    expect(byId.get('SHOW-X')).toMatchObject({ status: 'skipped', blockedBy: ['CREATE-A'] });
    expect(byId.get('CREATE-B')).toMatchObject({ status: 'skipped', blockedBy: ['CREATE-A'] });
  });

  test('blocked by one that failed and one that passed: only the failed one is named', () => {
    const { byId } = run([
      passed('CREATE-A'),
      failed('CREATE-B'),
      blocked('SHOW-X', ['CREATE-A', 'CREATE-B']),
      passed('LIST-F'),
      passed('LIST-M'),
      passed('SHOW-Y'),
    ]);
    expect(byId.get('SHOW-X')?.blockedBy).toEqual(['CREATE-B']);
  });

  test('what hangs on a circle is blocked by the requirements of the circle, which fail', () => {
    const { byId } = run([
      blocked('CREATE-A', ['CREATE-B']),
      blocked('CREATE-B', ['CREATE-A']),
      blocked('SHOW-X', ['CREATE-A']),
      passed('LIST-F'),
      passed('LIST-M'),
      passed('SHOW-Y'),
    ]);
    expect(byId.get('CREATE-A')?.status).toBe('failed');
    expect(byId.get('SHOW-X')).toMatchObject({ status: 'skipped', blockedBy: ['CREATE-A'] });
  });

  test('blocked by a requirement --only left out: the check fails itself, saying that the judge was not run', () => {
    const { byId, verdict } = run([blocked('SHOW-X', ['CREATE-A']), passed('SHOW-Y')], {
      only: ['SHOW'],
      strict: false,
    });
    expect(byId.get('SHOW-X')?.status).toBe('failed');
    expect(byId.get('SHOW-X')?.message).toMatch(/CREATE-A was not judged \(not selected by --only\)/);
    expect(verdict).toBe('non-conformant');
  });

  test('blocked on suspicion, and the suspects passed: the check fails in its own words, not as a precondition', () => {
    const suspect: TestOutcome = {
      ...blocked('LIST-F', ['CREATE-A', 'CREATE-B']),
      ownFault: "a short page is the list's fault unless the store lost pets",
    };
    const { byId, verdict } = run([passed('CREATE-A'), passed('CREATE-B'), suspect, passed('LIST-M')], {
      only: [],
      strict: true,
    });
    const r = byId.get('LIST-F');
    expect(r).toMatchObject({ status: 'failed', received: 'GET /pets/7 answered 404' });
    expect(r?.message).toMatch(
      /\(a short page is the list's fault unless the store lost pets, and CREATE-A, CREATE-B passed their own checks\)$/,
    );
    expect(r?.message).not.toMatch(/precondition/);
    expect(r).not.toHaveProperty('ownFault');
    expect(verdict).toBe('non-conformant');
  });

  test('blocked on suspicion, and a suspect failed: it stays blocked by the one that failed', () => {
    const suspect: TestOutcome = {
      ...blocked('LIST-F', ['CREATE-A', 'CREATE-B']),
      ownFault: "a short page is the list's fault unless the store lost pets",
    };
    const { byId } = run([passed('CREATE-A'), failed('CREATE-B'), suspect, passed('LIST-M')]);
    const r = byId.get('LIST-F');
    expect(r).toMatchObject({ status: 'skipped', blockedBy: ['CREATE-B'] });
    expect(r).not.toHaveProperty('ownFault');
  });

  test('a SHOULD that blocks a MUST gates without --strict, and says why; with the MUST unblocked it does not', () => {
    const { byId, verdict } = run([
      passed('CREATE-A'),
      passed('CREATE-B'),
      failed('LIST-F', 'GET /pets answered 200, JSON array of 0 items'),
      blocked('LIST-M', ['LIST-F']),
      passed('SHOW-X'),
      passed('SHOW-Y'),
    ]);
    expect(byId.get('LIST-F')).toMatchObject({ status: 'failed', gating: true });
    expect(byId.get('LIST-F')?.message).toMatch(/gating: it keeps LIST-M from being judged/);
    expect(verdict).toBe('non-conformant');
    const alone = run([
      passed('CREATE-A'),
      passed('CREATE-B'),
      failed('LIST-F'),
      passed('LIST-M'),
      passed('SHOW-X'),
      blocked('SHOW-Y', ['LIST-F']),
    ]);
    expect(alone.byId.get('LIST-F')?.gating).toBe(false);
    expect(alone.verdict).toBe('conformant');
  });
});

describe('findings: a rule broken in an answer another check received fails the requirement whose rule it is', () => {
  const finding = {
    requirementId: 'CREATE-A',
    expected: 'pet 7 as it was created: name " Rex"',
    received: 'GET /pets/7 answered 200 with name "Rex"',
    reproduce: "curl -i -sS 'http://x/v1/pets/7'",
  };

  test('the requirement named fails, saying which check saw it; the check that saw it keeps its own result', () => {
    const { byId } = run([
      passed('CREATE-A'),
      passed('CREATE-B'),
      passed('LIST-F'),
      { ...passed('LIST-M'), findings: [finding] },
      { ...passed('SHOW-X'), findings: [finding] },
      passed('SHOW-Y'),
    ]);
    expect(byId.get('CREATE-A')).toMatchObject({
      status: 'failed',
      gating: true,
      expected: finding.expected,
      reproduce: finding.reproduce,
    });
    expect(byId.get('CREATE-A')?.received).toBe(
      'GET /pets/7 answered 200 with name "Rex" (seen while checking LIST-M, and by 1 other check(s))',
    );
    expect(byId.get('LIST-M')?.status).toBe('passed');
  });

  test('a requirement left out by --only is not failed by what another check saw', () => {
    const { byId } = run([{ ...passed('SHOW-X'), findings: [finding] }, passed('SHOW-Y')], {
      only: ['SHOW'],
      strict: false,
    });
    expect(byId.get('CREATE-A')?.status).toBe('skipped');
  });

  test("a requirement whose own check failed keeps its own check's evidence", () => {
    const { byId } = run([failed('CREATE-A', 'own'), { ...passed('SHOW-X'), findings: [finding] }]);
    expect(byId.get('CREATE-A')?.received).toBe('own');
  });

  // A pet lost among concurrent creates, in a store that loses pets created alone as well, is not a
  // fault of concurrency: the finding names CREATE-B unless CREATE-A fails.
  const lost = { ...finding, requirementId: 'CREATE-B', unless: ['CREATE-A'] };

  test('a finding whose `unless` requirement fails blocks the one it names by that failure instead', () => {
    const { byId } = run([
      failed('CREATE-A', 'own'),
      passed('CREATE-B'),
      { ...passed('SHOW-X'), findings: [lost] },
    ]);
    expect(byId.get('CREATE-B')).toMatchObject({ status: 'skipped', blockedBy: ['CREATE-A'] });
    expect(byId.get('CREATE-B')?.message).toMatch(/^blocked by CREATE-A: GET \/pets\/7 answered 200/);
  });

  test('a finding whose `unless` requirement passes fails the one it names', () => {
    const { byId } = run([passed('CREATE-A'), passed('CREATE-B'), { ...passed('SHOW-X'), findings: [lost] }]);
    expect(byId.get('CREATE-B')?.status).toBe('failed');
  });

  test('a finding explained by a requirement that fails only by its own explained findings: blocked by it when it stands', () => {
    // A page missing a pet that was lost among concurrent creates: LIST-F unless CREATE-B, which
    // fails unless CREATE-A.
    const missing = { ...finding, requirementId: 'LIST-F', unless: ['CREATE-A', 'CREATE-B'] };
    const stands = run([
      passed('CREATE-A'),
      passed('CREATE-B'),
      passed('LIST-F'),
      { ...passed('SHOW-X'), findings: [lost, missing] },
    ]).byId;
    expect(stands.get('CREATE-B')?.status).toBe('failed');
    expect(stands.get('LIST-F')).toMatchObject({ status: 'skipped', blockedBy: ['CREATE-B'] });
    // CREATE-A fails too: CREATE-B is blocked by it, and LIST-F by it alone.
    const deeper = run([
      failed('CREATE-A', 'own'),
      passed('CREATE-B'),
      passed('LIST-F'),
      { ...passed('SHOW-X'), findings: [lost, missing] },
    ]).byId;
    expect(deeper.get('CREATE-B')).toMatchObject({ status: 'skipped', blockedBy: ['CREATE-A'] });
    expect(deeper.get('LIST-F')).toMatchObject({ status: 'skipped', blockedBy: ['CREATE-A'] });
  });

  test('findings that explain each other in a circle: both fail, each with its evidence', () => {
    const a = { ...finding, requirementId: 'CREATE-A', unless: ['CREATE-B'] };
    const b = { ...finding, requirementId: 'CREATE-B', unless: ['CREATE-A'] };
    const { byId } = run([passed('CREATE-A'), passed('CREATE-B'), { ...passed('SHOW-X'), findings: [a, b] }]);
    expect(byId.get('CREATE-A')?.status).toBe('failed');
    expect(byId.get('CREATE-B')?.status).toBe('failed');
  });

  test('a finding without `unless` beside one with it: the requirement named fails', () => {
    const { byId } = run([
      failed('CREATE-A', 'own'),
      passed('CREATE-B'),
      { ...passed('SHOW-X'), findings: [lost, { ...finding, requirementId: 'CREATE-B' }] },
    ]);
    expect(byId.get('CREATE-B')?.status).toBe('failed');
  });
});

describe('one definition of blocked, one of its roots', () => {
  const result = (
    id: string,
    status: RequirementResult['status'],
    blockedBy?: string[],
  ): RequirementResult => ({
    id,
    level: 'MUST',
    title: `${id} title`,
    operation: 'createPets',
    status,
    ...(blockedBy === undefined ? {} : { blockedBy }),
    gating: true,
    tests: { passed: 0, failed: 0, skipped: 0 },
    durationMs: 0,
  });

  test.each([
    ['skipped with blockers', result('A', 'skipped', ['B']), true],
    ['skipped with an empty list of blockers', result('A', 'skipped', []), false],
    ['skipped for another reason', result('A', 'skipped'), false],
    ['failed, blockers and all', result('A', 'failed', ['B']), false],
    ['passed', result('A', 'passed'), false],
  ])('%s: the roll-up, compare, --baseline and rerun all read it the same way', (_, r, blocked) => {
    expect(isBlockedResult(r)).toBe(blocked);
    expect(stateOf(r) === 'blocked').toBe(blocked);
    const source = { file: 'f', startedAt: 't', target: 'u', results: [r, result('B', 'failed')] };
    expect(rerunSelection(source.results).bad.includes('A')).toBe(blocked || r.status === 'failed');
    expect(byCause([r, result('B', 'failed')]).has('B')).toBe(blocked);
  });

  test('the roots: the failed requirements reached through blocked ones, each once, never round a circle', () => {
    const results = [
      result('A', 'skipped', ['B', 'C']),
      result('B', 'skipped', ['D']),
      result('C', 'skipped', ['D', 'E', 'A']),
      result('D', 'failed'),
      result('E', 'passed'),
      result('F', 'skipped', ['G']),
      result('G', 'skipped', ['F']),
    ];
    const byId = new Map(results.map((r) => [r.id, r]));
    expect(blockingRoots(byId.get('A')!, byId)).toEqual(['D']);
    expect(blockingRoots(byId.get('F')!, byId)).toEqual([]);
    expect([...byCause(results)].map(([cause, list]) => [cause, list.map((r) => r.id)])).toEqual([
      ['D', ['A', 'B', 'C']],
      [UNJUDGED_CAUSE, ['F', 'G']],
    ]);
  });
});

// The pure parts of --baseline and compare, on synthetic summaries: states, regressions, the order
// of a comparison, the baseline's three lists, and reading summary.json back (file, folder, bad input).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { Level } from '../../catalog/catalog.ts';
import {
  againstBaseline,
  type Comparable,
  diffResults,
  isRegression,
  type State,
  stateOf,
} from '../../cli/across/diff.ts';
import { readSummary, SummaryFileError } from '../../cli/across/summary-file.ts';
import { CannotJudgeError } from '../../cli/record/errors.ts';
import { catalogIdentity } from '../../cli/record/record.ts';
import { loadBaseline } from '../../cli/run/plan.ts';

type Spec = [id: string, level: Level, state: State];
/** Results in a given state; blocked is "skipped" with blockedBy, as summary.json says it. */
const results = (...specs: Spec[]): Comparable[] =>
  specs
    .filter(([, , state]) => state !== 'absent')
    .map(([id, level, state]) => ({
      id,
      level,
      title: `${id} title`,
      status: state === 'blocked' ? 'skipped' : (state as Exclude<State, 'blocked' | 'absent'>),
      ...(state === 'blocked' ? { blockedBy: ['CREATE-OK'], message: 'blocked by CREATE-OK' } : {}),
      ...(state === 'failed' ? { message: `expected x; received y (${id})` } : {}),
      ...(state === 'skipped' ? { message: 'not selected by --only' } : {}),
    }));

describe('states and regressions', () => {
  test('a skip with blockedBy is "blocked"; one without is "skipped"; no result is "absent"', () => {
    expect(stateOf({ status: 'skipped', blockedBy: ['CREATE-OK'] })).toBe('blocked');
    expect(stateOf({ status: 'skipped', blockedBy: [] })).toBe('skipped');
    expect(stateOf({ status: 'skipped' })).toBe('skipped');
    expect(stateOf({ status: 'failed' })).toBe('failed');
    expect(stateOf(undefined)).toBe('absent');
  });

  test.each<[State, State, boolean]>([
    ['passed', 'failed', true],
    ['skipped', 'failed', true],
    ['absent', 'failed', true],
    ['blocked', 'failed', true],
    ['failed', 'failed', false],
    ['passed', 'blocked', true],
    ['skipped', 'blocked', true],
    ['failed', 'blocked', false],
    ['blocked', 'blocked', false],
    ['passed', 'skipped', false],
    ['failed', 'passed', false],
    ['passed', 'absent', false],
  ])('%s → %s is a regression: %s', (before, after, expected) => {
    expect(isRegression(before, after)).toBe(expected);
  });
});

describe('diffResults: every requirement whose state differs, regressions first', () => {
  const before = results(
    ['A-SAME', 'MUST', 'passed'],
    ['A-FIXED', 'MUST', 'failed'],
    ['A-SHOULD-REGRESSED', 'SHOULD', 'passed'],
    ['A-NOT-CHECKED-NOW', 'MUST', 'passed'],
    ['A-MUST-REGRESSED', 'MUST', 'passed'],
    ['A-BLOCKED-NOW', 'MUST', 'passed'],
    ['A-STILL-BAD', 'MUST', 'failed'],
    ['A-REMOVED', 'MUST', 'failed'],
  );
  const after = results(
    ['A-SAME', 'MUST', 'passed'],
    ['A-FIXED', 'MUST', 'passed'],
    ['A-SHOULD-REGRESSED', 'SHOULD', 'failed'],
    ['A-NOT-CHECKED-NOW', 'MUST', 'skipped'],
    ['A-MUST-REGRESSED', 'MUST', 'failed'],
    ['A-BLOCKED-NOW', 'MUST', 'blocked'],
    ['A-STILL-BAD', 'MUST', 'blocked'],
    ['A-ADDED', 'MUST', 'passed'],
  );

  test('without --strict: MUST regressions gate, then the SHOULD one, fixes, changes, added, removed', () => {
    const changes = diffResults(before, after, false);
    expect(changes.map((c) => [c.id, c.before, c.after, c.kind, c.gating])).toEqual([
      ['A-MUST-REGRESSED', 'passed', 'failed', 'regression', true],
      ['A-BLOCKED-NOW', 'passed', 'blocked', 'regression', true],
      ['A-SHOULD-REGRESSED', 'passed', 'failed', 'regression', false],
      ['A-FIXED', 'failed', 'passed', 'fixed', false],
      ['A-NOT-CHECKED-NOW', 'passed', 'skipped', 'changed', false],
      ['A-STILL-BAD', 'failed', 'blocked', 'changed', false],
      ['A-ADDED', 'absent', 'passed', 'added', false],
      ['A-REMOVED', 'failed', 'absent', 'removed', false],
    ]);
    expect(changes[0]).toMatchObject({ afterMessage: 'expected x; received y (A-MUST-REGRESSED)' });
  });

  test('with --strict the SHOULD regression gates too, in catalog order among the gating ones', () => {
    const gating = diffResults(before, after, true).filter((c) => c.gating);
    expect(gating.map((c) => c.id)).toEqual(['A-SHOULD-REGRESSED', 'A-MUST-REGRESSED', 'A-BLOCKED-NOW']);
  });

  test('two runs with the same states: no change at all', () => {
    expect(diffResults(before, before, true)).toEqual([]);
  });
});

describe('againstBaseline: new failures, still failing, fixed, at the gating level', () => {
  const baseline = results(
    ['M-KNOWN', 'MUST', 'failed'],
    ['M-FIXED', 'MUST', 'failed'],
    ['M-NEW', 'MUST', 'passed'],
    ['M-UNSEEN', 'MUST', 'skipped'],
    ['M-WAS-BLOCKED', 'MUST', 'blocked'],
    ['M-NOW-BLOCKED', 'MUST', 'failed'],
    ['S-NEW', 'SHOULD', 'passed'],
    ['S-FIXED', 'SHOULD', 'failed'],
  );
  const now = results(
    ['M-KNOWN', 'MUST', 'failed'],
    ['M-FIXED', 'MUST', 'passed'],
    ['M-NEW', 'MUST', 'failed'],
    ['M-UNSEEN', 'MUST', 'failed'],
    ['M-WAS-BLOCKED', 'MUST', 'failed'],
    ['M-NOW-BLOCKED', 'MUST', 'blocked'],
    ['S-NEW', 'SHOULD', 'failed'],
    ['S-FIXED', 'SHOULD', 'passed'],
  );

  test('MUST gates: a failure the baseline did not have is new, even where the baseline did not check it', () => {
    expect(againstBaseline(baseline, now, false)).toEqual({
      newFailures: ['M-NEW', 'M-UNSEEN', 'M-WAS-BLOCKED'],
      stillFailing: ['M-KNOWN', 'M-NOW-BLOCKED'],
      fixed: ['M-FIXED'],
    });
  });

  test('--strict: SHOULD requirements count as well', () => {
    expect(againstBaseline(baseline, now, true)).toEqual({
      newFailures: ['M-NEW', 'M-UNSEEN', 'M-WAS-BLOCKED', 'S-NEW'],
      stillFailing: ['M-KNOWN', 'M-NOW-BLOCKED'],
      fixed: ['M-FIXED', 'S-FIXED'],
    });
  });
});

describe('catalogIdentity', () => {
  const a = [
    { id: 'LIST-OK', level: 'MUST' as const },
    { id: 'SHOW-OK', level: 'SHOULD' as const },
  ];
  test('ignores order, sees a new id and a new level', () => {
    const id = catalogIdentity(a);
    expect(id).toEqual({ hash: expect.stringMatching(/^sha256:[0-9a-f]{16}$/), requirements: 2 });
    expect(catalogIdentity([...a].reverse())).toEqual(id);
    expect(catalogIdentity([a[0]!, { id: 'SHOW-OK', level: 'MUST' }]).hash).not.toBe(id.hash);
    expect(catalogIdentity([...a, { id: 'X', level: 'MAY' }]).hash).not.toBe(id.hash);
  });
});

describe('reading a summary back', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'petstore-conformance-diff-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const requirements = [
    { id: 'LIST-OK', level: 'MUST' as const },
    { id: 'SHOW-404', level: 'SHOULD' as const },
  ];
  const summary = (over: Record<string, unknown> = {}) => ({
    tool: { name: 'petstore-conformance', version: '1.0.0' },
    catalog: catalogIdentity(requirements),
    target: 'http://127.0.0.1:8080/v1',
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 1000,
    seed: 1,
    options: { readOnly: false, strict: false, authRequired: false, only: [] },
    verdict: 'non-conformant',
    totals: { passed: 1, failed: 1, skipped: 0 },
    results: results(['LIST-OK', 'MUST', 'failed'], ['SHOW-404', 'SHOULD', 'passed']),
    ...over,
  });
  const write = (name: string, content: unknown) => {
    const file = path.join(work, name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
    return file;
  };
  const refusal = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      return error as Error;
    }
    throw new Error('expected an error');
  };

  test('a report folder stands for its summary.json', () => {
    write('run/summary.json', summary());
    const read = readSummary('run', work);
    expect(read.file).toBe(path.join(work, 'run', 'summary.json'));
    expect(read.summary.results).toHaveLength(2);
  });

  test.each<[string, unknown, RegExp]>([
    ['missing.json', undefined, /^missing\.json: no such file or folder$/],
    ['empty-folder/', 'folder', /^empty-folder\/ is a folder without summary\.json/],
    ['array.json', [1, 2], /not a petstore-conformance summary\.json \(it has no \/tool\/name\)$/],
    ['text.json', 'not json at all', /^text\.json: not JSON \(.+\); expected a summary\.json$/],
    [
      'other-tool.json',
      { tool: { name: 'schemathesis' } },
      /not a petstore-conformance summary\.json \(its \/tool\/name is "schemathesis"\)$/,
    ],
    [
      'bad-status.json',
      summary({ results: [{ id: 'LIST-OK', level: 'MUST', title: 't', status: 'broken' }] }),
      /\/results\/0\/status must be equal to one of the allowed values \(passed, failed, skipped\)/,
    ],
    [
      'twice.json',
      summary({
        results: [...results(['LIST-OK', 'MUST', 'passed']), ...results(['LIST-OK', 'MUST', 'passed'])],
      }),
      /LIST-OK appears twice/,
    ],
  ])('%s is refused with what is wrong', (name, content, message) => {
    if (content === 'folder') mkdirSync(path.join(work, name), { recursive: true });
    else if (content !== undefined) write(name, content);
    const error = refusal(() => readSummary(name, work));
    expect(error).toBeInstanceOf(SummaryFileError);
    expect(error.message).toMatch(message);
  });

  test('a baseline of the same catalog and gating level is taken', () => {
    write('base/summary.json', summary());
    expect(loadBaseline('base', work, { requirements }, false).summary.results[0]?.id).toBe('LIST-OK');
  });

  test.each<[string, Record<string, unknown>, boolean, RegExp]>([
    ['another gating level', {}, true, /judged without --strict \(MUST gates\), this run with --strict/],
    ['no catalog (an older version)', { catalog: undefined }, false, /does not say which catalog/],
    [
      'another catalog',
      {
        catalog: catalogIdentity([requirements[0]!, { id: 'SHOW-404', level: 'MUST' }]),
        results: results(['LIST-OK', 'MUST', 'failed'], ['SHOW-404', 'MUST', 'passed']),
      },
      false,
      /judged against another catalog .*: level changed SHOW-404 MUST→SHOULD/,
    ],
    [
      'a run that could not judge',
      { error: 'target unreachable' },
      false,
      /could not judge \(target unreachable\)/,
    ],
  ])('a baseline from %s is refused', (_, over, strict, message) => {
    const file = write(`refused-${Object.keys(over).join('-') || 'strict'}.json`, summary(over));
    const error = refusal(() => loadBaseline(file, work, { requirements }, strict));
    expect(error).toBeInstanceOf(CannotJudgeError);
    expect(error.message).toMatch(new RegExp(`^--baseline ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
    expect(error.message).toMatch(message);
  });
});

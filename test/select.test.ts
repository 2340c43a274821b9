// --only and --exclude: one selector (catalog/select.ts), and every side that uses it agrees.
import { describe, expect, test } from 'vitest';
import { loadCatalog } from '../catalog/catalog.ts';
import {
  EXCLUDED,
  isSelected,
  matchesAny,
  NOT_SELECTED,
  parsePrefixes,
  selectionProblem,
  selectionSkipReason,
  unmatchedPrefixes,
} from '../catalog/select.ts';
import { rollUp } from '../cli/record/rollup.ts';
import { requirementOf, skipReason } from '../suites/harness/requirement/requirement.ts';
import { testConfig } from './helpers/config.ts';

const catalog = loadCatalog();
const ids = catalog.requirements.map((r) => r.id);

describe('the selector', () => {
  test('prefixes are split on commas, trimmed, upper-cased, deduplicated', () => {
    expect(parsePrefixes(['list, show-ok', 'LIST', ' ,create'])).toEqual(['LIST', 'SHOW-OK', 'CREATE']);
    expect(parsePrefixes([])).toEqual([]);
  });

  test('a prefix matches ids that start with it, in any case', () => {
    expect(matchesAny('LIST-LIMIT-OVER-MAX', ['LIST-LIMIT'])).toBe(true);
    expect(matchesAny('LIST-LIMIT-OVER-MAX', ['list-limit'])).toBe(true);
    expect(matchesAny('LIST-OK', ['LIST-LIMIT'])).toBe(false);
  });

  test('--exclude applies after --only, each with its own reason', () => {
    const selection = { only: ['LIST'], exclude: ['LIST-LIMIT'] };
    expect(selectionSkipReason('LIST-OK', selection)).toBeUndefined();
    expect(selectionSkipReason('LIST-LIMIT-OVER-MAX', selection)).toBe(EXCLUDED);
    expect(selectionSkipReason('SHOW-OK', selection)).toBe(NOT_SELECTED);
    expect(selectionSkipReason('SHOW-OK', { only: [], exclude: ['SHOW'] })).toBe(EXCLUDED);
    expect(isSelected('CREATE-OK', { only: [] })).toBe(true);
    expect(EXCLUDED).toBe('excluded by --exclude');
    expect(NOT_SELECTED).toBe('not selected by --only');
  });

  test('prefixes that match nothing are found', () => {
    expect(unmatchedPrefixes(ids, ['LIST', 'NOPE', 'show'])).toEqual(['NOPE']);
  });
});

describe('the suites, the roll-up and the plan use the same rule', () => {
  const selections = [
    { only: [], exclude: [] },
    { only: ['list'], exclude: [] },
    { only: ['LIST', 'SHOW-OK'], exclude: ['list-limit'] },
    { only: [], exclude: ['ANY', 'AUTH'] },
  ];

  test.each(selections)('only %j', (selection) => {
    const config = testConfig('http://x/v1', {
      ...selection,
      apiKey: 'k',
      authRequired: true,
      maxResponseTimeMs: 1_000,
    });
    const rolled = rollUp(
      catalog,
      catalog.requirements.map((r) => ({
        requirementId: r.id,
        name: r.id,
        file: 'x.test.ts',
        state: 'passed' as const,
        failures: [],
        durationMs: 1,
      })),
      { ...selection, strict: false },
    );
    for (const r of catalog.requirements) {
      const expected = selectionSkipReason(r.id, selection);
      const result = rolled.results.find((x) => x.id === r.id)!;
      expect(skipReason(requirementOf(r.id), config), r.id).toBe(expected);
      if (expected === undefined) expect(result.status, r.id).toBe('passed');
      else expect(result, r.id).toMatchObject({ status: 'skipped', message: expected });
    }
  });

  test('the plan refuses a prefix that matches nothing, and a selection that leaves nothing', () => {
    expect(selectionProblem(ids, { only: ['LIST'], exclude: ['CREATE'] })).toBeUndefined();
    expect(selectionProblem(ids, { only: ['list'] })).toBeUndefined();
    expect(selectionProblem(ids, { only: ['NOPE'] })).toMatch(/^--only NOPE selects no requirement/);
    expect(selectionProblem(ids, { only: [], exclude: ['NOPE'] })).toMatch(
      /^--exclude NOPE matches no requirement/,
    );
    expect(selectionProblem(ids, { only: ['LIST-OK'], exclude: ['LIST'] })).toBe(
      '--only LIST-OK and --exclude LIST leave no requirement to check',
    );
  });
});

// The fleet table of merge and the Markdown of compare, on synthetic summaries: names, badges,
// cells, grouping, and escaping of whatever a summary carries.
import { describe, expect, test } from 'vitest';
import { comparisonMarkdown } from '../../cli/across/compare.ts';
import { diffResults } from '../../cli/across/diff.ts';
import {
  badgeOf,
  buildFleet,
  type CatalogView,
  fleetHtml,
  fleetMarkdown,
  installedCatalog,
  nameOf,
  slugs,
  uniqueNames,
  verdictOf,
} from '../../cli/across/fleet.ts';
import type { Summary, SummaryResult } from '../../cli/across/summary-file.ts';
import { catalogIdentity } from '../../cli/record/record.ts';

const catalogView: CatalogView = {
  requirements: [
    { id: 'ANY-X', level: 'MUST', title: 'any x', operation: 'any' },
    { id: 'LIST-OK', level: 'MUST', title: 'list ok', operation: 'listPets' },
    { id: 'LIST-FILLS', level: 'SHOULD', title: 'list fills', operation: 'listPets' },
    { id: 'SHOW-OK', level: 'MUST', title: 'show ok', operation: 'showPetById' },
  ],
  routes: new Map([
    ['listPets', 'GET /pets'],
    ['showPetById', 'GET /pets/{petId}'],
  ]),
};

const result = (
  id: string,
  status: SummaryResult['status'],
  extra: Partial<SummaryResult> = {},
): SummaryResult => ({
  id,
  level: catalogView.requirements.find((r) => r.id === id)?.level ?? 'MUST',
  title: `${id} title`,
  status,
  ...extra,
});

function summary(results: SummaryResult[], over: Partial<Summary> = {}): Summary {
  const count = (s: string) => results.filter((r) => r.status === s).length;
  return {
    tool: { name: 'petstore-conformance', version: '1.0.0' },
    catalog: catalogIdentity(catalogView.requirements),
    target: 'https://staging.pets.example.com/v1',
    startedAt: '2026-01-01T10:00:00.000Z',
    durationMs: 1000,
    seed: 7,
    options: { readOnly: false, strict: false, authRequired: false, only: [] },
    verdict: results.some((r) => r.status === 'failed' && r.level === 'MUST')
      ? 'non-conformant'
      : 'conformant',
    totals: { passed: count('passed'), failed: count('failed'), skipped: count('skipped') },
    results,
    ...over,
  };
}

const allPassed = () => catalogView.requirements.map((r) => result(r.id, 'passed'));

describe('deployment names', () => {
  test.each([
    ['https://staging.pets.example.com/v1', 'staging.pets.example.com'],
    ['http://127.0.0.1:8080/v1', '127.0.0.1:8080'],
    ['https://example.com/pets/v1', 'example.com/pets'],
    ['https://example.com/api', 'example.com/api'],
    ['(bundled reference implementation)', 'reference'],
  ])('%s is named %s', (target, name) => {
    expect(nameOf(target)).toBe(name);
  });

  test('duplicates get a number; file names are reduced to safe characters and kept unique', () => {
    expect(uniqueNames(['a', 'b', 'a', 'a (2)', 'a'])).toEqual(['a', 'b', 'a (3)', 'a (2)', 'a (4)']);
    expect(slugs(['Staging EU', 'a:b', 'a/b', '../etc', ''])).toEqual([
      'staging-eu',
      'a-b',
      'a-b-2',
      'etc',
      'deployment',
    ]);
  });
});

describe('verdicts and badges', () => {
  test.each<[string, Summary, string, string]>([
    ['conformant', summary(allPassed()), 'conformant', 'brightgreen'],
    [
      'a partial run (--only)',
      summary(allPassed(), {
        options: { readOnly: false, strict: false, authRequired: false, only: ['LIST'] },
      }),
      'conformant (partial run)',
      'yellowgreen',
    ],
    [
      'MUST failures, and a SHOULD one that does not gate',
      summary([
        result('ANY-X', 'failed'),
        result('LIST-OK', 'failed'),
        result('LIST-FILLS', 'failed'),
        result('SHOW-OK', 'passed'),
      ]),
      '2 MUST failed',
      'red',
    ],
    [
      '--strict: the SHOULD one counts, and a blocked MUST is named',
      summary(
        [
          result('ANY-X', 'passed'),
          result('LIST-OK', 'passed'),
          result('LIST-FILLS', 'failed'),
          result('SHOW-OK', 'skipped', { blockedBy: ['LIST-FILLS'] }),
        ],
        { verdict: 'non-conformant', options: { readOnly: false, strict: true, authRequired: false } },
      ),
      '1 SHOULD failed, 1 blocked',
      'red',
    ],
    [
      'a run that could not judge',
      summary([], { verdict: 'non-conformant', error: 'target unreachable' }),
      'could not judge',
      'lightgrey',
    ],
  ])('%s', (_, s, message, color) => {
    expect(badgeOf(verdictOf(s))).toEqual({ schemaVersion: 1, label: 'pets conformance', message, color });
  });
});

describe('the fleet table', () => {
  const fleet = buildFleet(
    [
      { given: 'a', summary: summary(allPassed()), name: 'prod' },
      {
        given: 'b',
        summary: summary([
          result('ANY-X', 'passed'),
          result('LIST-OK', 'failed', { message: 'expected 200; received 500' }),
          result('LIST-FILLS', 'failed'),
          result('SHOW-OK', 'skipped', { blockedBy: ['LIST-OK'], message: 'blocked by LIST-OK' }),
          result('OLD-GONE', 'passed'),
        ]),
        name: 'staging',
      },
      {
        given: 'c',
        summary: summary([], { verdict: 'non-conformant', error: 'target unreachable' }),
        name: 'dev',
      },
    ],
    catalogView,
  );

  test('rows by operation in catalog order, an unknown id last; each cell the state of that run', () => {
    expect(fleet.groups.map((g) => [g.label, g.rows.map((r) => r.id)])).toEqual([
      ['any operation', ['ANY-X']],
      ['GET /pets (listPets)', ['LIST-OK', 'LIST-FILLS']],
      ['GET /pets/{petId} (showPetById)', ['SHOW-OK']],
      ['not in the catalog of this version', ['OLD-GONE']],
    ]);
    const states = fleet.groups.flatMap((g) => g.rows.map((r) => [r.id, ...r.cells.map((c) => c.state)]));
    expect(states).toEqual([
      ['ANY-X', 'passed', 'passed', 'unjudged'],
      ['LIST-OK', 'passed', 'failed', 'unjudged'],
      ['LIST-FILLS', 'passed', 'warned', 'unjudged'],
      ['SHOW-OK', 'passed', 'blocked', 'unjudged'],
      ['OLD-GONE', 'absent', 'passed', 'unjudged'],
    ]);
  });

  test('Markdown: the verdict row, then a table per operation', () => {
    const md = fleetMarkdown(fleet);
    expect(md).toContain('| verdict | ✅ conformant | ❌ 1 MUST failed, 1 blocked | ❔ could not judge |');
    expect(md).toContain('| `LIST-FILLS` list fills | SHOULD | ✅ | ⚠️ | ❔ |');
    expect(md).toContain('| `OLD-GONE` OLD-GONE title | MUST | — | ✅ | ❔ |');
  });

  test('HTML escapes every value a summary or a name carries', () => {
    const hostile = '<script>alert("x")</script> & \'quoted\'';
    const page = fleetHtml(
      buildFleet(
        [
          {
            given: 'x',
            name: hostile,
            summary: summary([result('LIST-OK', 'failed', { message: hostile, title: hostile })], {
              target: `https://evil.example/v1?<img src=x onerror=alert(1)>`,
            }),
          },
        ],
        catalogView,
      ),
      new Date('2026-01-01T00:00:00Z'),
    );
    expect(page).not.toContain('<script');
    expect(page).not.toContain('<img');
    expect(page).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quoted&#39;');
    const md = fleetMarkdown(
      buildFleet([{ given: 'x', name: 'a | b', summary: summary(allPassed()) }], catalogView),
    );
    expect(md).toContain('| a \\| b |');
  });

  test('the installed catalog groups the real requirements under their routes', () => {
    const view = installedCatalog();
    expect(view.routes.get('listPets')).toBe('GET /pets');
    expect(view.requirements.length).toBeGreaterThan(30);
  });
});

describe('compare as Markdown', () => {
  test('a regression with its message, escaped for a table', () => {
    const before = summary(allPassed());
    const after = summary([
      ...allPassed().filter((r) => r.id !== 'LIST-OK'),
      result('LIST-OK', 'failed', { message: 'expected a | b; received <html>' }),
    ]);
    const changes = diffResults(before.results, after.results, false);
    const md = comparisonMarkdown({
      before: { file: '/a/summary.json', given: 'a', summary: before },
      after: { file: '/b/summary.json', given: 'b', summary: after },
      changes,
    });
    expect(md).toMatch(/^## petstore-conformance compare: ❌ regressed: 1 gating regression/);
    expect(md).toContain(
      '| `LIST-OK` LIST-OK title | MUST | ✅ passed | ❌ failed | **regression** | expected a \\| b; received &lt;html&gt; |',
    );
  });
});

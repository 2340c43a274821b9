import { describe, expect, test } from 'vitest';
import { loadCatalog } from '../../catalog/catalog.ts';
import { Progress } from '../../cli/console/progress.ts';
import { wrapList } from '../../cli/console/terminal.ts';
import type { RunRecord } from '../../cli/record/record.ts';
import { rollUp, type TestOutcome } from '../../cli/record/rollup.ts';
import { endLines } from '../../cli/reports/console.ts';

const catalog = loadCatalog();
const plain = { green: String, red: String, yellow: String, dim: String, bold: String };
const outcome = (id: string, state: TestOutcome['state'], extra: Partial<TestOutcome> = {}): TestOutcome => ({
  requirementId: id,
  name: `${id} ${catalog.get(id)?.title}`,
  file: 'suites/x.test.ts',
  state,
  failures: [],
  durationMs: 1,
  ...extra,
});
const blockedBy = (id: string, by: string) =>
  outcome(id, 'skipped', {
    note: `blocked by ${by}: GET /pets answered 404: nothing is served under http://127.0.0.1:1/api/v1`,
    blockedBy: [by],
    failures: [{ message: 'blocked', received: 'GET /pets answered 404', reproduce: "curl -i -sS 'u'" }],
  });

/** Every requirement blocked by VERSION-V1-PREFIX, which failed: the wrong-prefix run. */
function wrongPrefixRun(): RunRecord {
  const outcomes = catalog.requirements.map((r) =>
    r.id === 'VERSION-V1-PREFIX'
      ? outcome(r.id, 'failed', {
          failures: [
            {
              message: 'x',
              expected: 'GET http://127.0.0.1:1/api/v1/pets answered by the service (not 404, not 5xx)',
              received: `404, JSON object {"type":"about:blank","title":"Not Found","status":404,"detail":"${'x'.repeat(200)}"}`,
              reproduce: `curl -i -sS 'http://127.0.0.1:1/api/v1/pets?${'q'.repeat(150)}'`,
            },
          ],
        })
      : blockedBy(r.id, 'VERSION-V1-PREFIX'),
  );
  return {
    version: '1.0.0',
    target: 'http://127.0.0.1:1/api/v1',
    targetFrom: '--base-url',
    startedAt: new Date(0),
    durationMs: 1600,
    config: { seed: 1, strict: false, readOnly: false, authRequired: false, only: [], exclude: [] } as never,
    rollUp: rollUp(catalog, outcomes, { only: [], exclude: [], strict: false }),
    operations: new Map(),
  };
}

describe('the end of a run, as a person reads it', () => {
  test('one block per failed requirement, with what it blocks under it, every line but reproduce within the width', () => {
    const lines = endLines(wrongPrefixRun(), 'reports/latest', ['summary.json'], plain, 100);
    const failures = lines.slice(lines.findIndex((l) => l.startsWith('Failures')));
    expect(failures[0]).toBe('Failures (1), each with what it blocks');
    expect(failures.filter((l) => /^[✗!] /.test(l))).toHaveLength(1);
    const blocks = failures.filter((l) => l.startsWith('    blocks:') || /^ {15}\S/.test(l));
    expect(blocks.length).toBeGreaterThan(3);
    expect(blocks.join(' ')).toContain('CREATE-OK (MUST)');
    expect(blocks.join(' ')).toContain('STORE-ORDERS-EXISTS (MAY)');
    const tooWide = lines.filter((l) => l.length > 100 && !l.startsWith('    reproduce:'));
    expect(tooWide).toEqual([]);
    expect(lines.find((l) => l.startsWith('    reproduce:'))).toContain('q'.repeat(150)); // never cut
    // Too long for one line: the verdict above the counts.
    const verdict = lines.indexOf('NON-CONFORMANT (1 gating failure, 29 gating requirements blocked)');
    expect(verdict).toBeGreaterThan(0);
    expect(lines[verdict + 1]).toBe('0 passed, 1 failed, 51 blocked, 0 skipped of 52 requirements');
    // In the table, a blocked requirement names what blocks it.
    expect(lines.find((l) => l.startsWith('  LIST-OK '))).toMatch(/blocked by VERSION-V1-PREFIX$/);
  });

  test('wrapList keeps items whole and indents the lines after the first', () => {
    expect(wrapList('  x: ', ['aaaa', 'bbbb', 'cccc'], 14)).toEqual([
      '  x: aaaa,',
      '     bbbb,',
      '     cccc',
    ]);
  });

  test("a requirement whose own checks passed, failed by another check's answer, says so rather than 0 of n failed", () => {
    const finding = {
      requirementId: 'CREATE-PERSISTED',
      expected: 'pet 7 as it was created: tag "cat"',
      received: 'GET /v1/pets/7 answered 200 with tag "CAT" (a model finding)',
      reproduce: "curl -i -sS 'http://127.0.0.1:1/v1/pets/7'",
    };
    const outcomes = catalog.requirements.map((r) =>
      r.id === 'LIST-OK' ? outcome(r.id, 'passed', { findings: [finding] }) : outcome(r.id, 'passed'),
    );
    outcomes.push(outcome('CREATE-PERSISTED', 'passed', { name: 'CREATE-PERSISTED a second check' }));
    const run = {
      ...wrongPrefixRun(),
      rollUp: rollUp(catalog, outcomes, { only: [], exclude: [], strict: false }),
    };
    const header = endLines(run, 'reports/latest', ['summary.json'], plain, 160).find((l) =>
      l.startsWith('✗ CREATE-PERSISTED'),
    );
    expect(header).toContain("(its checks passed; another check's answer broke its rule)");
    expect(header).not.toMatch(/0 of \d+ checks failed/);
  });
});

describe('progress', () => {
  test('counts requirements against a total known before any check ends; a line when the last check of one ends', () => {
    const selected = catalog.requirements.filter(
      (r) => r.id.startsWith('LIST-LIMIT-O') || r.id === 'LIST-OK',
    );
    const progress = new Progress(selected, plain, 100);
    progress.collected(['LIST-OK', 'LIST-LIMIT-OVER-MAX', 'LIST-LIMIT-OVER-MAX', 'CREATE-OK']);
    expect(progress.outcome(outcome('LIST-LIMIT-OVER-MAX', 'passed'))).toBeUndefined();
    expect(progress.outcome(outcome('LIST-OK', 'skipped', { blockedBy: ['VERSION-V1-PREFIX'] }))).toBe(
      `[1/${selected.length}] ◌ LIST-OK blocked by VERSION-V1-PREFIX`,
    );
    expect(progress.outcome(outcome('LIST-LIMIT-OVER-MAX', 'failed'))).toMatch(
      new RegExp(`^\\[2/${selected.length}\\] ✗ LIST-LIMIT-OVER-MAX `),
    );
    expect(progress.outcome(outcome('CREATE-OK', 'passed'))).toBeUndefined(); // not selected
  });
});

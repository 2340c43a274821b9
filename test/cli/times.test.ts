// One time for a run, the same in every report: the record's startedAt and durationMs (the figure the
// console prints) are what summary.json, summary.md, JUnit, CTRF and the events say; a JUnit suite and
// a requirement last from their first check's start to their last check's end, each within the one
// around it, though checks that ran at the same time add up to more than the run.
import { describe, expect, test } from 'vitest';
import type { Requirement } from '../../catalog/catalog.ts';
import type { RunRecord } from '../../cli/record/record.ts';
import { rollUp, type TestOutcome } from '../../cli/record/rollup.ts';
import { cover, requirementSpans } from '../../cli/record/spans.ts';
import { endLines } from '../../cli/reports/console.ts';
import { ctrfReport } from '../../cli/reports/ctrf.ts';
import { EventStream } from '../../cli/reports/events.ts';
import { junitXml } from '../../cli/reports/junit.ts';
import { summaryJson } from '../../cli/reports/summary-json.ts';
import { summaryMarkdown } from '../../cli/reports/summary-md.ts';
import { testConfig } from '../helpers/config.ts';

const req = (id: string, operation: Requirement['operation']) =>
  ({ id, level: 'MUST', title: `${id} title`, operation, needs: [] }) as unknown as Requirement;
const requirements = [req('LIST-A', 'listPets'), req('LIST-B', 'listPets'), req('SHOW-A', 'showPetById')];
const catalog = { requirements, get: (id: string) => requirements.find((r) => r.id === id) };

const START = Date.parse('2026-01-01T00:00:00.000Z');
const check = (id: string, startedAt: number | undefined, durationMs: number): TestOutcome => ({
  requirementId: id,
  name: `${id} check ${startedAt}`,
  file: 'suites/x.test.ts',
  state: 'passed',
  failures: [],
  durationMs,
  ...(startedAt === undefined ? {} : { startedAt }),
});

/**
 * A run of 1 s whose checks overlap: LIST-A's three checks ran side by side for 900 ms each (2.7 s
 * added up), LIST-B's one from 200 to 500 ms, SHOW-A's one from 600 to 700 ms, and a check of
 * LIST-B that never ran (no start).
 */
const outcomes = [
  check('LIST-A', START + 50, 900),
  check('LIST-A', START + 60, 900),
  check('LIST-A', START + 70, 900),
  check('LIST-B', START + 200, 300),
  check('LIST-B', undefined, 0),
  check('SHOW-A', START + 600, 100),
];
const config = testConfig('http://127.0.0.1:1/v1', { seed: 7, runId: 'r' });
const record: RunRecord = {
  version: '1.0.0',
  target: config.baseUrl,
  targetFrom: '--base-url',
  startedAt: new Date(START),
  durationMs: 1000,
  config,
  rollUp: rollUp(catalog, outcomes, { only: [], strict: false }),
  operations: new Map([
    ['listPets', 'GET /pets'],
    ['showPetById', 'GET /pets/{petId}'],
  ]),
  checks: { outcomes, catalog: { requirements, unspecified: [] } },
};

const attr = (tag: string, name: string) => tag.match(new RegExp(` ${name}="([^"]*)"`))?.[1];

describe('one time for a run', () => {
  test("a requirement's span is from its first check's start to its last one's end, within the run", () => {
    const run = { start: START, end: START + 1000 };
    const spans = requirementSpans(outcomes, run);
    expect(spans.get('LIST-A')).toEqual({ start: START + 50, end: START + 970 });
    expect(spans.get('LIST-B')).toEqual({ start: START + 200, end: START + 500 });
    expect(cover([spans.get('LIST-A'), spans.get('LIST-B')])).toEqual({
      start: START + 50,
      end: START + 970,
    });
    // A check that ends past the run (a clock step) ends with it.
    expect(requirementSpans([check('LIST-A', START + 990, 50)], run).get('LIST-A')).toEqual({
      start: START + 990,
      end: START + 1000,
    });
  });

  test('JUnit: the suites last the run, each suite within them, each case within its suite', () => {
    const xml = junitXml(record);
    const suites = xml.match(/<testsuites [^>]*>/)![0];
    expect(attr(suites, 'time')).toBe('1.000');
    expect(attr(suites, 'timestamp')).toBe('2026-01-01T00:00:00.000Z');
    const blocks = xml.split('<testsuite ').slice(1);
    expect(blocks).toHaveLength(2);
    const times: Record<string, unknown> = {};
    for (const block of blocks) {
      const head = ` ${block.slice(0, block.indexOf('>'))}`;
      const suite = Number(attr(head, 'time'));
      expect(suite).toBeLessThanOrEqual(1);
      expect(Date.parse(attr(head, 'timestamp')!)).toBeGreaterThanOrEqual(START);
      for (const c of block.match(/<testcase [^>]*>/g)!) {
        expect(Number(attr(c, 'time'))).toBeLessThanOrEqual(suite);
        times[attr(c, 'name')!] = attr(c, 'time');
      }
      times[attr(head, 'name')!] = [attr(head, 'time'), attr(head, 'timestamp')];
    }
    expect(times).toEqual({
      'GET /pets (listPets)': ['0.920', '2026-01-01T00:00:00.050Z'],
      'LIST-A LIST-A title': '0.920',
      'LIST-B LIST-B title': '0.300',
      'GET /pets/{petId} (showPetById)': ['0.100', '2026-01-01T00:00:00.600Z'],
      'SHOW-A SHOW-A title': '0.100',
    });
  });

  test("CTRF, summary.json, summary.md, the console and the events give the record's start and duration", () => {
    const ctrf = JSON.parse(ctrfReport(record));
    expect(ctrf.results.summary).toMatchObject({ start: START, stop: START + 1000, duration: 1000 });
    expect(
      ctrf.results.tests.map((t: { start?: number; stop?: number; duration: number }) => t),
    ).toMatchObject([
      { testId: 'LIST-A', start: START + 50, stop: START + 970, duration: 920 },
      { testId: 'LIST-B', start: START + 200, stop: START + 500, duration: 300 },
      { testId: 'SHOW-A', start: START + 600, stop: START + 700, duration: 100 },
    ]);
    const summary = JSON.parse(summaryJson(record));
    expect(summary).toMatchObject({ startedAt: '2026-01-01T00:00:00.000Z', durationMs: 1000 });
    expect(summaryMarkdown(record, 'reports/latest')).toContain(' · 1.0 s · ');
    const plain = (s: string) => s;
    const p = { green: plain, red: plain, yellow: plain, dim: plain, bold: plain };
    expect(endLines(record, 'reports/latest', [], p).join('\n')).toContain(' · 1.0 s · ');

    const lines: string[] = [];
    const events = EventStream.open('-', (line) => lines.push(line));
    events.end(record, { html: false, har: false });
    const parsed = lines.map((l) => JSON.parse(l));
    expect(parsed[0]).toMatchObject({ type: 'run-start', startedAt: '2026-01-01T00:00:00.000Z' });
    expect(parsed.at(-1)).toMatchObject({ type: 'run-end', durationMs: 1000 });
  });
});

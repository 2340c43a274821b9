// Text for people, escaped in one place (cli/console/text.ts): summary.md, compare's and merge's
// Markdown write whatever a server or a summary carries (pipes, backslashes, angle brackets, line
// breaks) so that it reads as it came, in a table cell or a list item.
import { describe, expect, test } from 'vitest';
import { loadCatalog } from '../../catalog/catalog.ts';
import { mdCell, mdCode, plural } from '../../cli/console/text.ts';
import { cannotJudgeRecord } from '../../cli/record/record.ts';
import { summaryMarkdown } from '../../cli/reports/summary-md.ts';
import { testConfig } from '../helpers/config.ts';

describe('Markdown text', () => {
  test.each([
    ['a | b', 'a \\| b'],
    ['C:\\pets\\|x', 'C:\\\\pets\\\\\\|x'],
    ['<script>alert(1)</script>', '&lt;script&gt;alert(1)&lt;/script&gt;'],
    ['two\nlines\r\nthree', 'two lines three'],
    ['plain', 'plain'],
  ])('a cell: %j is written %j', (value, written) => {
    expect(mdCell(value)).toBe(written);
  });

  test.each([
    ['status 200', '`status 200`'],
    ['a | b', '`a \\| b`'],
    ['say `hi`', '`` say `hi` ``'],
    ['C:\\x', '`C:\\x`'],
  ])('code: %j is written %j', (value, written) => {
    expect(mdCode(value)).toBe(written);
  });

  test('counts with their noun', () => {
    expect(plural(1, 'gating requirement')).toBe('1 gating requirement');
    expect(plural(2, 'gating requirement')).toBe('2 gating requirements');
    expect(plural(0, 'entry', 'entries')).toBe('0 entries');
  });

  test('summary.md escapes what a run carries as compare and merge do', () => {
    const reason = 'the spec is invalid: a | b \\ <x>';
    const record = cannotJudgeRecord({
      version: '1.0.0',
      target: 'http://127.0.0.1:1/v1',
      targetFrom: '--base-url',
      startedAt: new Date('2026-01-01T00:00:00Z'),
      config: testConfig('http://127.0.0.1:1/v1'),
      reason,
      requirements: loadCatalog().requirements,
    });
    const text = summaryMarkdown(record, 'reports/latest');
    expect(text).toContain(mdCell(reason));
    expect(text).not.toContain('<x>');
  });
});

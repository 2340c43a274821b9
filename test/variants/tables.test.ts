/**
 * docs/proven.md lists every variant in two tables (section "The variants"). They are generated
 * from the variant modules, and this test fails when the page's copy differs.
 * PETSTORE_WRITE_TABLES=1 npx vitest run test/variants/tables.test.ts writes them into the page.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { packageRoot } from '../../catalog/paths.ts';
import { type Variant, variants } from './index.ts';

const PAGE = path.join(packageRoot(), 'docs', 'proven.md');
const SECTION = '## The variants';
const REGENERATE = 'PETSTORE_WRITE_TABLES=1 npx vitest run test/variants/tables.test.ts';

const ids = (list: string[]) => list.map((id) => `\`${id}\``).join(' ') || '–';
const cell = (text: string) => text.replace(/\|/g, '\\|');

/** A Markdown table of `list`; the "may block" column only when one of them declares blocks. */
function table(list: Variant[]): string {
  const withBlocks = list.some((v) => v.blocks?.length);
  const head = withBlocks
    ? ['| variant | the server… | must fail | may block |', '|---|---|---|---|']
    : ['| variant | the server… | must fail |', '|---|---|---|'];
  const rows = list.map(
    (v) =>
      `| \`${v.name}\` | ${cell(v.does)} | ${ids(v.breaks)} |` +
      (withBlocks
        ? ` ${v.blocks === 'every other' ? 'every other requirement' : ids(v.blocks ?? [])} |`
        : ''),
  );
  return [...head, ...rows].join('\n');
}

const ofKind = (kind: Variant['kind']) => variants.filter((v) => v.kind === kind);

/** The two <details> blocks, each from its opening tag to its closing tag, as the page holds them. */
function blocks(): { summary: string; text: string }[] {
  const faulty = ofKind('faulty');
  const conformant = ofKind('conformant');
  const hostile = ofKind('hostile');
  return [
    { summary: `The faulty variants (${faulty.length})`, body: table(faulty) },
    {
      summary: `The conformant (${conformant.length}) and hostile (${hostile.length}) variants`,
      body: table([...conformant, ...hostile]),
    },
  ].map(({ summary, body }) => ({
    summary,
    text: `<details><summary>${summary}</summary>\n\n${body}\n\n</details>`,
  }));
}

/** Where each generated block stands in the page: the n-th <details> of the variants section. */
function locate(page: string): { start: number; end: number }[] {
  const section = page.indexOf(SECTION);
  if (section < 0) throw new Error(`docs/proven.md has no section "${SECTION}"`);
  const next = page.indexOf('\n## ', section + 1);
  const stop = next < 0 ? page.length : next;
  const found: { start: number; end: number }[] = [];
  for (let at = page.indexOf('<details>', section); at >= 0 && at < stop; ) {
    const close = page.indexOf('</details>', at);
    if (close < 0 || close > stop) break;
    found.push({ start: at, end: close + '</details>'.length });
    at = page.indexOf('<details>', close);
  }
  return found;
}

function written(page: string): string {
  const expected = blocks();
  const found = locate(page);
  if (found.length !== expected.length) {
    throw new Error(
      `docs/proven.md's section "${SECTION}" holds ${found.length} <details> ` +
        `blocks; expected ${expected.length} (${expected.map((b) => b.summary).join('; ')})`,
    );
  }
  // From the last block back, so that earlier offsets stay valid.
  return found.reduceRight(
    (text, { start, end }, i) => text.slice(0, start) + expected[i]!.text + text.slice(end),
    page,
  );
}

describe('the variant tables of docs/proven.md', () => {
  test('are generated from the variant modules', () => {
    if (process.env.PETSTORE_WRITE_TABLES === '1') writeFileSync(PAGE, written(readFileSync(PAGE, 'utf8')));
    const page = readFileSync(PAGE, 'utf8');
    const found = locate(page);
    for (const [i, block] of blocks().entries()) {
      const place = found[i];
      expect(
        place && page.slice(place.start, place.end),
        `docs/proven.md: "${block.summary}" is out of date; run ${REGENERATE}`,
      ).toBe(block.text);
    }
  });

  test('escape a | in what a variant does, and show blocks only where a variant declares them', () => {
    const base: Variant = { name: 'a', kind: 'faulty', does: 'answers a|b', breaks: ['X'], server: {} };
    expect(table([base])).toBe(
      ['| variant | the server… | must fail |', '|---|---|---|', '| `a` | answers a\\|b | `X` |'].join('\n'),
    );
    expect(table([base, { ...base, name: 'b', blocks: ['Y', 'Z'] }]).split('\n')).toEqual([
      '| variant | the server… | must fail | may block |',
      '|---|---|---|---|',
      '| `a` | answers a\\|b | `X` | – |',
      '| `b` | answers a\\|b | `X` | `Y` `Z` |',
    ]);
  });
});

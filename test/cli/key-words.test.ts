// A key that is also a word of the run's own (`wrong`, `required`, `pets`) rewrites none of the run's
// words: every requirement id and title, and the tool's name, stay whole in summary.json, junit.xml,
// summary.md, the console, the HAR's _requirement, the events and the Allure results. The key is
// masked where the suite sent it and where the server echoed it; a long one is in no file and no line
// in any spelling. Against the real command, and a server that fails requirements whose ids hold the
// words (it accepts any key and any pet) and echoes the key it was sent.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadCatalog } from '../../catalog/catalog.ts';
import { startReferenceServer } from '../../reference-impl/index.ts';
import { SHORT_KEY_LENGTH } from '../../suites/harness/evidence/keys.ts';
import { build, type CliResult, filesUnder, type Json, readJson, runInProcess } from '../helpers/cli.ts';
import { spellingsOf } from '../helpers/spellings.ts';
import { createVariants } from '../variants/faulty/create.ts';

const catalog = loadCatalog();
const LONG_KEY = 'a-key-of-32-characters-0123456789';
const KEYS = ['wrong', 'required', 'pets', LONG_KEY] as const;
const SHOULD_FAIL = ['AUTH-WRONG-KEY-REFUSED', 'CREATE-WRONG-TYPE', 'CREATE-MISSING-REQUIRED'];

const work = mkdtempSync(path.join(tmpdir(), 'petstore-conformance-key-words-'));
const runs = new Map<string, { result: CliResult; dir: string }>();

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const validationOff = createVariants.find((v) => v.name === 'validation-off')!.server as {
  wrap: (h: Handler) => Handler;
};

/**
 * The reference, requiring `key`, that takes any value of the key's header for it (AUTH-WRONG-KEY-
 * REFUSED fails), accepts any pet (CREATE-WRONG-TYPE and CREATE-MISSING-REQUIRED fail), and echoes
 * the key it was sent in every spelling, in a header of every answer.
 */
function server(key: string) {
  const anyKey =
    (handler: Handler): Handler =>
    (req, res) => {
      const sent = req.headers['x-api-key'];
      if (typeof sent === 'string') {
        for (const [i, spelling] of Object.values(spellingsOf(sent)).entries())
          res.setHeader(`x-echo-${i}`, spelling);
        req.headers['x-api-key'] = key;
      }
      handler(req, res);
    };
  return startReferenceServer({
    port: 0,
    host: '127.0.0.1',
    apiKey: key,
    wrap: (handler) => anyKey(validationOff.wrap(handler)),
    // Room for the 64 KiB target and the 16 KiB header ANY-NO-5XX sends: node:http would answer
    // them 431 before the echo, and every answer the key went out with is to echo it.
    maxHeaderSize: 256 * 1024,
  });
}

beforeAll(async () => {
  await build();
  for (const key of KEYS) {
    const reference = await server(key);
    const dir = path.join(work, `reports-${runs.size}`);
    try {
      const result = await runInProcess(
        [
          '--base-url',
          reference.url,
          '--api-key',
          key,
          '--auth-required',
          '--report-dir',
          dir,
          '--events',
          path.join(work, `events-${runs.size}.ndjson`),
        ],
        { timeoutMs: 120_000 },
      );
      runs.set(key, { result, dir });
    } finally {
      await reference.close();
    }
  }
}, 600_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * The ids and titles that hold the key (any case): each with the form a search-and-mask would make
 * of it. (The tool's name comes back in the server's answers too, as the tag of the pets the run
 * created, where a short key masks it: it is checked where the run writes it, below.)
 */
function wordsAt(key: string): { word: string; masked: string }[] {
  const pattern = new RegExp(key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi');
  const words = catalog.requirements.flatMap((r) => [r.id, r.title]);
  return words
    .map((word) => ({ word, masked: word.replace(pattern, '***') }))
    .filter((w) => w.masked !== w.word);
}

/** Every text the run wrote: each report file, the events and the console. */
function everything(key: string): { name: string; text: string }[] {
  const { result, dir } = runs.get(key)!;
  const index = [...runs.keys()].indexOf(key);
  return [
    ...filesUnder(dir).map((file) => ({ name: file, text: readFileSync(path.join(dir, file), 'utf8') })),
    { name: 'events', text: readFileSync(path.join(work, `events-${index}.ndjson`), 'utf8') },
    { name: 'stdout', text: result.stdout },
    { name: 'stderr', text: result.stderr },
  ];
}

describe.each(KEYS)('with the key %s', (key) => {
  const run = () => runs.get(key)!;
  const out = () => `exit ${run().result.code}\n${run().result.stdout}\n${run().result.stderr}`;

  test('the run fails what the server breaks, the ids holding the key among them', () => {
    expect(run().result.code, out()).toBe(1);
    const summary = readJson(path.join(run().dir, 'summary.json'));
    const failed = summary.results.filter((r: Json) => r.status === 'failed').map((r: Json) => r.id);
    expect(failed).toEqual(expect.arrayContaining(SHOULD_FAIL));
  });

  test('summary.json, the events and the Allure results name every requirement by its own id and title', () => {
    const summary = readJson(path.join(run().dir, 'summary.json'));
    const own = catalog.requirements.map((r) => ({ id: r.id, title: r.title }));
    expect(summary.results.map((r: Json) => ({ id: r.id, title: r.title }))).toEqual(own);
    expect(summary.tool.name).toBe('petstore-conformance');

    const index = [...runs.keys()].indexOf(key);
    const events = readFileSync(path.join(work, `events-${index}.ndjson`), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const verdicts = events.filter((e) => e.type === 'requirement');
    expect(verdicts.map((e: Json) => ({ id: e.requirement, title: e.title }))).toEqual(own);
    const ids = new Set(catalog.requirements.map((r) => r.id));
    for (const e of events.filter((x) => x.type === 'check-end')) expect(ids).toContain(e.requirement);
    expect(events[0].tool.name).toBe('petstore-conformance');

    // A result per check, each under its requirement (its story label), named as its test is.
    const allure = filesUnder(path.join(run().dir, 'allure-results'))
      .filter((f) => f.endsWith('-result.json'))
      .map((f) => readJson(path.join(run().dir, 'allure-results', f)));
    const stories = allure.flatMap((x: Json) =>
      x.labels.filter((l: Json) => l.name === 'story').map((l: Json) => l.value as string),
    );
    for (const r of catalog.requirements) expect(stories).toContain(`${r.id} (${r.level}) ${r.title}`);
    const names = allure.map((x: Json) => x.name as string);
    for (const r of catalog.requirements)
      expect(names.some((n) => n.startsWith(`${r.id} ${r.title}`))).toBe(true);
  });

  test('junit.xml, summary.md, the HAR and the console hold the ids whole', () => {
    const junit = readFileSync(path.join(run().dir, 'junit.xml'), 'utf8');
    const asXml = (s: string) =>
      s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
    for (const r of catalog.requirements) expect(junit).toContain(`name="${asXml(`${r.id} ${r.title}`)}"`);
    const md = readFileSync(path.join(run().dir, 'summary.md'), 'utf8');
    for (const id of SHOULD_FAIL) expect(md).toContain(`\`${id}\``);
    const har = readJson(path.join(run().dir, 'exchanges.har'));
    const ids = new Set([...catalog.requirements.map((r) => r.id)]);
    const tagged = har.log.entries.map((x: Json) => x._requirement as string);
    expect(tagged.length).toBeGreaterThan(100);
    for (const id of tagged) expect(ids).toContain(id);
    for (const id of SHOULD_FAIL) expect(run().result.stdout).toMatch(new RegExp(`✗ ${id} \\(MUST\\)`));
    expect(run().result.stdout.split('\n')[0]).toBe('petstore-conformance 1.0.0');
    expect(junit).toContain('<testsuites name="petstore-conformance"');
    expect(readJson(path.join(run().dir, 'ctrf-report.json')).results.tool.name).toBe('petstore-conformance');
  });

  test('no id, title or the tool name is rewritten anywhere', () => {
    const words = wordsAt(key);
    if (key !== LONG_KEY) expect(words.length).toBeGreaterThan(0);
    const found: string[] = [];
    for (const { name, text } of everything(key))
      for (const { word, masked } of words)
        if (text.includes(masked)) found.push(`${name}: ${masked} (${word})`);
    expect(found).toEqual([]);
  });

  test('the key is masked where it was sent and where it came back', () => {
    // Every spelling the echo sent (x-echo-<i>), but base64 for a key under 6 bytes: so short a
    // fragment of base64 is not searched for, lest it match by chance (redact.ts).
    const echoed = Object.keys(spellingsOf(key))
      .map((name, i) => ({ name, header: `x-echo-${i}` }))
      .filter(({ name }) => Buffer.byteLength(key) >= 6 || !name.includes('base64'));
    const har = readJson(path.join(run().dir, 'exchanges.har'));
    const keyed = har.log.entries.filter((x: Json) =>
      x.request.headers.some((h: Json) => h.name.toLowerCase() === 'x-api-key'),
    );
    expect(keyed.length).toBeGreaterThan(100);
    for (const x of keyed) {
      const lines = x.request.headers.filter((h: Json) => h.name.toLowerCase() === 'x-api-key');
      for (const line of lines) expect(line.value).toBe('***');
      // The field in two lines, each a wrong key (AUTH-WRONG-KEY-REFUSED): what comes back is the
      // two joined ("a, b"), no spelling of the key.
      if (lines.length > 1) continue;
      for (const { name, header } of echoed)
        expect(x.response.headers.find((h: Json) => h.name === header)?.value, name).toBe('***');
    }
    const summary = readJson(path.join(run().dir, 'summary.json'));
    const curls = summary.results.map((r: Json) => r.reproduce).filter((c: unknown) => typeof c === 'string');
    // A curl line reads the key from PETSTORE_API_KEY when it runs: it holds none.
    expect(curls.join('\n')).toContain(`-H 'x-api-key: '"\${PETSTORE_API_KEY:-***}"`);
  });

  test(`a key under ${SHORT_KEY_LENGTH} characters is warned about at the start, and only such a key`, () => {
    const warned = run().result.stderr.includes('too few to be told apart from ordinary words');
    expect(warned, out()).toBe([...key].length < SHORT_KEY_LENGTH);
  });
});

test('a long key is in no file and no line, in any spelling, echoed as it was', () => {
  const spellings = Object.entries(spellingsOf(LONG_KEY));
  const found: string[] = [];
  for (const { name, text } of everything(LONG_KEY))
    for (const [spelling, value] of spellings) if (text.includes(value)) found.push(`${name}: ${spelling}`);
  expect(found).toEqual([]);
});

test("one time for the run in every report, each check's within it (the long key's run)", () => {
  const { result, dir } = runs.get(LONG_KEY)!;
  const summary = readJson(path.join(dir, 'summary.json'));
  const start = Date.parse(summary.startedAt);
  const { durationMs } = summary;
  expect(result.stdout).toContain(` · ${(durationMs / 1000).toFixed(1)} s · target `);
  expect(readFileSync(path.join(dir, 'summary.md'), 'utf8')).toContain(
    ` · ${(durationMs / 1000).toFixed(1)} s · `,
  );
  const ctrf = readJson(path.join(dir, 'ctrf-report.json')).results;
  expect(ctrf.summary).toMatchObject({ start, stop: start + durationMs, duration: durationMs });
  for (const t of ctrf.tests.filter((x: Json) => x.start !== undefined)) {
    expect(t.start).toBeGreaterThanOrEqual(start);
    expect(t.stop).toBeLessThanOrEqual(start + durationMs);
  }
  const junit = readFileSync(path.join(dir, 'junit.xml'), 'utf8');
  const attr = (tag: string, name: string) => tag.match(new RegExp(` ${name}="([^"]*)"`))?.[1];
  const suites = junit.match(/<testsuites [^>]*>/)![0];
  expect(attr(suites, 'time')).toBe((durationMs / 1000).toFixed(3));
  expect(attr(suites, 'timestamp')).toBe(summary.startedAt);
  let cases = 0;
  for (const block of junit.split('<testsuite ').slice(1)) {
    const head = ` ${block.slice(0, block.indexOf('>'))}`;
    const time = Number(attr(head, 'time'));
    expect(time).toBeGreaterThan(0);
    expect(time).toBeLessThanOrEqual(durationMs / 1000);
    expect(Date.parse(attr(head, 'timestamp')!)).toBeGreaterThan(start);
    for (const c of block.match(/<testcase [^>]*>/g)!) {
      expect(Number(attr(c, 'time'))).toBeLessThanOrEqual(time);
      cases++;
    }
  }
  expect(cases).toBe(catalog.requirements.length);
  const events = readFileSync(path.join(work, `events-${KEYS.indexOf(LONG_KEY)}.ndjson`), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  expect(events[0]).toMatchObject({ type: 'run-start', startedAt: summary.startedAt });
  expect(events.at(-1)).toMatchObject({ type: 'run-end', durationMs });
});

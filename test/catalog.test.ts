import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { CatalogError, loadCatalog, parseCatalog } from '../catalog/catalog.ts';
import { specFiles } from '../catalog/paths.ts';

const catalog = loadCatalog();
const service = readFileSync(specFiles.service, 'utf8');
const catalogText = readFileSync(specFiles.requirements, 'utf8');

/** Folds white space so that a quoted table row matches however the YAML wrapped it. */
const fold = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The text of each section of the service document, by its heading path ("Endpoints > GET /pets ..."). */
function sections(markdown: string): Map<string, string> {
  const out = new Map<string, string>();
  const path: string[] = [];
  let current: string[] = [];
  const flush = () => {
    for (let i = 0; i < path.length; i++) {
      const key = path.slice(i).join(' > ');
      out.set(key, `${out.get(key) ?? ''}\n${current.join('\n')}`);
    }
  };
  for (const line of markdown.split('\n')) {
    const heading = /^(#{2,6}) (.+)$/.exec(line);
    if (heading) {
      flush();
      current = [];
      const depth = heading[1]!.length - 2;
      path.splice(depth, path.length - depth, heading[2]!.trim());
    } else {
      current.push(line);
    }
  }
  flush();
  return out;
}
const bySection = sections(service);

describe('the requirements catalog', () => {
  test('has the form spec/requirements.schema.json describes and at least the issue #2 requirements', () => {
    expect(catalog.requirements.length).toBeGreaterThanOrEqual(40);
  });

  test('gives every requirement a unique id', () => {
    const ids = catalog.requirements.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test.each(catalog.requirements.map((r) => [r.id, r] as const))(
    '%s quotes its source word for word from the section it names',
    (_id, r) => {
      const section = bySection.get(r.source.section);
      expect(section, `no section "${r.source.section}" in spec/service.md`).toBeDefined();
      expect(fold(section!)).toContain(fold(r.source.text));
    },
  );

  test.each(catalog.unspecified.map((u) => [u.topic, u] as const))(
    'unspecified topic %s quotes its source from the section it names',
    (_topic, u) => {
      const section = bySection.get(u.section);
      expect(section, `no section "${u.section}" in spec/service.md`).toBeDefined();
      expect(fold(section!)).toContain(fold(u.text));
    },
  );

  test('records every "not shown" of the service document as an unspecified topic', () => {
    const notShown = service
      .split('\n')
      .flatMap((line) => line.split(/(?<=\.) /))
      .filter((sentence) => /not shown/.test(sentence))
      .map((sentence) => fold(sentence.replace(/^[-\d.\s]+/, '')));
    const recorded = catalog.unspecified.map((u) => fold(u.text));
    expect(notShown.length).toBeGreaterThanOrEqual(10);
    const missing = notShown.filter((sentence) => !recorded.some((text) => text.includes(sentence)));
    expect(missing).toEqual([]);
  });

  test('never makes an unspecified behaviour a MUST unless the user asserts it (auth-required)', () => {
    const invented = catalog.requirements.filter(
      (r) => r.basis === 'unspecified' && r.level === 'MUST' && !r.needs.includes('auth-required'),
    );
    expect(invented.map((r) => r.id)).toEqual([]);
  });

  test('keeps every id, level and title as published (a change here is a change of meaning)', () => {
    expect(catalog.requirements.map((r) => `${r.id} ${r.level} ${r.title}`)).toMatchSnapshot();
  });

  test('names its requirements so that --only OPERATION works as a prefix', () => {
    const prefixes = new Set(catalog.requirements.map((r) => r.id.split('-')[0]));
    expect([...prefixes].sort()).toEqual(['ANY', 'AUTH', 'CREATE', 'LIST', 'SHOW', 'STORE', 'VERSION']);
  });
});

describe('parseCatalog', () => {
  test('refuses an id that appears twice', () => {
    const first = catalogText.indexOf('  - id: ANY-JSON-CONTENT-TYPE');
    const twice = catalogText.replace('  - id: ANY-JSON-CONTENT-TYPE', '  - id: ANY-PET-SCHEMA');
    expect(first).toBeGreaterThan(0);
    expect(() => parseCatalog(twice)).toThrow(/ANY-PET-SCHEMA appears twice/);
  });

  test('refuses a level other than MUST, SHOULD or MAY', () => {
    expect(() => parseCatalog(catalogText.replace('level: MUST', 'level: MUSTNT'))).toThrow(CatalogError);
  });

  test('refuses an unspecified requirement whose topic is not listed', () => {
    expect(() =>
      parseCatalog(catalogText.replace('unspecified: duplicate-id', 'unspecified: nowhere')),
    ).toThrow(/topic "nowhere"/);
  });

  test('finds a requirement by id and nothing for an unknown id', () => {
    expect(catalog.get('LIST-LIMIT-OVER-MAX')?.level).toBe('MUST');
    expect(catalog.get('LIST-NOPE')).toBeUndefined();
  });
});

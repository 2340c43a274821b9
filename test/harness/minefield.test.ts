import { execFileSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { loadContract } from '../../suites/harness/contract/contract.ts';
import {
  bodyOf,
  EXTENDED,
  LEFT_TO_THE_READER,
  MALFORMED,
  NOT_JSON,
  printfCommand,
  STILL_JSON,
  showBytes,
} from '../../suites/harness/contract/minefield.ts';
import { parseExact } from '../../suites/harness/evidence/json.ts';

const contract = await loadContract();
const ID = 4_503_599_627_370_497n;
const TAG = 'petstore-conformance run-1';
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The body as a strict reader reads it: UTF-8, then JSON.parse; throws where either refuses. */
const strictly = (body: Uint8Array): unknown => JSON.parse(utf8.decode(body));

describe('the bodies that are not JSON', () => {
  test.each(NOT_JSON.map((kind) => [kind.case, kind] as const))(
    '%s: refused by UTF-8 and JSON.parse, and by lossless-json',
    (_, kind) => {
      const body = bodyOf(kind.body, ID, TAG);
      expect(() => strictly(body)).toThrow();
      expect(() => parseExact(body.toString('utf8'))).toThrow();
    },
  );

  test('cover every category, each case named once', () => {
    expect(new Set(NOT_JSON.map((kind) => kind.category))).toEqual(
      new Set([
        'structure',
        'comment',
        'quotes',
        'commas and colons',
        'literal',
        'number',
        'string',
        'white space',
        'encoding',
        'nesting',
      ]),
    );
    expect(new Set(NOT_JSON.map((kind) => kind.case)).size).toBe(NOT_JSON.length);
  });

  test('carry the pet id and the run tag, so that a lenient reader creates a fresh pet of the run', () => {
    const readable = NOT_JSON.filter((kind) => kind.case !== 'a byte order mark and nothing else');
    for (const kind of readable) {
      const text = bodyOf(kind.body, ID, TAG).toString('latin1');
      expect(text, kind.case).toContain(ID.toString());
      expect(text, kind.case).toContain(JSON.stringify(TAG));
    }
  });
});

describe('how a reader that takes a body which is not JSON reads it', () => {
  test('each kind is lenient (an extension reads it as written) or invents, and the two lists hold them all', () => {
    expect([...MALFORMED, ...EXTENDED].map((kind) => kind.case).sort()).toEqual(
      NOT_JSON.map((kind) => kind.case).sort(),
    );
    expect(MALFORMED.every((kind) => kind.reading === 'invents')).toBe(true);
    expect(EXTENDED.every((kind) => kind.reading === 'lenient')).toBe(true);
  });

  test('the extensions the issue names are lenient: NaN, comments, trailing commas, single quotes, bare keys, 01, content after the value', () => {
    const lenient = new Set(EXTENDED.map((kind) => kind.case));
    for (const kind of [
      'NaN',
      'a block comment between members',
      'a comma after the last member',
      'a string in single quotes',
      'a key without quotes',
      'a leading zero before the id',
      'an unknown escape, \\a',
      'a tab in a string, unescaped',
      'text after the object',
    ])
      expect(lenient, kind).toContain(kind);
  });

  test('what a reader can take only by completing or inventing is not lenient: a body cut short, a hole, a literal cut short', () => {
    const invents = new Set(MALFORMED.map((kind) => kind.case));
    for (const kind of ['the object not closed', 'an empty item in an array', 'a literal cut short'])
      expect(invents, kind).toContain(kind);
  });
});

describe('the bodies JSON leaves to the reader (i_)', () => {
  /** The body as a reader that ignores a byte order mark reads it (RFC 8259 §8.1 lets it). */
  const withoutBom = (body: Buffer) =>
    body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? body.subarray(3) : body;

  test.each(LEFT_TO_THE_READER.map((kind) => [kind.case, kind] as const))(
    '%s: each a pet of the run, its name plain where every reader reads it alike',
    (_, kind) => {
      const body = bodyOf(kind.body, ID, TAG);
      expect(body.toString('latin1')).toContain(ID.toString());
      expect(body.toString('latin1')).toContain(JSON.stringify(TAG));
      if (kind.name !== null) {
        const value = strictly(withoutBom(body)) as Record<string, unknown>;
        expect({ name: value.name, tag: value.tag }).toEqual({ name: kind.name, tag: TAG });
      } else {
        // Not UTF-8, or a lone surrogate: what the name becomes is the reader's.
        const text = Buffer.from(body).toString('utf8');
        const readable = (() => {
          try {
            return !/[\uD800-\uDFFF]/.test((strictly(body) as { name: string }).name);
          } catch {
            return false;
          }
        })();
        expect(readable, text).toBe(false);
      }
    },
  );

  test('are none of them among the bodies judged otherwise', () => {
    const cases = new Set([...NOT_JSON, ...STILL_JSON].map((kind) => kind.case));
    expect(LEFT_TO_THE_READER.filter((kind) => cases.has(kind.case))).toEqual([]);
  });
});

describe('the bodies that are JSON, spelled otherwise', () => {
  test.each(STILL_JSON.map((kind) => [kind.case, kind] as const))(
    '%s: read as the valid pet it spells',
    (_, kind) => {
      const body = bodyOf(kind.body, ID, TAG);
      const value = strictly(body) as Record<string, unknown>;
      const exact = parseExact(utf8.decode(body)) as Record<string, unknown>;
      expect({ name: value.name, tag: value.tag, id: String(exact.id) }).toEqual({
        name: kind.name,
        tag: TAG,
        id: ID.toString(),
      });
      expect(contract.validate(contract.schema('Pet'), value, exact)).toEqual([]);
    },
  );

  test('are each named once', () => {
    expect(new Set(STILL_JSON.map((kind) => kind.case)).size).toBe(STILL_JSON.length);
  });
});

describe('a body shown and sent again byte for byte', () => {
  test('showBytes shows printable ASCII as it is, a backslash doubled, every other byte as \\xNN', () => {
    expect(showBytes(Buffer.from([0x7b, 0x5c, 0x6e, 0x09, 0x00, 0xe5, 0x7f, 0x20, 0x7d]))).toBe(
      '{\\\\n\\x09\\x00\\xe5\\x7f }',
    );
  });

  test('printfCommand prints every byte there is, in sh', () => {
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const out = execFileSync('sh', ['-c', printfCommand(all)]);
    expect(out.equals(all)).toBe(true);
  });

  test('printfCommand prints every body of the minefield exactly, in sh', () => {
    for (const kind of [...NOT_JSON, ...STILL_JSON]) {
      const body = bodyOf(kind.body, ID, TAG);
      expect(execFileSync('sh', ['-c', printfCommand(body)]).equals(body), kind.case).toBe(true);
    }
  });
});

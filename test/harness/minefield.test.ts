import { execFileSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { loadContract } from '../../suites/harness/contract/contract.ts';
import {
  bodyOf,
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

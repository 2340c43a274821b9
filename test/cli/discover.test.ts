// What makes the command discoverable: the requirements subcommand, --help within 100 columns,
// colours as NO_COLOR and FORCE_COLOR say, and GitHub annotations escaped as the runner reads them.
import { beforeAll, describe, expect, test } from 'vitest';
import { loadCatalog } from '../../catalog/catalog.ts';
import { colourOn, paintFor } from '../../cli/console/terminal.ts';
import type { RequirementResult } from '../../cli/record/rollup.ts';
import {
  errorCommand,
  escapeData,
  escapeProperty,
  githubAnnotations,
} from '../../cli/reports/annotations.ts';
import { HELP_WIDTH, helpText } from '../../cli/run/help.ts';
import { build, type Json, runInProcess } from '../helpers/cli.ts';

const catalog = loadCatalog();

beforeAll(async () => {
  await build();
}, 150_000);

describe('petstore-conformance requirements', () => {
  test('lists every requirement in catalog order: id, level, needs and title', async () => {
    const r = await runInProcess(['requirements']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^ID +LEVEL +NEEDS +TITLE$/);
    for (const [i, req] of catalog.requirements.entries()) {
      const line = lines[i + 1]!;
      const needs = req.needs.length === 0 ? '-' : req.needs.join(',');
      expect(line.split(/ {2,}/), req.id).toEqual([req.id, req.level, needs, req.title]);
    }
    expect(r.stdout).toContain(`${catalog.requirements.length} requirements; select by id prefix`);
  });

  test('--json prints a JSON array of id, level, title, operation and needs', async () => {
    const r = await runInProcess(['requirements', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const rows: Json[] = JSON.parse(r.stdout);
    expect(rows).toEqual(
      catalog.requirements.map((req) => ({
        id: req.id,
        level: req.level,
        title: req.title,
        operation: req.operation,
        needs: [...req.needs],
      })),
    );
  });

  test('--only and --exclude list what a run with them would check', async () => {
    const r = await runInProcess(['requirements', '--json', '--only', 'list', '--exclude', 'LIST-LIMIT']);
    expect(r.code, r.stderr).toBe(0);
    const expected = catalog.requirements
      .map((req) => req.id)
      .filter((id) => id.startsWith('LIST') && !id.startsWith('LIST-LIMIT'));
    expect(expected.length).toBeGreaterThan(0);
    expect(JSON.parse(r.stdout).map((row: Json) => row.id)).toEqual(expected);
  });

  test('a bad option or a prefix that matches nothing: exit 2 with the reason', async () => {
    const bogus = await runInProcess(['requirements', '--bogus']);
    expect(bogus.code).toBe(2);
    expect(bogus.stderr).toContain('requirements: unknown option --bogus');
    expect(bogus.stderr).not.toMatch(/internal error|\bat \w/); // a usage error, not a stack
    const nothing = await runInProcess(['requirements', '--only', 'NOPE']);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('--only NOPE matches no requirement id');
  });
});

describe('--help', () => {
  test(`every line fits in ${HELP_WIDTH} columns`, () => {
    const long = helpText('1.0.0')
      .split('\n')
      .filter((line) => [...line].length > HELP_WIDTH);
    expect(long).toEqual([]);
  });

  test('names the options of the network, selection, annotations and the requirements subcommand', async () => {
    const r = await runInProcess(['--help']);
    for (const word of [
      '--exclude',
      '--proxy',
      'HTTPS_PROXY',
      'HTTP_PROXY',
      'NO_PROXY',
      '--ca-cert',
      'NODE_EXTRA_CA_CERTS',
      '--insecure',
      '--client-cert',
      '--client-key',
      '--annotations',
      'GITHUB_ACTIONS=true',
      'requirements',
      'NO_COLOR',
      'FORCE_COLOR',
    ]) {
      expect(r.stdout).toContain(word);
    }
  });
});

describe('colours', () => {
  const tty = { isTTY: true };
  const pipe = { isTTY: false };
  test.each([
    [tty, {}, true],
    [pipe, {}, false],
    [tty, { TERM: 'dumb' }, false],
    [tty, { NO_COLOR: '1' }, false],
    [tty, { NO_COLOR: '' }, true],
    [pipe, { FORCE_COLOR: '1' }, true],
    [pipe, { FORCE_COLOR: '3' }, true],
    [pipe, { FORCE_COLOR: 'true' }, true],
    [pipe, { FORCE_COLOR: '' }, true],
    [pipe, { FORCE_COLOR: '1', TERM: 'dumb' }, true],
    [tty, { FORCE_COLOR: '0' }, false],
    [tty, { FORCE_COLOR: 'false' }, false],
    [pipe, { FORCE_COLOR: '1', NO_COLOR: '1' }, false],
  ] as const)('stream %j, env %j: colours %s', (stream, env, on) => {
    expect(colourOn(stream, env)).toBe(on);
    expect(paintFor(stream, env).red('x')).toBe(on ? '\u001b[31mx\u001b[39m' : 'x');
  });
});

describe('GitHub annotations', () => {
  test('data escapes %, CR and LF; properties also : and ,', () => {
    expect(escapeData('100% done\r\nnext: a, b')).toBe('100%25 done%0D%0Anext: a, b');
    expect(escapeProperty('A:B,C%\n')).toBe('A%3AB%2CC%25%0A');
    expect(errorCommand('ID:1,2', 'line 1\nline 2')).toBe('::error title=ID%3A1%2C2::line 1%0Aline 2');
  });

  test('one ::error line per failed gating requirement, with what was expected, received and the curl line', () => {
    const base = {
      operation: 'listPets' as const,
      tests: { passed: 0, failed: 1, skipped: 0 },
      durationMs: 1,
    };
    const results: RequirementResult[] = [
      {
        ...base,
        id: 'LIST-LIMIT-OVER-MAX',
        level: 'MUST',
        title: 'a limit above 100 is rejected with a 4xx status',
        status: 'failed',
        gating: true,
        expected: 'status 400–499',
        received: '200, 50% off',
        reproduce: "curl -sS 'http://h/v1/pets?limit=101'",
      },
      { ...base, id: 'SHOW-UNKNOWN-404', level: 'SHOULD', title: 't', status: 'failed', gating: false },
      { ...base, id: 'LIST-OK', level: 'MUST', title: 't', status: 'passed', gating: false },
      {
        ...base,
        id: 'ANY-NO-5XX',
        level: 'MUST',
        title: 'no 5xx',
        status: 'failed',
        gating: true,
        message: 'boom',
      },
    ];
    expect(githubAnnotations({ results })).toEqual([
      "::error title=LIST-LIMIT-OVER-MAX::LIST-LIMIT-OVER-MAX (MUST) a limit above 100 is rejected with a 4xx status%0Aexpected: status 400–499%0Areceived: 200, 50%25 off%0Areproduce: curl -sS 'http://h/v1/pets?limit=101'",
      '::error title=ANY-NO-5XX::ANY-NO-5XX (MUST) no 5xx%0Aboom',
    ]);
  });
});

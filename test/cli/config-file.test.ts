// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the config file's own syntax here, not a template
// The config file at the edge: its keys are the long options in camelCase (from the one option table),
// plus named targets; flags win over environment variables, which win over the file, which wins over
// the defaults; `${VAR}` takes a value from the environment; every mistake in it is a usage error
// (exit 2) naming the file, the JSON path and what was expected. The shipped JSON Schema says the same.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { UsageError } from '../../cli/record/errors.ts';
import { CONFIG_NAMES, configKey, configKeys } from '../../cli/run/config-file.ts';
import { helpText } from '../../cli/run/help.ts';
import { type Invocation, OPTIONS, parseInvocation } from '../../cli/run/options.ts';
import { type Json, ROOT } from '../helpers/cli.ts';
import { shippedSchema } from '../helpers/schemas.ts';

const root = mkdtempSync(path.join(tmpdir(), 'petstore-conformance-config-'));
let folders = 0;
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A new working folder holding `files` (name → text). */
function folderWith(files: Record<string, string>): string {
  const dir = path.join(root, `w${++folders}`);
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

const yaml = (lines: string[]) => `${lines.join('\n')}\n`;
const run = (cwd: string, argv: string[] = [], env: Record<string, string> = {}) => {
  const invocation: Invocation = parseInvocation(argv, env, cwd);
  if (invocation.kind !== 'run') throw new Error(`expected a run, got ${invocation.kind}`);
  return invocation;
};
const usage = (cwd: string, argv: string[] = [], env: Record<string, string> = {}) => {
  try {
    parseInvocation(argv, env, cwd);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error(`expected a UsageError in ${cwd}`);
};

const schema: Json = JSON.parse(readFileSync(path.join(ROOT, 'schemas', 'config.schema.json'), 'utf8'));
const validConfig = shippedSchema('config.schema.json');

describe('the keys come from the one option table', () => {
  const keys = configKeys(OPTIONS);

  test('every long option but --config, --help and --version is a key, in camelCase', () => {
    expect(configKey('timeout-ms')).toBe('timeoutMs');
    expect(keys.get('apiKeyScheme')).toBe('api-key-scheme');
    expect([...keys.values()].sort()).toEqual(
      Object.keys(OPTIONS)
        .filter((name) => !['config', 'help', 'version'].includes(name))
        .sort(),
    );
  });

  test('--help names every option of the table', () => {
    const help = helpText('1.0.0');
    const missing = Object.keys(OPTIONS).filter(
      (name) =>
        !help.includes(`--${name} `) && !help.includes(`--${name},`) && !help.includes(`--no-${name} `),
    );
    expect(missing).toEqual([]);
  });

  test('the shipped JSON Schema has a key for every option, and none other, at the top and in each target', () => {
    const top = Object.keys(schema.properties).filter((k) => k !== '$schema' && k !== 'targets');
    expect(top.sort()).toEqual([...keys.keys()].sort());
    const target = Object.keys(schema.definitions.namedTarget.properties);
    expect(target.sort()).toEqual([...keys.keys()].filter((k) => k !== 'target').sort());
    expect(schema.additionalProperties).toBe(false);
    expect(schema.definitions.namedTarget.additionalProperties).toBe(false);
  });

  test('the schema takes the type the option takes: booleans for switches, lists for --only and --exclude', () => {
    for (const [key, option] of keys) {
      const def = schema.definitions[key];
      const def_ = OPTIONS[option as keyof typeof OPTIONS];
      expect(def.description, key).toMatch(/\S/);
      // What a mistake says it expected (cli/run/shipped-schema.ts).
      expect(def.title, key).toMatch(/\S/);
      if (def_.type === 'boolean') expect(def.type, key).toBe('boolean');
      else if ('multiple' in def_) expect(JSON.stringify(def.anyOf), key).toContain('"array"');
      else if ('value' in def_ && def_.value === 'integer')
        expect(JSON.stringify(def.anyOf), key).toContain('"integer"');
      else expect(def.type ?? def.anyOf, key).toBeTruthy();
    }
  });
});

describe('which file is read', () => {
  test('petstore-conformance.config.json, .yaml or .yml in the working folder, or the one --config names', () => {
    for (const name of CONFIG_NAMES) {
      const dir = folderWith({ [name]: name.endsWith('json') ? '{"strict": true}' : 'strict: true\n' });
      expect(run(dir)).toMatchObject({ configFile: name, config: { strict: true } });
    }
    const dir = folderWith({ 'ci/conformance.yaml': 'readOnly: true\n' });
    expect(run(dir, ['--config', 'ci/conformance.yaml'])).toMatchObject({
      configFile: path.join('ci', 'conformance.yaml'),
      config: { readOnly: true },
    });
    expect(run(folderWith({})).configFile).toBeUndefined();
  });

  test('two files in the working folder, a missing file, a folder, another extension: usage errors naming it', () => {
    const both = folderWith({ [CONFIG_NAMES[0]]: '{}', [CONFIG_NAMES[1]]: '{}\n' });
    expect(usage(both)).toContain(`${CONFIG_NAMES[0]} and ${CONFIG_NAMES[1]} are both in`);
    expect(run(both, ['--config', CONFIG_NAMES[1]]).configFile).toBe(CONFIG_NAMES[1]);
    const dir = folderWith({ 'settings.toml': '' });
    expect(usage(dir, ['--config', 'nope.yaml'])).toBe(
      'config file nope.yaml: cannot read it (no such file)',
    );
    mkdirSync(path.join(dir, 'a.yaml'));
    expect(usage(dir, ['--config', 'a.yaml'])).toBe('config file a.yaml: cannot read it (it is a folder)');
    expect(usage(dir, ['--config', 'settings.toml'])).toContain('expected a .json, .yaml or .yml file');
  });

  test('a file that does not parse names the file and where', () => {
    const json = folderWith({ 'petstore-conformance.config.json': '{"strict": true,}' });
    expect(usage(json)).toMatch(/^petstore-conformance\.config\.json: not valid JSON: /);
    const yml = folderWith({ 'petstore-conformance.config.yaml': 'strict: true\n  bad: [\n' });
    expect(usage(yml)).toMatch(/^petstore-conformance\.config\.yaml: not valid YAML: .*line \d+/);
  });
});

describe('what a file may hold', () => {
  const inFile = (lines: string[]) => folderWith({ 'petstore-conformance.config.yaml': yaml(lines) });

  test('each option by its camelCase key: strings, numbers, booleans, lists', () => {
    const dir = inFile([
      'baseUrl: http://localhost:8080/v1',
      'apiKeyHeader: X-Pets-Key',
      'readOnly: true',
      'only: [LIST, show-ok]',
      'exclude: LIST-LIMIT',
      'seed: 1234',
      'timeoutMs: "2500"',
      'reportDir: out/conformance',
      'har: false',
      'html: true',
      'annotations: none',
    ]);
    const plan = run(dir, [], { GITHUB_ACTIONS: 'true' });
    expect(plan.target).toEqual({
      kind: 'url',
      baseUrl: 'http://localhost:8080/v1',
      from: 'petstore-conformance.config.yaml',
    });
    expect(plan.config).toMatchObject({
      apiKeyHeader: 'X-Pets-Key',
      readOnly: true,
      only: ['LIST', 'SHOW-OK'],
      exclude: ['LIST-LIMIT'],
      seed: 1234,
      timeoutMs: 2500,
    });
    expect(plan).toMatchObject({ har: false, html: true, reportDir: path.join(dir, 'out', 'conformance') });
    expect(plan.annotations).toBeUndefined();
  });

  test('paths are relative to the file’s folder', () => {
    const dir = folderWith({ 'ci/c.yaml': yaml(['reportDir: ../reports/ci', 'events: events.ndjson']) });
    const plan = run(dir, ['--config', 'ci/c.yaml']);
    expect(plan.reportDir).toBe(path.join(dir, 'reports', 'ci'));
    expect(plan.events).toBe(path.join(dir, 'ci', 'events.ndjson'));
    expect(run(folderWith({ 'petstore-conformance.config.yaml': 'events: "-"\n' })).events).toBe('-');
  });

  test('an unknown key is a usage error naming the file, the path and the keys it could be', () => {
    const message = usage(inFile(['timeout: 5000']));
    expect(message).toMatch(
      /^petstore-conformance\.config\.yaml: \$\.timeout: unknown key "timeout" \(expected one of: /,
    );
    expect(message).toContain('timeoutMs');
    expect(usage(inFile(['targets:', '  qa:', '    target: x']))).toContain(
      '$.targets.qa.target: unknown key "target"',
    );
    expect(usage(inFile(['config: other.yaml']))).toContain('$.config: unknown key "config"');
  });

  test('a value of the wrong type is a usage error saying what was expected and what was found', () => {
    expect(usage(inFile(['strict: "yes"']))).toBe(
      'petstore-conformance.config.yaml: $.strict: expected true or false, got "yes"',
    );
    expect(usage(inFile(['timeoutMs: fast']))).toBe(
      'petstore-conformance.config.yaml: $.timeoutMs: expected a whole number from 1 to 600000, got "fast"',
    );
    expect(usage(inFile(['timeoutMs: 0']))).toBe(
      'petstore-conformance.config.yaml: $.timeoutMs: expected a whole number from 1 to 600000, got 0',
    );
    expect(usage(inFile(['annotations: sometimes']))).toContain(
      '$.annotations: expected github or none, got "sometimes"',
    );
    expect(usage(inFile(['$schema: 3']))).toContain(
      "$.$schema: expected the schema's path or URL (a string), got 3",
    );
    expect(usage(inFile(['targets:', '  qa: http://qa/v1']))).toContain(
      `$.targets.qa: expected the target's settings (an object), got "http://qa/v1"`,
    );
    expect(usage(inFile(['targets:', '  -qa:', '    readOnly: true']))).toContain(
      '$.targets.-qa: expected a target name: letters, digits, ".", "_" and "-", starting with a letter or digit',
    );
    expect(usage(inFile(['targets:', '  qa:', '    timeoutMs: [1]']))).toContain(
      '$.targets.qa.timeoutMs: expected a whole number from 1 to 600000, got a list',
    );
    expect(usage(inFile(['only: [LIST, 3]']))).toContain('$.only: expected a string or a list of strings');
    expect(usage(inFile(['baseUrl: ""']))).toContain('$.baseUrl: expected a non-empty string, got ""');
    expect(usage(inFile(['- strict']))).toContain('$: expected an object of settings');
    expect(usage(inFile(['targets: [a]']))).toContain('$.targets: expected an object of named targets');
  });

  test('a value that is checked later names where it came from', () => {
    expect(usage(inFile(['timeoutMs: ${TIMEOUT}']), [], { TIMEOUT: '0' })).toContain(
      'timeoutMs in petstore-conformance.config.yaml takes a whole number',
    );
    expect(usage(inFile(['baseUrl: ftp://x/v1']))).toContain(
      'baseUrl in petstore-conformance.config.yaml must be an http or https URL',
    );
    expect(usage(inFile(['only: LIST.OK']))).toContain(
      'only in petstore-conformance.config.yaml takes requirement id prefixes',
    );
  });
});

describe('precedence: flags, then environment variables, then the file, then the defaults', () => {
  const dir = folderWith({
    'petstore-conformance.config.yaml': yaml([
      'baseUrl: http://file.example/v1',
      'apiKey: ${FILE_KEY}',
      'timeoutMs: 3000',
      'strict: true',
      'proxy: http://file-proxy:3128',
    ]),
  });

  test('a flag wins over the file', () => {
    const plan = run(dir, ['--timeout-ms', '4000', '--base-url', 'http://flag.example/v1', '--no-strict'], {
      FILE_KEY: 'k',
    });
    expect(plan.config).toMatchObject({ timeoutMs: 4000, strict: false });
    expect(plan.target).toMatchObject({ baseUrl: 'http://flag.example/v1' });
  });

  test('an environment variable wins over the file', () => {
    const plan = run(dir, [], {
      FILE_KEY: 'from-file',
      PETSTORE_API_KEY: 'from-env',
      PETSTORE_BASE_URL: 'http://env.example/v1',
      HTTP_PROXY: 'http://env-proxy:3128',
    });
    expect(plan.config.apiKey).toBe('from-env');
    expect(plan.target).toMatchObject({ baseUrl: 'http://env.example/v1', from: 'PETSTORE_BASE_URL' });
    expect(plan.config.network?.proxy).toMatchObject({ http: 'http://env-proxy:3128/', from: 'HTTP_PROXY' });
  });

  test('the file wins over the defaults, and says so where it is shown', () => {
    const plan = run(dir, [], { FILE_KEY: 'from-file' });
    expect(plan.config).toMatchObject({ apiKey: 'from-file', timeoutMs: 3000, strict: true });
    expect(plan.target).toMatchObject({
      baseUrl: 'http://file.example/v1',
      from: 'petstore-conformance.config.yaml',
    });
    expect(plan.config.network?.proxy).toMatchObject({ from: 'proxy in petstore-conformance.config.yaml' });
  });
});

describe('named targets', () => {
  const dir = folderWith({
    'petstore-conformance.config.yaml': yaml([
      'target: qa',
      'timeoutMs: 3000',
      'targets:',
      '  qa:',
      '    baseUrl: http://qa.example/v1',
      '    apiKey: ${QA_KEY}',
      '    apiKeyScheme: Bearer',
      '  production:',
      '    baseUrl: https://pets.example.com/v1',
      '    readOnly: true',
      '    timeoutMs: 20000',
      '    apiKey: ${PROD_KEY}',
    ]),
  });

  test('--target takes any name of the file; its settings go over the top level’s', () => {
    const plan = run(dir, ['--target', 'production'], { PROD_KEY: 'p' });
    expect(plan.target).toEqual({
      kind: 'url',
      baseUrl: 'https://pets.example.com/v1',
      from: '--target production, petstore-conformance.config.yaml',
    });
    expect(plan.config).toMatchObject({ readOnly: true, timeoutMs: 20000, apiKey: 'p' });
  });

  test('the file’s target is the default; a variable only another target needs may be unset', () => {
    const plan = run(dir, [], { QA_KEY: 'q' });
    expect(plan.target).toMatchObject({ baseUrl: 'http://qa.example/v1' });
    expect(plan.config).toMatchObject({
      apiKey: 'q',
      apiKeyScheme: 'Bearer',
      timeoutMs: 3000,
      readOnly: false,
    });
  });

  test('production and staging keep their environment variables, which win over the file', () => {
    const plan = run(dir, ['--target', 'production'], {
      PROD_KEY: 'p',
      PETSTORE_PRODUCTION_URL: 'https://env.example.com/v1',
    });
    expect(plan.target).toMatchObject({ baseUrl: 'https://env.example.com/v1', from: '--target production' });
    expect(plan.config.readOnly).toBe(true);
    expect(
      run(folderWith({}), ['--target', 'staging'], { PETSTORE_STAGING_URL: 'https://s.example/v1' }).target,
    ).toMatchObject({ baseUrl: 'https://s.example/v1' });
  });

  test('--base-url or PETSTORE_BASE_URL leaves the file’s target out, its settings with it', () => {
    const plan = run(dir, ['--base-url', 'http://other.example/v1']);
    expect(plan.target).toMatchObject({ baseUrl: 'http://other.example/v1' });
    expect(plan.config.apiKeyScheme).toBeUndefined();
  });

  test('a target’s setting replaces the top level’s, whose variable then need not be set', () => {
    const layered = folderWith({
      'petstore-conformance.config.yaml': yaml([
        'apiKey: ${DEFAULT_KEY}',
        'targets:',
        '  qa:',
        '    baseUrl: http://qa.example/v1',
        '    apiKey: ${QA_KEY}',
      ]),
    });
    expect(run(layered, ['--target', 'qa'], { QA_KEY: 'q' }).config.apiKey).toBe('q');
    expect(usage(layered, ['--base-url', 'http://x/v1'], { QA_KEY: 'q' })).toContain(
      '$.apiKey: ${DEFAULT_KEY} is not set',
    );
  });

  test('baseUrl and target at the top level exclude each other, as --base-url and --target do', () => {
    const both = folderWith({
      'petstore-conformance.config.yaml': yaml([
        'baseUrl: http://a/v1',
        'target: qa',
        'targets:',
        '  qa:',
        '    baseUrl: http://qa/v1',
      ]),
    });
    expect(usage(both)).toBe(
      'baseUrl and target in petstore-conformance.config.yaml exclude each other: give one',
    );
  });

  test('a target nobody defines says where to define it', () => {
    expect(usage(dir, ['--target', 'nightly'], { QA_KEY: 'q' })).toBe(
      '--target nightly needs a base URL: give targets.nightly.baseUrl in petstore-conformance.config.yaml (its targets: qa, production)',
    );
  });
});

describe('${VAR}: values from the environment', () => {
  test('anywhere in a string; an unset one is a usage error naming the file, the path and the variable', () => {
    const dir = folderWith({
      'petstore-conformance.config.json': JSON.stringify({
        baseUrl: 'http://${HOST}:${PORT}/v1',
        apiKey: '${KEY}',
      }),
    });
    const plan = run(dir, [], { HOST: 'localhost', PORT: '8080', KEY: 'secret' });
    expect(plan.target).toMatchObject({ baseUrl: 'http://localhost:8080/v1' });
    expect(plan.config.apiKey).toBe('secret');
    expect(usage(dir, [], { HOST: 'localhost', PORT: '8080' })).toBe(
      'petstore-conformance.config.json: $.apiKey: ${KEY} is not set in the environment (set it, or take the key out of the file)',
    );
    expect(usage(dir, [], { HOST: 'localhost', PORT: '', KEY: 'k' })).toContain(
      '$.baseUrl: ${PORT} is not set',
    );
  });

  test('the API key itself never goes in the file, and the message does not repeat it', () => {
    for (const value of ['"sk-live-1234"', '12345678', '"prefix-${KEY}"']) {
      const dir = folderWith({ 'petstore-conformance.config.yaml': `apiKey: ${value}\n` });
      const message = usage(dir, [], { KEY: 'k' });
      expect(message).toContain('$.apiKey: expected a variable such as ${PETSTORE_API_KEY}');
      expect(message).toContain('the API key never goes in the file');
      expect(message).not.toContain('1234');
    }
  });

  test('a malformed variable is a usage error saying how to write one', () => {
    const dir = folderWith({ 'petstore-conformance.config.yaml': 'baseUrl: http://${HOST/v1\n' });
    expect(usage(dir)).toContain('$.baseUrl: "http://${HOST/v1": a variable is written ${NAME}');
  });
});

describe('the shipped schema accepts what the command accepts, and refuses what it refuses', () => {
  const good: Json[] = [
    { $schema: './node_modules/petstore-conformance/schemas/config.schema.json' },
    { baseUrl: 'http://localhost:8080/v1', apiKey: '${PETSTORE_API_KEY}', strict: true, only: ['LIST'] },
    { seed: 42, timeoutMs: '5000', exclude: 'LIST-LIMIT', har: false, annotations: 'github' },
    { target: 'qa', targets: { qa: { baseUrl: 'http://qa/v1', apiKeyScheme: 'Bearer', readOnly: true } } },
  ];
  const bad: Json[] = [
    { timeout: 5000 },
    { strict: 'yes' },
    { apiKey: 'sk-live-1234' },
    { timeoutMs: 'fast' },
    { targets: { qa: { target: 'x' } } },
    { targets: { qa: 'http://qa/v1' } },
    { only: [3] },
  ];

  test.each(good.map((c) => [JSON.stringify(c), c]))('accepts %s', (_, config) => {
    expect(validConfig(config)).toEqual([]);
    const dir = folderWith({ 'petstore-conformance.config.json': JSON.stringify(config) });
    expect(() => parseInvocation([], { PETSTORE_API_KEY: 'k' }, dir)).not.toThrow();
  });

  test.each(bad.map((c) => [JSON.stringify(c), c]))('refuses %s', (_, config) => {
    expect(validConfig(config)).not.toEqual([]);
    const dir = folderWith({ 'petstore-conformance.config.json': JSON.stringify(config) });
    expect(() => parseInvocation([], {}, dir)).toThrow(UsageError);
  });

  test('the README’s example file is valid', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const example = /```yaml\n(# petstore-conformance\.config\.yaml[\s\S]*?)```/.exec(readme)?.[1];
    expect(
      example,
      'README.md has a ```yaml block starting "# petstore-conformance.config.yaml"',
    ).toBeDefined();
    expect(validConfig(parseYaml(example!))).toEqual([]);
  });
});

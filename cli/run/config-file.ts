/**
 * The config file, read at the edge with the flags and the environment (options.ts): `--config
 * <file>`, or petstore-conformance.config.json/.yaml/.yml in the working folder. Its keys are the
 * long options in camelCase, derived from the one option table (options.ts OPTIONS), so that an
 * option added there is a key here; plus `targets: { <name>: { baseUrl, … } }` for `--target <name>`.
 * `${VAR}` takes a value from the environment; the API key may only come that way.
 *
 * Everything wrong with a file is a UsageError (exit 2, before any request) naming the file, the
 * JSON path and what was expected. The file is checked against the JSON Schema shipped for editors
 * (schemas/config.schema.json), so that the two cannot disagree; a test holds the schema's keys to
 * the option table.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileErrorReason, UsageError } from '../record/errors.ts';
import { quoted, type SchemaProblem, schemaProblem } from './shipped-schema.ts';

/** The files looked for in the working folder when --config is not given, in this order. */
export const CONFIG_NAMES = [
  'petstore-conformance.config.json',
  'petstore-conformance.config.yaml',
  'petstore-conformance.config.yml',
] as const;

/** An option as the config file knows it (a subset of options.ts OptionDef). */
export interface FileOption {
  readonly type: 'string' | 'boolean';
  readonly multiple?: boolean;
  readonly value?: 'integer' | 'path';
  /** false: not a key of the file (help, version, config). */
  readonly file?: false;
}

/** What an option holds once read, as parseArgs would give it. */
export type OptionValue = string | boolean | string[];

/** The schema of the file, shipped in schemas/: it says which keys there are and what each takes. */
const CONFIG_SCHEMA = 'config.schema.json';
/** The key of named targets. */
const TARGETS_KEY = 'targets';

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** "base-url" → "baseUrl". */
export function configKey(option: string): string {
  return option.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** The config keys of an option table, each with its option's name ("baseUrl" → "base-url"). */
export function configKeys(options: Readonly<Record<string, FileOption>>): Map<string, string> {
  return new Map(
    Object.entries(options)
      .filter(([, def]) => def.file !== false)
      .map(([name]) => [configKey(name), name]),
  );
}

export interface ConfigFile {
  /** Absolute. */
  readonly path: string;
  /** As the user would type it: relative to the working folder when inside it. */
  readonly shown: string;
  /** The names under `targets`. */
  readonly targets: readonly string[];
  /** The options set at the top level (not in a target), by option name. */
  readonly topLevel: ReadonlySet<string>;
  /** The top level's `target`, its `${VAR}`s expanded; undefined when it has none. */
  defaultTarget(): string | undefined;
  /**
   * The file's settings for a run against `target` (the top level, then `targets[target]` over it),
   * as parseArgs would give them: `${VAR}`s expanded (an unset one is a UsageError), paths made
   * absolute against the file's folder. Only the settings used are expanded: a variable that only
   * another target needs may be unset.
   */
  settings(target: string | undefined): FileSettings;
}

export interface FileSettings {
  /** By option name ("timeout-ms"). */
  readonly values: Readonly<Record<string, OptionValue>>;
  /** Where an option's value was set, for messages: "timeoutMs in petstore-conformance.config.yaml". */
  label(option: string): string;
}

/**
 * The file to read: --config (relative to the working folder), else the one of CONFIG_NAMES that
 * exists there; undefined for none. Two of them at once is a UsageError (which one was meant?).
 */
export function findConfigFile(flag: string | undefined, cwd: string): string | undefined {
  if (flag !== undefined) {
    if (flag.trim() === '') throw new UsageError('--config needs a file');
    return path.resolve(cwd, flag);
  }
  const found = CONFIG_NAMES.filter((name) => existsSync(path.join(cwd, name)));
  if (found.length > 1) {
    throw new UsageError(
      `${found.join(' and ')} are both in ${cwd}: keep one, or name the one to read with --config`,
    );
  }
  return found[0] === undefined ? undefined : path.join(cwd, found[0]);
}

/**
 * Reads a config file and checks it against the shipped schema (schemas/config.schema.json, as
 * editors do); throws UsageError naming the file, the key's path and what was expected there.
 */
export function readConfigFile(
  file: string,
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
  options: Readonly<Record<string, FileOption>>,
): ConfigFile {
  const shown = shownPath(file, cwd);
  const fail = (at: string, what: string): never => {
    throw new UsageError(`${shown}: ${at}: ${what}`);
  };
  const data = parseFile(file, shown);
  if (!isObject(data)) fail('$', `expected an object of settings (a mapping), got ${quoted(data)}`);
  const problem = schemaProblem(CONFIG_SCHEMA, data);
  if (problem !== undefined) fail(...schemaMessage(problem));
  const keys = configKeys(options);
  const dir = path.dirname(file);

  /** A level of settings (the top, or one target), valid by the schema: by option name, values unexpanded. */
  const level = (raw: Record<string, unknown>, at: string): Map<string, Raw> => {
    const out = new Map<string, Raw>();
    for (const [key, value] of Object.entries(raw)) {
      const option = keys.get(key);
      if (option === undefined) continue; // $schema and targets: not settings
      const here = `${at}.${key}`;
      out.set(option, { value: asParsed(value, options[option]!), at: here });
      for (const text of [value].flat()) {
        const stray = typeof text === 'string' ? text.replace(VARIABLE, '').indexOf('${') : -1;
        if (stray >= 0) fail(here, `"${text}": a variable is written \${NAME} (letters, digits, _)`);
      }
    }
    return out;
  };

  const top = level(data as Record<string, unknown>, '$');
  const targets = new Map<string, Map<string, Raw>>();
  const rawTargets = (data as Record<string, unknown>)[TARGETS_KEY] as Record<
    string,
    Record<string, unknown>
  >;
  for (const [name, target] of Object.entries(rawTargets ?? {}))
    targets.set(name, level(target, `$.${TARGETS_KEY}.${name}`));

  const expand = (raw: Raw): OptionValue => {
    const one = (text: string) =>
      text.replace(VARIABLE, (_, name: string) => {
        const value = env[name];
        if (value === undefined || value === '')
          fail(raw.at, `\${${name}} is not set in the environment (set it, or take the key out of the file)`);
        return value!;
      });
    return typeof raw.value === 'string'
      ? one(raw.value)
      : Array.isArray(raw.value)
        ? raw.value.map(one)
        : raw.value;
  };

  return {
    path: file,
    shown,
    targets: [...targets.keys()],
    topLevel: new Set(top.keys()),
    defaultTarget() {
      const raw = top.get('target');
      return raw === undefined ? undefined : (expand(raw) as string);
    },
    settings(target) {
      const merged = new Map(top);
      for (const [option, raw] of targets.get(target ?? '') ?? []) merged.set(option, raw);
      const values: Record<string, OptionValue> = {};
      const labels = new Map<string, string>();
      for (const [option, raw] of merged) {
        let value = expand(raw);
        // A path is relative to the file's folder; "-" (standard output, for events) is no path.
        if (options[option]?.value === 'path' && typeof value === 'string' && value !== '-')
          value = path.resolve(dir, value);
        values[option] = value;
        labels.set(option, `${raw.at.slice(2)} in ${shown}`);
      }
      return { values, label: (option) => labels.get(option) ?? `--${option}` };
    },
  };
}

/** A value as read, unexpanded, with its JSON path. */
interface Raw {
  readonly value: OptionValue;
  readonly at: string;
}

function parseFile(file: string, shown: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`config file ${shown}: cannot read it (${fileErrorReason(error)})`);
  }
  const extension = path.extname(file).toLowerCase();
  if (extension === '.json') {
    try {
      return JSON.parse(text);
    } catch (error) {
      // Without the snippet some Node versions quote: a key written in the file stays off the console.
      const why = (error as Error).message.replace(/"(?:[^"\\]|\\.)*"/g, '…');
      throw new UsageError(`${shown}: not valid JSON: ${why}`);
    }
  }
  if (extension === '.yaml' || extension === '.yml') {
    // Loaded only when a YAML file is read: most runs have no config file.
    const yaml = createRequire(import.meta.url)('yaml') as typeof import('yaml');
    const document = yaml.parseDocument(text, { prettyErrors: true, uniqueKeys: true });
    const [error] = document.errors;
    if (error) throw new UsageError(`${shown}: not valid YAML: ${error.message.split('\n')[0]}`);
    return document.toJS();
  }
  throw new UsageError(`config file ${shown}: expected a .json, .yaml or .yml file`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A value the schema accepted, as parseArgs would give it: a list for a repeatable option, digits as a string. */
function asParsed(value: unknown, def: FileOption): OptionValue {
  if (def.multiple) return [value].flat() as string[];
  if (typeof value === 'number') return String(value);
  return value as string | boolean;
}

/** The message of what the schema found wrong: where ($.targets.qa.timeoutMs), and what. */
function schemaMessage(problem: SchemaProblem): [at: string, what: string] {
  const at = ['$', ...problem.at].join('.');
  switch (problem.kind) {
    case 'unknown key':
      return [
        `${at}.${problem.key}`,
        `unknown key "${problem.key}" (expected one of: ${problem.allowed.join(', ')})`,
      ];
    case 'bad name':
      return [`${at}.${problem.key}`, `expected ${problem.expected}`];
    case 'missing':
      return [at, `"${problem.key}" is missing: expected ${problem.expected}`];
    case 'invalid':
      // A key written in the file is not repeated on the console.
      return [at, `expected ${problem.expected}${problem.secret ? '' : `, got ${quoted(problem.value)}`}`];
  }
}

function shownPath(file: string, cwd: string): string {
  const relative = path.relative(cwd, file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}

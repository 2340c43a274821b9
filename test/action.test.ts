// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the config file's own syntax here, not a template
// The GitHub Action (action.yml), run here as the runner would run it: its steps executed with bash
// in order, inputs handed over through the step's env as GitHub does, in a copy of the repository
// standing for the action's checkout (its install step runs npm ci there for real), with stand-in
// GITHUB_STEP_SUMMARY and GITHUB_OUTPUT files whose content is checked.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { type CliResult, ROOT, readJson, runCli } from './helpers/cli.ts';
import { acceptAnyLimit } from './variants/faulty/list.ts';
import { closedPort } from './variants/servers/hostile.ts';
import { reference } from './variants/servers/reference.ts';

interface Step {
  name: string;
  id?: string;
  shell?: string;
  run?: string;
  uses?: string;
  env?: Record<string, string>;
  'working-directory'?: string;
}
interface Action {
  name: string;
  inputs: Record<string, { description: string; required?: boolean; default?: string }>;
  outputs: Record<string, { description: string; value: string }>;
  runs: { using: string; steps: Step[] };
}

const action: Action = parse(readFileSync(path.join(ROOT, 'action.yml'), 'utf8'));
const work = mkdtempSync(path.join(tmpdir(), 'petstore-conformance-action-'));
const actionPath = path.join(work, 'action');
const closers: (() => Promise<void>)[] = [];
const KEY = 'action-KEY-93b1-never-in-a-report';

interface StepRun {
  readonly result: CliResult;
  readonly summary: string;
  readonly outputs: Record<string, string>;
  readonly workspace: string;
}

/** ${{ inputs.x }} and ${{ github.action_path }}, as the runner substitutes them; nothing else is expected. */
function substitute(value: string, inputs: Record<string, string>): string {
  return value.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expression: string) => {
    const input = /^inputs\.([\w-]+)$/.exec(expression);
    if (input) {
      const name = input[1]!;
      if (!(name in action.inputs)) throw new Error(`action.yml uses an undeclared input: ${name}`);
      return inputs[name] ?? action.inputs[name]?.default ?? '';
    }
    if (expression === 'github.action_path') return actionPath;
    throw new Error(`action.yml: an expression this test does not know: ${expression}`);
  });
}

/** Runs one step as GitHub's `shell: bash` does (bash --noprofile --norc -eo pipefail {0}). */
async function runStep(
  step: Step,
  inputs: Record<string, string>,
  name: string,
  env: Record<string, string> = {},
): Promise<StepRun> {
  const workspace = path.join(work, 'workspace', name);
  mkdirSync(workspace, { recursive: true });
  const files = path.join(work, 'runner', name);
  mkdirSync(files, { recursive: true });
  const summaryFile = path.join(files, 'step-summary.md');
  const outputFile = path.join(files, 'output');
  writeFileSync(summaryFile, '');
  writeFileSync(outputFile, '');
  const script = path.join(files, `${step.id ?? 'step'}.sh`);
  writeFileSync(script, step.run ?? '');
  const stepEnv = Object.fromEntries(
    Object.entries(step.env ?? {}).map(([k, v]) => [k, substitute(String(v), inputs)]),
  );
  const result = await runCli([], {
    command: ['bash', '--noprofile', '--norc', '-eo', 'pipefail', script],
    cwd: step['working-directory'] ? substitute(step['working-directory'], inputs) : workspace,
    timeoutMs: 240_000,
    env: {
      ...env,
      GITHUB_ACTIONS: 'true',
      GITHUB_ACTION_PATH: actionPath,
      GITHUB_WORKSPACE: workspace,
      GITHUB_STEP_SUMMARY: summaryFile,
      GITHUB_OUTPUT: outputFile,
      ...stepEnv,
    },
  });
  const outputs = Object.fromEntries(
    readFileSync(outputFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  return { result, summary: readFileSync(summaryFile, 'utf8'), outputs, workspace };
}

const check = () => action.runs.steps.find((s) => s.id === 'check')!;
const runs: Record<string, StepRun> = {};
let install: StepRun;

beforeAll(async () => {
  // The action's checkout: the repository's files (tracked and new, not node_modules or dist).
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  for (const file of listed.split('\0').filter(Boolean)) {
    mkdirSync(path.dirname(path.join(actionPath, file)), { recursive: true });
    cpSync(path.join(ROOT, file), path.join(actionPath, file));
  }
  const installStep = action.runs.steps[0]!;
  // npm keeps the whole environment (its own npm_config_* settings included), as on a runner.
  const npmEnv = Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined),
  );
  install = await runStep(installStep, {}, 'install', npmEnv);
  if (install.result.code !== 0) return;

  const faulty = await reference({ wrap: acceptAnyLimit });
  closers.push(() => faulty.close());
  const port = await closedPort();
  // A config file in the workspace, as a team keeps one in its repository; its key from the step's env.
  const configDir = path.join(work, 'workspace', 'config', 'ci');
  mkdirSync(configDir, { recursive: true });
  writeFileSync(
    path.join(configDir, 'conformance.yaml'),
    [
      'target: faulty',
      'only: LIST-LIMIT',
      'strict: true',
      'targets:',
      '  faulty:',
      `    baseUrl: ${faulty.url}`,
    ]
      .concat(['    apiKey: ${CONFORMANCE_KEY}', ''])
      .join('\n'),
  );
  [runs.reference, runs.faulty, runs.unreachable, runs.config] = await Promise.all([
    runStep(check(), { flags: '--only LIST' }, 'reference'),
    runStep(
      check(),
      {
        'base-url': faulty.url,
        'api-key': KEY,
        flags: '--only LIST-LIMIT\n--strict',
        'report-dir': 'out/ci',
      },
      'faulty',
    ),
    runStep(check(), { 'base-url': `http://127.0.0.1:${port}/v1` }, 'unreachable'),
    runStep(check(), { config: 'ci/conformance.yaml' }, 'config', { CONFORMANCE_KEY: KEY }),
  ]);
}, 420_000);

afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  rmSync(work, { recursive: true, force: true });
});

const shown = (r: StepRun | undefined) =>
  `exit ${r?.result.code}\n--- stdout\n${r?.result.stdout}\n--- stderr\n${r?.result.stderr}`;

describe('action.yml', () => {
  test('is a composite action whose steps run bash, with inputs only through env (no expression inside a script)', () => {
    expect(action.runs.using).toBe('composite');
    expect(Object.keys(action.inputs).sort()).toEqual([
      'api-key',
      'base-url',
      'config',
      'flags',
      'report-dir',
    ]);
    for (const step of action.runs.steps) {
      expect(step.uses, `${step.name} uses another action`).toBeUndefined();
      expect(step.shell).toBe('bash');
      expect(step.run).not.toMatch(/\$\{\{/);
    }
    for (const output of Object.values(action.outputs))
      expect(output.value).toMatch(/^\$\{\{ steps\.check\.outputs\.[\w-]+ \}\}$/);
  });

  test('the install step installs and builds the suite in the action’s checkout (npm ci)', () => {
    expect(install.result.code, shown(install)).toBe(0);
    expect(readJson(path.join(actionPath, 'node_modules', 'vitest', 'package.json')).name).toBe('vitest');
    expect(readFileSync(path.join(actionPath, 'dist', 'cli', 'main.js'), 'utf8').length).toBeGreaterThan(0);
  });
});

describe('the check step', () => {
  test('against the bundled reference: passes, writes the job summary and the outputs', () => {
    const r = runs.reference!;
    expect(r.result.code, shown(r)).toBe(0);
    expect(r.summary).toMatch(/^## petstore-conformance: ✅ conformant/);
    expect(r.outputs).toEqual({
      'exit-code': '0',
      verdict: 'conformant',
      'report-dir': 'reports/conformance',
    });
    expect(readJson(path.join(r.workspace, 'reports', 'conformance', 'summary.json')).verdict).toBe(
      'conformant',
    );
    expect(r.result.stdout).not.toContain('::error');
  });

  test('against a faulty server: fails the step (exit 1), one ::error per failed gating requirement', () => {
    const r = runs.faulty!;
    expect(r.result.code, shown(r)).toBe(1);
    expect(r.summary).toMatch(/^## petstore-conformance: ❌ non-conformant/);
    expect(r.summary).toContain('`LIST-LIMIT-OVER-MAX`');
    expect(r.outputs).toEqual({ 'exit-code': '1', verdict: 'non-conformant', 'report-dir': 'out/ci' });
    const summary = readJson(path.join(r.workspace, 'out', 'ci', 'summary.json'));
    expect(summary.options).toMatchObject({ strict: true, only: ['LIST-LIMIT'] });
    const annotations = r.result.stdout.split('\n').filter((line) => line.startsWith('::error '));
    expect(annotations.length).toBeGreaterThan(0);
    expect(annotations[0]).toMatch(/^::error title=LIST-LIMIT-OVER-MAX::LIST-LIMIT-OVER-MAX \(MUST\) /);
  });

  test('the key is masked for the runner and appears nowhere else', () => {
    const r = runs.faulty!;
    const lines = `${r.result.stdout}\n${r.result.stderr}`.split('\n').filter((line) => line.includes(KEY));
    expect(lines).toEqual([`::add-mask::${KEY}`]);
    expect(r.summary).not.toContain(KEY);
    expect(readFileSync(path.join(r.workspace, 'out', 'ci', 'summary.json'), 'utf8')).not.toContain(KEY);
  });

  test('against an unreachable target: fails the step (exit 2), says why in the summary and an annotation', () => {
    const r = runs.unreachable!;
    expect(r.result.code, shown(r)).toBe(2);
    expect(r.summary).toContain('could not judge');
    expect(r.outputs).toMatchObject({ 'exit-code': '2', verdict: 'could-not-judge' });
    expect(r.result.stdout).toMatch(
      /^::error title=petstore-conformance::could not judge: target unreachable: /m,
    );
  });
});

describe('the config input', () => {
  test('reads the file named, relative to the workspace, its key from the step’s env; the key reaches no file', () => {
    const r = runs.config!;
    expect(r.result.code, shown(r)).toBe(1);
    expect(r.result.stdout).toContain('config:  ci/conformance.yaml');
    expect(r.outputs).toEqual({
      'exit-code': '1',
      verdict: 'non-conformant',
      'report-dir': 'reports/conformance',
    });
    const summary = readJson(path.join(r.workspace, 'reports', 'conformance', 'summary.json'));
    expect(summary).toMatchObject({
      configFile: path.join('ci', 'conformance.yaml'),
      options: { strict: true },
    });
    expect(summary.options.only).toEqual(['LIST-LIMIT']);
    expect(`${r.result.stdout}${r.result.stderr}${r.summary}`).not.toContain(KEY);
    for (const file of ['summary.json', 'exchanges.har', 'summary.md'])
      expect(readFileSync(path.join(r.workspace, 'reports', 'conformance', file), 'utf8')).not.toContain(KEY);
  });
});

// The package as someone else's project gets it: `npm pack`, then the tarball installed into a fresh
// project. Used by cli.test.ts, which runs `npx petstore-conformance` there.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, runCli } from '../helpers/cli.ts';

/** npm, bounded in time (killed by its pid); resolves to its stdout, rejects with its output. */
export async function npm(args: string[], cwd: string, timeoutMs: number): Promise<string> {
  // npm keeps the whole environment (its own npm_config_* settings included).
  const env = Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined),
  );
  const run = await runCli(args, { command: ['npm'], cwd, timeoutMs, env });
  if (run.code !== 0)
    throw new Error(`npm ${args.join(' ')} failed (${run.code}):\n${run.stdout}\n${run.stderr}`);
  return run.stdout;
}

/**
 * Packs the package (already built: prepack's build is done by the caller, so --ignore-scripts) and
 * installs the tarball into <work>/project. Resolves to the project folder.
 */
export async function installPacked(work: string): Promise<string> {
  const packed = JSON.parse(
    await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT, 60_000),
  );
  const tarball = path.join(work, packed[0].filename);
  const project = path.join(work, 'project');
  mkdirSync(project);
  writeFileSync(
    path.join(project, 'package.json'),
    `${JSON.stringify({ name: 'consumer', private: true }, null, 2)}\n`,
  );
  await npm(['install', tarball, '--no-audit', '--no-fund', '--prefer-offline'], project, 180_000);
  return project;
}

/**
 * The library API as a project that installed the package uses it: `import('petstore-conformance')`
 * (its exports), the reference server it starts answering GET /v1/pets, the package.json export, and
 * a deep import that `exports` keeps private. Resolves to what the child process saw.
 */
export async function useLibrary(project: string): Promise<{
  exports: string[];
  listStatus: number;
  version: string;
  deepImport: string;
}> {
  const code = `
    const lib = await import('petstore-conformance');
    const server = await lib.startReferenceServer({ port: 0, host: '127.0.0.1' });
    const res = await fetch(server.url + '/pets');
    await res.arrayBuffer();
    await server.close();
    const { default: pkg } = await import('petstore-conformance/package.json', { with: { type: 'json' } });
    const deepImport = await import('petstore-conformance/dist/cli/main.js').then(() => 'allowed', (e) => e.code);
    process.stdout.write(JSON.stringify({ exports: Object.keys(lib).sort(), listStatus: res.status, version: pkg.version, deepImport }));
  `;
  const run = await runCli([], {
    command: [process.execPath, '--input-type=module', '-e', code],
    cwd: project,
    timeoutMs: 60_000,
  });
  if (run.code !== 0)
    throw new Error(`import('petstore-conformance') failed (${run.code}):\n${run.stdout}\n${run.stderr}`);
  return JSON.parse(run.stdout);
}

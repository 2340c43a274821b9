// The package as someone else's project gets it: `npm pack`, then the tarball installed into a fresh
// project. Used by cli.test.ts, which runs `npx petstore-conformance` there.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './helpers.ts';

/** npm, bounded in time (killed by its pid); resolves to its stdout, rejects with its output. */
function npm(args: string[], cwd: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
      reject(new Error(`npm ${args.join(' ')} did not end within ${timeoutMs} ms`));
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else reject(new Error(`npm ${args.join(' ')} failed (${code}):\n${stdout}\n${stderr}`));
    });
  });
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

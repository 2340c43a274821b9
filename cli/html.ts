/**
 * --html: renders <report-dir>/allure-results into <report-dir>/allure-report with the Allure 3
 * CLI from the package's own dependencies (Node only: no Java, no network). The single-file form
 * opens straight from disk (file://) and travels well as a CI artifact.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

/** The Allure 3 CLI's entry: the package exports only dist/index.js, which is the CLI itself. */
export function allureCli(): string {
  return require.resolve('allure');
}

/** Renders the report; resolves to an error line, or undefined when it worked. Bounded in time. */
export async function renderHtml(reportDir: string, timeoutMs = 120_000): Promise<string | undefined> {
  let cli: string;
  try {
    cli = allureCli();
  } catch {
    return 'the allure package is not installed next to petstore-conformance';
  }
  const args = [
    cli,
    'awesome',
    path.join(reportDir, 'allure-results'),
    '--output',
    path.join(reportDir, 'allure-report'),
    '--single-file',
    '--report-name',
    'petstore-conformance',
    '--cwd',
    reportDir,
  ];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: reportDir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-4_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => {
      if (child.pid !== undefined) child.kill('SIGKILL');
      resolve(`allure did not finish within ${timeoutMs / 1000} s`);
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve(`allure could not start: ${error.message}`);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(undefined);
      else resolve(`allure exited with ${code}: ${lastLine(output)}`);
    });
  });
}

function lastLine(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.at(-1) ?? '(no output)';
}

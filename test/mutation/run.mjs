// npm run mutation: StrykerJS on the reference implementation, with the conformance suite as the test
// (stryker.config.json, test/mutation/vitest.config.ts; docs/mutation.md says how to read it). Runs
// Stryker, then prints the score as docs/mutation.md counts it, with every surviving mutant, and
// writes it beside Stryker's own reports: reports/mutation/summary.json. Plain JavaScript, so that it
// runs before anything is compiled.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const report = path.join(root, 'reports', 'mutation', 'mutation.json');
const started = Date.now();
const loadBefore = os.loadavg()[0];
const core = path.dirname(createRequire(import.meta.url).resolve('@stryker-mutator/core/package.json'));
const stryker = path.join(core, 'bin', 'stryker.js');
const run = spawnSync(process.execPath, [stryker, 'run', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
});
if (run.status !== 0) process.exit(run.status ?? 1);
const seconds = Math.round((Date.now() - started) / 1000);

const DETECTED = new Set(['Killed', 'Timeout']);
const INVALID = new Set(['CompileError', 'RuntimeError']);
const { files } = JSON.parse(readFileSync(report, 'utf8'));
const rows = [];
const survivors = [];
/** The marks' reasons (Stryker's statusReason of an Ignored mutant), with how many mutants each marks. */
const reasons = new Map();
for (const [file, { mutants }] of Object.entries(files)) {
  const count = (test) => mutants.filter(test).length;
  const row = {
    file,
    mutants: mutants.length,
    killed: count((m) => DETECTED.has(m.status)),
    survived: count((m) => m.status === 'Survived'),
    noCoverage: count((m) => m.status === 'NoCoverage'),
    marked: count((m) => m.status === 'Ignored'),
    invalid: count((m) => INVALID.has(m.status)),
  };
  rows.push(row);
  for (const m of mutants.filter((m) => m.status === 'Ignored'))
    reasons.set(m.statusReason, (reasons.get(m.statusReason) ?? 0) + 1);
  for (const m of mutants.filter((m) => m.status === 'Survived' || m.status === 'NoCoverage'))
    survivors.push(
      `${file}:${m.location.start.line}:${m.location.start.column} ${m.mutatorName} → ${JSON.stringify(m.replacement ?? '')} (${m.status})`,
    );
}
const total = rows.reduce(
  (sum, r) => Object.fromEntries(Object.entries(sum).map(([k, v]) => [k, v + r[k]])),
  { mutants: 0, killed: 0, survived: 0, noCoverage: 0, marked: 0, invalid: 0 },
);
const percent = (part, whole) => (whole === 0 ? 100 : Math.round((1000 * part) / whole) / 10);
/** Killed among the mutants not marked (and not invalid): Stryker's own mutation score. */
const score = (r) => percent(r.killed, r.mutants - r.marked - r.invalid);
const line = (name, r) =>
  `${name.padEnd(34)}${String(r.mutants).padStart(8)}${String(r.killed).padStart(8)}${String(r.survived + r.noCoverage).padStart(10)}${String(r.marked).padStart(8)}${`${score(r)} %`.padStart(10)}${`${percent(r.marked, r.mutants)} %`.padStart(10)}`;
console.log(
  `\n${'file'.padEnd(34)}${'mutants'.padStart(8)}${'killed'.padStart(8)}${'survived'.padStart(10)}${'marked'.padStart(8)}${'score'.padStart(10)}${'marked'.padStart(10)}`,
);
for (const r of rows) console.log(line(r.file, r));
console.log(line('all', total));
if (survivors.length > 0) console.log(`\nsurvived (${survivors.length}):\n  ${survivors.join('\n  ')}`);
const marks = [...reasons].sort((a, b) => b[1] - a[1]).map(([reason, count]) => ({ reason, count }));
if (marks.length > 0)
  console.log(
    `\nmarked (${total.marked}), by the reason given:\n${marks.map((m) => `${String(m.count).padStart(5)}  ${m.reason}`).join('\n')}`,
  );
const loadAfter = os.loadavg()[0];
const met = score(total) >= 95 && percent(total.marked, total.mutants) <= 15 && seconds <= 25 * 60;
console.log(
  `\nscore ${score(total)} % of the ${total.mutants - total.marked - total.invalid} mutants not marked (goal >= 95 %), ` +
    `${percent(total.marked, total.mutants)} % of all ${total.mutants} marked (goal <= 15 %), ` +
    `${Math.floor(seconds / 60)} min ${seconds % 60} s on ${os.availableParallelism()} cores, load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after (goal <= 25 min)` +
    `: ${met ? 'met' : 'MISSED'}\nreports: reports/mutation/mutation.html, mutation.json, summary.json`,
);
writeFileSync(
  path.join(root, 'reports', 'mutation', 'summary.json'),
  `${JSON.stringify({ score: score(total), markedPercent: percent(total.marked, total.mutants), seconds, cores: os.availableParallelism(), load: [loadBefore, loadAfter], total, files: rows, survivors, marks }, null, 2)}\n`,
);

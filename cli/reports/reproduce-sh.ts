/**
 * reproduce.sh: the failures of a run as one POSIX sh script. Every failed requirement, in the
 * catalog's order, under a comment naming it and what was expected, followed by the reproduce lines
 * of its failed checks (the first as summary.json gives it, then those of its other failed checks).
 * The key is never written in it: the lines read it from PETSTORE_API_KEY (suites/harness/evidence/keys.ts),
 * and a run that sent a key makes the script stop at once, saying so, when the variable is not set.
 * Written only for a run that judged and failed something.
 */
import { KEY_VARIABLE } from '../../suites/harness/evidence/keys.ts';
import { judgedAny, type RunRecord } from '../record/record.ts';
import type { RequirementResult } from '../record/rollup.ts';
import type { Writer } from './writer.ts';

export const REPRODUCE_FILE = 'reproduce.sh';

/** The reproduce lines kept for one requirement: the first few of its failed checks. */
const LINES_PER_REQUIREMENT = 5;

export const reproduceScript: Writer = {
  name: REPRODUCE_FILE,
  write(record, { folder }) {
    const script = reproduceSh(record);
    if (script !== undefined) folder?.write(REPRODUCE_FILE, script);
  },
};

/**
 * The script, or undefined when the run judged nothing or nothing failed with a reproduce line. A run
 * that could not judge every requirement keeps the failures it did judge.
 */
export function reproduceSh(run: RunRecord): string | undefined {
  if (!judgedAny(run)) return undefined;
  const failed = run.rollUp.results.filter((r) => r.status === 'failed');
  const blocks = failed.flatMap((r) => {
    const lines = reproduceLines(run, r);
    return lines.length === 0 ? [] : [block(r, lines)];
  });
  if (blocks.length === 0) return undefined;
  const { config } = run;
  return [
    '#!/bin/sh',
    `# petstore-conformance ${run.version}: the failed requirements of run ${config.runId} against`,
    `# ${oneLine(run.target)} (seed ${config.seed}), each sent again as it failed. Every curl -i shows`,
    '# the answer it gets; compare it with the line "expected:" above it.',
    ...(!config.apiKey
      ? []
      : [
          `# The key is read from ${KEY_VARIABLE}; it is not written here. Run:`,
          `#   ${KEY_VARIABLE}=<your key> sh reproduce.sh`,
          `: "\${${KEY_VARIABLE}:?set ${KEY_VARIABLE} to the API key the run used}"`,
        ]),
    '',
    ...blocks,
  ].join('\n');
}

/** The reproduce lines of a failed requirement: its result's first, then its other failed checks'. */
function reproduceLines(run: RunRecord, r: RequirementResult): string[] {
  const lines = new Set<string>();
  if (r.reproduce !== undefined) lines.add(r.reproduce);
  for (const o of run.checks?.outcomes ?? []) {
    if (o.requirementId !== r.id || o.state !== 'failed') continue;
    for (const f of o.failures) if (f.reproduce !== undefined) lines.add(f.reproduce);
  }
  return [...lines].slice(0, LINES_PER_REQUIREMENT);
}

function block(r: RequirementResult, lines: readonly string[]): string {
  return [
    `# ✗ ${r.id} (${r.level}) ${oneLine(r.title)}`,
    ...comment('expected', r.expected),
    ...comment('received', r.received),
    // A generated sequence's script starts with its own #!/bin/sh: here it is one part of this one.
    ...lines.map((line) => line.replace(/^#!\/bin\/sh\n/, '')),
    '',
  ].join('\n');
}

/** `# name: text`, each further line of the text a comment too. */
function comment(name: string, text: string | undefined): string[] {
  if (text === undefined) return [];
  return text.split(/\r\n|\r|\n/).map((line, i) => `# ${i === 0 ? `${name}: ` : '  '}${line}`);
}

function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, ' ');
}

// The writer of the Allure results (cli/reports/allure.ts) writes what allure-js-commons' own writer
// writes into a results folder, file for file and byte for byte, into the report folder's
// allure-results/ instead, as they are: what the run shows was masked where each secret went.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Stage, Status } from 'allure-js-commons';
import { FileSystemWriter } from 'allure-js-commons/sdk/reporter';
import { afterAll, expect, test } from 'vitest';
import { ResultsWriter } from '../../cli/reports/allure.ts';
import { ReportFolder } from '../../cli/reports/folder.ts';

const work = mkdtempSync(path.join(tmpdir(), 'petstore-results-writer-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function writeAll(writer: Pick<FileSystemWriter, keyof ResultsWriter>, secret = ''): void {
  writer.writeResult({
    uuid: 'r1',
    name: 'LIST-OK a list',
    status: Status.PASSED,
    statusDetails: { message: `é ${secret}` },
    stage: Stage.FINISHED,
    steps: [],
    attachments: [{ name: 'exchange', source: 'a1-attachment.txt', type: 'text/plain' }],
    parameters: [],
    labels: [{ name: 'requirement', value: 'LIST-OK' }],
    links: [],
  });
  writer.writeAttachment('a1-attachment.txt', Buffer.from(`exchanges: é, *** ${secret}`));
  writer.writeEnvironmentInfo({
    target: 'http://127.0.0.1:1/v1',
    'api key': 'none',
    verdict: 'CONFORMANT · x',
  });
  writer.writeGlobals('g-globals.json', { attachments: [], errors: [{ message: 'm', timestamp: 1 }] });
}

function contents(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(path.join(dir, f), 'utf8')]));
}

test('the results writer writes the files allure-js-commons writes, with the same bytes', () => {
  const theirs = path.join(work, 'allure');
  const folder = new ReportFolder(path.join(work, 'report'), path.join(work, 'previous'), work);
  writeAll(new FileSystemWriter({ resultsDir: theirs }));
  writeAll(new ResultsWriter(folder));
  const ours = contents(path.join(work, 'report', 'allure-results'));
  expect(Object.keys(ours)).toHaveLength(4);
  expect(ours).toEqual(contents(theirs));
  expect(folder.written).toEqual(['allure-results/']);
});

test('it writes the run’s words as they are: no text is searched and rewritten', () => {
  // "required" as a word of a requirement's message: were it the key, it would stay all the same.
  const folder = new ReportFolder(path.join(work, 'words'), path.join(work, 'words-previous'), work);
  writeAll(new ResultsWriter(folder), 'CREATE-MISSING-REQUIRED required');
  const written = Object.values(contents(path.join(work, 'words', 'allure-results'))).join('\n');
  expect(written).toContain('CREATE-MISSING-REQUIRED required');
});

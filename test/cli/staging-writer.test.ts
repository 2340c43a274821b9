// The writer of the Allure staging folder (cli/run/suites.ts) writes what allure-js-commons' own writer
// writes, file for file and byte for byte, only without a temporary file and fsync for each.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FileSystemWriter, type Writer } from 'allure-js-commons/sdk/reporter';
import { afterAll, expect, test } from 'vitest';
import { StagingWriter } from '../../cli/run/suites.ts';

const work = mkdtempSync(path.join(tmpdir(), 'petstore-staging-writer-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function writeAll(writer: Writer): void {
  const source = path.join(work, 'attachment-source.txt');
  writeFileSync(source, 'GET /v1/pets\n\nHTTP 200');
  writer.writeResult({ uuid: 'r1', name: 'LIST-OK a list', status: 'passed' } as never);
  writer.writeGroup({ uuid: 'g1', children: ['r1'], befores: [], afters: [] } as never);
  writer.writeAttachment('a1-attachment.txt', Buffer.from('exchanges: é, ***'));
  writer.writeAttachmentFromPath('a2-attachment.txt', source);
  writer.writeEnvironmentInfo({ target: 'http://127.0.0.1:1/v1', apiKey: 'none' });
  writer.writeCategoriesDefinitions([{ name: 'blocked', matchedStatuses: ['skipped'] }] as never);
  writer.writeGlobals('g-globals.json', { attachments: [], errors: [] } as never);
}

function contents(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(path.join(dir, f), 'utf8')]));
}

test('the staging writer writes the files allure-js-commons writes, with the same bytes', () => {
  const theirs = path.join(work, 'allure');
  const ours = path.join(work, 'staging');
  writeAll(new FileSystemWriter({ resultsDir: theirs }));
  writeAll(new StagingWriter(ours));
  expect(Object.keys(contents(ours)).length).toBe(7);
  expect(contents(ours)).toEqual(contents(theirs));
});

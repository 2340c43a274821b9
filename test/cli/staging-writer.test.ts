// The writer of the Allure staging (cli/run/allure-staging.ts) holds what allure-js-commons' own writer writes
// into a results folder, file for file and byte for byte, in memory instead of on disk.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FileSystemWriter, type Writer } from 'allure-js-commons/sdk/reporter';
import { afterAll, expect, test } from 'vitest';
import { StagingWriter } from '../../cli/run/allure-staging.ts';

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

test('the staging writer holds the files allure-js-commons writes, with the same bytes', () => {
  const theirs = path.join(work, 'allure');
  const ours = new Map<string, Buffer>();
  writeAll(new FileSystemWriter({ resultsDir: theirs }));
  writeAll(new StagingWriter(ours));
  expect(ours.size).toBe(7);
  expect(Object.fromEntries([...ours].map(([name, bytes]) => [name, bytes.toString('utf8')]))).toEqual(
    contents(theirs),
  );
});

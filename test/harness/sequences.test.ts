import { spawn } from 'node:child_process';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadContract } from '../../suites/harness/contract/contract.ts';
import { isConformanceError } from '../../suites/harness/evidence/errors.ts';
import { Client } from '../../suites/harness/http/client.ts';
import { Model } from '../../suites/harness/model/model.ts';
import type { CheckContext } from '../../suites/harness/requirement/requirement.ts';
import { checkSequences, type IdKind, IdRange, petArbitrary } from '../../suites/harness/steps/sequences.ts';
import { testConfig } from '../helpers/config.ts';
import { showVariants } from '../variants/faulty/show.ts';
import { unplantedVariants } from '../variants/faulty/unplanted.ts';
import { reference } from '../variants/servers/reference.ts';
import type { Wrap } from '../variants/servers/wrap.ts';

const contract = await loadContract();

/** Runs a POSIX sh script; its standard output. */
function sh(script: string): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.on('close', () => resolve(out));
  });
}

const wrapOf = (name: string): Wrap => {
  const v = [...unplantedVariants, ...showVariants].find((x) => x.name === name);
  if (!v || !('wrap' in v.server) || !v.server.wrap) throw new Error(`no variant ${name}`);
  return v.server.wrap;
};

/** A check's context against `url`, as requirement() gives it (what checkSequences reads). */
function contextFor(url: string, seed: number): { ctx: CheckContext; api: Client; notes: string[] } {
  const config = testConfig(url, { seed, timeoutMs: 5_000 });
  const model = new Model(config, contract);
  const api = new Client(config, { model });
  const notes: string[] = [];
  const ctx = {
    api,
    config,
    contract,
    model,
    note: async (message: string) => {
      notes.push(message);
    },
  } as unknown as CheckContext;
  return { ctx, api, notes };
}

describe('an id range of a generated sequence', () => {
  test.each(['low', 'negative', 'max-edge', 'min-edge'] as IdKind[])(
    '%s ids: the sh arithmetic of the script gives the same id, digit for digit',
    async (kind) => {
      const range = IdRange.fresh();
      const ids = [0, 3].map((slot) => ({ kind, slot }));
      const out = await sh(
        `B=${range.base}; E=${range.edge}; ${ids.map((t) => `echo ${IdRange.shell(t)}`).join('; ')}`,
      );
      expect(out.trim().split('\n')).toEqual(ids.map((t) => range.id(t).toString()));
    },
  );

  test('lies near 2^40, below -2^40, and within 2^32 of both ends of int64', () => {
    const range = IdRange.fresh();
    expect(range.id({ kind: 'low', slot: 0 }) >= 2n ** 40n).toBe(true);
    expect(range.id({ kind: 'low', slot: 4 }) < 2n ** 53n).toBe(true);
    expect(range.id({ kind: 'negative', slot: 0 }) <= -(2n ** 40n)).toBe(true);
    expect(2n ** 63n - 1n - range.id({ kind: 'max-edge', slot: 0 }) <= 2n ** 32n).toBe(true);
    expect(range.id({ kind: 'min-edge', slot: 0 }) + 2n ** 63n <= 2n ** 32n).toBe(true);
    expect(range.id({ kind: 'min-edge', slot: 0 }) > -(2n ** 63n)).toBe(true);
  });
});

describe('the pets a generated sequence creates', () => {
  const sample = fc.sample(petArbitrary('petstore-conformance run'), { numRuns: 400, seed: 3 });
  const texts = sample.flatMap((p) => [p.name, p.tag ?? '']);
  test.each([
    ['an empty name', () => sample.some((p) => p.name === '')],
    ['a name with white space at its start', () => sample.some((p) => /^\s/u.test(p.name))],
    ['a name with white space at its end', () => sample.some((p) => /\s$/u.test(p.name))],
    ['a precomposed accent', () => texts.some((t) => t.includes('ë'))],
    ['a combining mark', () => texts.some((t) => t.includes('\u0301'))],
    ['CJK', () => texts.some((t) => /\p{Script=Han}/u.test(t))],
    ['an emoji outside the BMP', () => texts.some((t) => [...t].some((c) => c.codePointAt(0)! > 0xffff))],
    ['right-to-left text', () => texts.some((t) => /\p{Script=Hebrew}|\p{Script=Arabic}/u.test(t))],
    [
      'a quote and a backslash',
      () => texts.some((t) => t.includes('"')) && texts.some((t) => t.includes('\\')),
    ],
    ['a control character', () => texts.some((t) => [...t].some((c) => c.codePointAt(0)! < 0x20))],
    [
      'no tag, an empty tag, and the run in the tag',
      () =>
        sample.some((p) => p.tag === undefined) &&
        sample.some((p) => p.tag === '') &&
        sample.some((p) => p.tag?.includes('petstore-conformance run')),
    ],
    [
      'no status, and each of the three',
      () => [undefined, 'available', 'pending', 'sold'].every((s) => sample.some((p) => p.status === s)),
    ],
  ] as const)('include %s', (_what, holds) => {
    expect(holds()).toBe(true);
  });
});

describe('generated sequences against a server', () => {
  const servers: { close(): Promise<void> }[] = [];
  const start = async (wrap?: Wrap) => {
    const server = await reference(wrap ? { wrap } : {});
    servers.push(server);
    return server.url;
  };
  beforeAll(() => undefined);
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  test('pass against the reference, within sequences × maxCommands requests, and say how many they sent', async () => {
    const { ctx, api, notes } = contextFor(await start(), 11);
    const { requests } = await checkSequences(ctx, { sequences: 4, maxCommands: 30 });
    expect(requests).toBeGreaterThan(10);
    expect(requests).toBeLessThanOrEqual(4 * 30);
    expect(api.findings).toEqual([]);
    expect(notes[0]).toMatch(/^\d+ request\(s\) in 4 generated sequences \(seeds 11 to 14\)$/);
  });

  test('against a server that trims names: shrunk to a script that sh replays, again and again, from fresh ids', async () => {
    const url = await start(wrapOf('name-trimmed'));
    const { ctx } = contextFor(url, 5);
    const failure = await checkSequences(ctx, { sequences: 10, maxCommands: 30 }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(isConformanceError(failure)).toBe(true);
    if (!isConformanceError(failure)) return;
    expect(failure.received).toMatch(
      /answered 200 (listing pet -?\d+ )?with name .* was sent — after the generated sequence create /,
    );
    expect(failure.received).toMatch(/shrunk \d+ time\(s\)/);
    const script = failure.reproduce;
    expect(script.split('\n')[0]).toBe('#!/bin/sh');
    const lines = script.split('\n').filter((l) => l.startsWith('curl '));
    expect(lines.length).toBeLessThanOrEqual(4);
    for (let run = 0; run < 2; run++) {
      const out = await sh(script);
      const statuses = out.split('\n').filter((l) => /^HTTP\/1\.1 \d{3}/.test(l));
      expect(statuses[0]).toMatch(/^HTTP\/1\.1 201/); // a fresh id each time: never 409
      expect(statuses.at(-1)).toMatch(/^HTTP\/1\.1 200/);
    }
  });

  test('what breaks another requirement is a finding for it, and the sequence goes on', async () => {
    const { ctx, api } = contextFor(await start(wrapOf('unknown-pet-200')), 21);
    await checkSequences(ctx, { sequences: 6, maxCommands: 30 });
    expect(new Set(api.findings.map((f) => f.requirementId))).toEqual(new Set(['SHOW-UNKNOWN-NOT-2XX']));
    expect(api.findings[0]?.reproduce).toMatch(/^curl -i -sS 'http:\/\/127\.0\.0\.1:\d+\/v1\/pets\/-?\d+'$/);
  });
});

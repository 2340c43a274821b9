// The real command behind a forward proxy on 127.0.0.1: HTTP_PROXY (either case) and --proxy carry
// every request, the reachability check included; NO_PROXY bypasses the proxy; a proxy that cannot
// connect, or does not run, leaves the target unreachable (exit 2). Each request the target receives
// is attributed by its remote port: one of the connections the proxy opened, or not.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReferenceServer } from '../../reference-impl/index.ts';
import { build, type CliResult, type Json, readJson, runInProcess } from '../helpers/cli.ts';
import { type ForwardProxy, forwardProxy, requestLog } from '../helpers/forward-proxy.ts';
import { acceptAnyLimit } from '../variants/faulty/list.ts';
import { closedPort } from '../variants/servers/hostile.ts';

const work = mkdtempSync(path.join(tmpdir(), 'petstore-conformance-proxy-'));
const dir = (name: string) => path.join(work, name);
const closers: (() => Promise<void>)[] = [];

interface Setup {
  readonly target: string;
  readonly remotePorts: (number | undefined)[];
  readonly proxy: ForwardProxy;
  run?: CliResult;
}
const setups: Record<string, Setup> = {};

/** A reference server whose requests are logged, and a proxy of its own. */
async function setup(options: { faulty?: boolean; refuseWith?: number } = {}): Promise<Setup> {
  const log = requestLog();
  const server = await startReferenceServer({
    port: 0,
    host: '127.0.0.1',
    wrap: (handler) => log.record(options.faulty ? acceptAnyLimit(handler) : handler),
  });
  const proxy = await forwardProxy(
    options.refuseWith === undefined ? {} : { refuseWith: options.refuseWith },
  );
  closers.push(
    () => server.close(),
    () => proxy.close(),
  );
  return { target: server.url, remotePorts: log.remotePorts, proxy };
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: an ANSI colour sequence starts with ESC
const ANSI = /\u001b\[\d+m/;

beforeAll(async () => {
  await build();
  const deadPort = await closedPort();
  setups.lower = await setup();
  setups.upper = await setup();
  setups.flag = await setup({ faulty: true });
  setups.bypass = await setup();
  setups.refusing = await setup({ refuseWith: 502 });
  setups.down = await setup();
  const cli = async (name: string, args: string[], env: Record<string, string>) => {
    const s = setups[name]!;
    s.run = await runInProcess(['--base-url', s.target, '--report-dir', dir(name), ...args], {
      env,
      timeoutMs: 120_000,
    });
  };
  // Two runs at a time (each starts vitest workers); the ones that stop at the preflight beside them.
  await Promise.all([
    cli('lower', ['--only', 'LIST'], { http_proxy: setups.lower.proxy.url, NO_COLOR: '', FORCE_COLOR: '1' }),
    cli('upper', ['--only', 'LIST'], { HTTP_PROXY: setups.upper.proxy.url, NO_COLOR: '1', FORCE_COLOR: '1' }),
    cli('refusing', [], { HTTP_PROXY: setups.refusing.proxy.url }),
    cli('down', [], { HTTP_PROXY: `http://127.0.0.1:${deadPort}` }),
  ]);
  await Promise.all([
    cli('flag', ['--only', 'LIST-LIMIT', '--proxy', setups.flag.proxy.url, '--annotations', 'github'], {
      HTTP_PROXY: `http://127.0.0.1:${deadPort}`,
    }),
    cli('bypass', ['--only', 'LIST'], {
      HTTP_PROXY: setups.bypass.proxy.url,
      NO_PROXY: 'localhost,127.0.0.1',
    }),
  ]);
}, 300_000);

afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  rmSync(work, { recursive: true, force: true });
});

const output = (s: Setup) =>
  `exit ${s.run?.code}\n--- stdout\n${s.run?.stdout}\n--- stderr\n${s.run?.stderr}`;

/** Every request the target received came through the proxy; there were some. */
function expectAllProxied(s: Setup): void {
  expect(s.remotePorts.length, output(s)).toBeGreaterThan(5);
  const direct = s.remotePorts.filter((port) => !s.proxy.opened(port));
  expect(direct, 'requests that did not come through the proxy').toEqual([]);
  expect(s.proxy.connects.length).toBeGreaterThan(0);
  expect(new Set(s.proxy.connects)).toEqual(new Set([new URL(s.target).host]));
}

describe('through a forward proxy', () => {
  test('http_proxy (lower case): every request goes through it, the reachability check included', () => {
    const s = setups.lower!;
    expect(s.run?.code, output(s)).toBe(0);
    expectAllProxied(s);
    expect(s.run?.stdout).toMatch(/network: proxy http:\/\/127\.0\.0\.1:\d+ \(http_proxy\)/);
    expect(readJson(path.join(dir('lower'), 'summary.json')).options).toMatchObject({ proxy: true });
  });

  test('HTTP_PROXY (upper case): the same', () => {
    const s = setups.upper!;
    expect(s.run?.code, output(s)).toBe(0);
    expectAllProxied(s);
  });

  test('--proxy wins over the environment, and a failed gating requirement prints its ::error line', () => {
    const s = setups.flag!;
    expect(s.run?.code, output(s)).toBe(1);
    expectAllProxied(s);
    expect(s.run?.stdout).toMatch(
      /^::error title=LIST-LIMIT-OVER-MAX::LIST-LIMIT-OVER-MAX \(MUST\) .*%0Aexpected: /m,
    );
    const summary = readJson(path.join(dir('flag'), 'summary.json'));
    const failedGating = summary.results.filter((r: Json) => r.status === 'failed' && r.level === 'MUST');
    expect(s.run?.stdout.match(/^::error /gm)).toHaveLength(failedGating.length);
  });

  test('NO_PROXY: the hosts it names are reached directly', () => {
    const s = setups.bypass!;
    expect(s.run?.code, output(s)).toBe(0);
    expect(s.remotePorts.length).toBeGreaterThan(5);
    expect(s.remotePorts.filter((port) => s.proxy.opened(port))).toEqual([]);
    expect(s.proxy.connects).toEqual([]);
  });

  test('a proxy that cannot connect to the target: unreachable, exit 2, in summary.json too', () => {
    const s = setups.refusing!;
    expect(s.run?.code, output(s)).toBe(2);
    const host = new URL(s.target).host;
    const line = `target unreachable: ${host}: the proxy ${s.proxy.url} (HTTP_PROXY) answered 502 when asked to connect to ${host}`;
    expect(s.run?.stderr).toContain(`could not judge: ${line}`);
    expect(readJson(path.join(dir('refusing'), 'summary.json')).error).toBe(line);
    expect(s.remotePorts).toEqual([]);
  });

  test('a proxy that does not run: unreachable, exit 2, naming the proxy', () => {
    const s = setups.down!;
    expect(s.run?.code, output(s)).toBe(2);
    expect(s.run?.stderr).toMatch(
      /could not judge: target unreachable: 127\.0\.0\.1:\d+: the proxy http:\/\/127\.0\.0\.1:\d+ \(HTTP_PROXY\): connection refused \(is the proxy running\?\)/,
    );
    expect(s.remotePorts).toEqual([]);
  });
});

describe('colours on a pipe', () => {
  test('FORCE_COLOR=1 turns them on; NO_COLOR wins over it', () => {
    expect(setups.lower?.run?.stdout).toMatch(ANSI);
    expect(setups.upper?.run?.stdout).not.toMatch(ANSI);
    expect(setups.refusing?.run?.stdout).not.toMatch(ANSI);
  });
});

// Real gateways in front of the reference, as staging has them (test/helpers/gateways.ts): nginx's
// limit_req answering 429, and with its default 503 (an HTML page, no Retry-After), nginx's limit_conn
// (503 past four requests at once), haproxy's maxconn queueing, and a haproxy stick-table limit of the
// request rate answering 429. Behind each, the reference is CONFORMANT by default, and the run says
// what it met (suites/harness/http/pace.ts, lane.ts; cli/record/pace.ts).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { build, type CliResult, failMessage, type Json, readJson, runCli } from '../helpers/cli.ts';
import { type Gateway, gatewayFound, HAPROXY, NGINX, startHaproxy, startNginx } from '../helpers/gateways.ts';
import { reference } from '../variants/servers/reference.ts';

const onCi = process.env.CI === 'true' || process.env.CI === '1';
const has = { nginx: gatewayFound(NGINX), haproxy: gatewayFound(HAPROXY) };
const missing = (name: string, binary: string) =>
  `${name} not found at ${binary} (apt-get install ${name}): the reference was not run behind it`;

interface Behind {
  readonly gateway: 'nginx' | 'haproxy';
  /** What it does, as the test names say it. */
  readonly does: string;
  readonly start: (upstream: string) => Promise<Gateway>;
}

const LIMIT = 'limit_req_zone $binary_remote_addr zone=pets:1m rate=30r/s;';
const gateways: Record<string, Behind> = {
  'nginx-429': {
    gateway: 'nginx',
    does: 'limit_req of 30 a second, bursts of 30, answered 429 (limit_req_status 429)',
    start: (up) => startNginx(up, `${LIMIT} limit_req_status 429;`, 'limit_req zone=pets burst=30 nodelay;'),
  },
  'nginx-503': {
    gateway: 'nginx',
    does: "limit_req of 30 a second, no burst, answered with nginx's default 503 (an HTML page, no Retry-After)",
    start: (up) => startNginx(up, LIMIT, 'limit_req zone=pets;'),
  },
  'nginx-conn': {
    gateway: 'nginx',
    does: 'limit_conn of 4 (503 past four requests at once)',
    start: (up) =>
      startNginx(up, 'limit_conn_zone $binary_remote_addr zone=conns:1m;', 'limit_conn conns 4;'),
  },
  'haproxy-queue': {
    gateway: 'haproxy',
    does: 'maxconn 4 on the server: requests past four wait in its queue',
    start: (up) => startHaproxy(up, [], 'maxconn 4'),
  },
  'haproxy-429': {
    gateway: 'haproxy',
    does: 'a stick-table rate of 30 requests a second, past it answered 429',
    start: (up) =>
      startHaproxy(up, [
        'stick-table type ip size 100k expire 30s store http_req_rate(1s)',
        'http-request track-sc0 src',
        'http-request deny deny_status 429 if { sc_http_req_rate(0) gt 30 }',
      ]),
  },
};

let work = '';
const runs: Record<string, { result: CliResult; summary: Json }> = {};

/** The reference behind the gateway `name`, judged by default (no --strict). */
async function judgeBehind(name: string, upstream: string): Promise<void> {
  const behind = gateways[name]!;
  if (!has[behind.gateway]) return;
  const gateway = await behind.start(upstream);
  try {
    const dir = path.join(work, name);
    const result = await runCli(['--base-url', gateway.url, '--report-dir', dir], { timeoutMs: 300_000 });
    runs[name] = { result, summary: readJson(path.join(dir, 'summary.json')) };
  } finally {
    await gateway.close();
  }
}

beforeAll(async () => {
  if (!has.nginx && !has.haproxy) return;
  await build();
  work = await mkdtemp(path.join(tmpdir(), 'petstore-conformance-gateways-'));
  const server = await reference();
  try {
    // Two lanes: the runs mostly wait for their gateway's limit.
    await Promise.all([
      (async () => {
        for (const name of ['nginx-429', 'nginx-503', 'haproxy-queue']) await judgeBehind(name, server.url);
      })(),
      (async () => {
        for (const name of ['haproxy-429', 'nginx-conn']) await judgeBehind(name, server.url);
      })(),
    ]);
  } finally {
    await server.close();
  }
}, 900_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe.each(['nginx', 'haproxy'] as const)('%s', (gateway) => {
  const binary = gateway === 'nginx' ? NGINX : HAPROXY;
  test(`${gateway} is there to run the reference behind it (required under CI=true)`, (ctx) => {
    if (!has[gateway] && !onCi) ctx.skip(missing(gateway, binary));
    expect(has[gateway], `CI=true: ${missing(gateway, binary)}`).toBe(true);
  });
});

describe.each(Object.keys(gateways))('the reference behind %s', (name) => {
  const behind = gateways[name]!;
  test.runIf(has[behind.gateway])(`is CONFORMANT by default: ${behind.does}`, () => {
    const run = runs[name]!;
    expect(run.result.code, failMessage(run.result)).toBe(0);
    expect(run.summary.verdict).toBe('conformant');
  });
});

describe('the run says what it met', () => {
  test.runIf(has.nginx)(
    "nginx's 429s and its default 503s, counted apart from the answers, and the pace",
    () => {
      for (const [name, status] of [
        ['nginx-429', '429'],
        ['nginx-503', '503'],
      ] as const) {
        const { summary, result } = runs[name]!;
        expect(summary.limits?.refusals?.[status], failMessage(result)).toBeGreaterThan(0);
        expect(summary.traffic.refused).toBe(
          Object.values(summary.limits.refusals as object).reduce((a: number, b) => a + (b as number), 0),
        );
        expect(summary.traffic.answered + summary.traffic.refused).toBeLessThanOrEqual(
          summary.traffic.requests,
        );
        expect(result.stdout).toMatch(
          new RegExp(
            `^limits: +\\d+ refusals? \\(${status} ×\\d+\\) waited out, held back \\d+\\.\\d s`,
            'm',
          ),
        );
      }
    },
  );

  test.runIf(has.nginx)("nginx's limit_conn: 503 past four at once, met by slowing down", () => {
    const { summary, result } = runs['nginx-conn']!;
    expect(summary.limits?.refusals?.['503'], failMessage(result)).toBeGreaterThan(0);
  });

  test.runIf(has.haproxy)("haproxy's stick-table 429s", () => {
    const { summary, result } = runs['haproxy-429']!;
    expect(summary.limits?.refusals?.['429'], failMessage(result)).toBeGreaterThan(0);
  });
});

// The real command against the reference served over HTTPS on 127.0.0.1, with certificates made by
// openssl for this test: a certificate the runner does not trust, one for another name and a client
// certificate that is missing are "could not judge" (exit 2) with a line saying how to fix it;
// --ca-cert, NODE_EXTRA_CA_CERTS, --insecure and --client-cert/--client-key make the run possible.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type ServerOptions } from 'node:https';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createReferenceHandler } from '../../reference-impl/index.ts';
import { type Certificates, makeCertificates } from '../helpers/certs.ts';
import { build, type CliResult, type Json, readJson, runCli, runInProcess } from '../helpers/cli.ts';
import { type ForwardProxy, forwardProxy } from '../helpers/forward-proxy.ts';
import { closedPort } from '../variants/servers/hostile.ts';

const work = mkdtempSync(path.join(tmpdir(), 'petstore-conformance-tls-'));
const dir = (name: string) => path.join(work, 'reports', name);
const KEY = 'tls-KEY-5a7d-never-shown';
let certs: Certificates;
let proxy: ForwardProxy;
const closers: (() => Promise<void>)[] = [];
const runs: Record<string, CliResult> = {};

interface HttpsTarget {
  readonly url: string;
  /** Per request: the remote port, and the client certificate's subject CN when one was verified. */
  readonly requests: { remotePort: number | undefined; clientCn?: string }[];
}
const targets: Record<string, HttpsTarget> = {};

/**
 * openssl s_server asking for a client certificate signed by the test CA: unlike node:https, which
 * closes the connection without a word, it refuses a certificate it does not trust with a TLS alert.
 */
async function opensslServer(): Promise<HttpsTarget> {
  const port = await closedPort();
  const f = certs.files;
  const child: ChildProcess = spawn(
    'openssl',
    [
      's_server',
      '-accept',
      `127.0.0.1:${port}`,
      '-cert',
      f.serverCert,
      '-key',
      f.serverKey,
      '-CAfile',
      f.caCert,
      '-Verify',
      '1',
      '-verify_return_error',
      '-www',
    ],
    { stdio: ['pipe', 'pipe', 'ignore'] },
  );
  closers.push(async () => {
    if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGTERM');
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('openssl s_server did not start within 10 s')), 10_000);
    let seen = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('ACCEPT')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`openssl s_server exited (${code})`)));
  });
  return { url: `https://127.0.0.1:${port}/v1`, requests: [] };
}

/** The reference implementation behind node:https with these TLS options. */
async function httpsReference(options: ServerOptions): Promise<HttpsTarget> {
  const handler = await createReferenceHandler({});
  const requests: HttpsTarget['requests'] = [];
  const sockets = new Set<Socket>();
  // Connections stay open for the whole run: a connection the server closes as idle (Node's 5 s)
  // while the client, its event loop held up by a busy machine, sends a create on it, loses that
  // create (UND_ERR_SOCKET), which is not what these tests are about.
  const server = createServer({ keepAliveTimeout: 60_000, ...options }, (req, res) => {
    const socket = req.socket as TLSSocket;
    const peer = socket.authorized ? socket.getPeerCertificate() : undefined;
    requests.push({
      remotePort: socket.remotePort,
      ...(peer?.subject ? { clientCn: String(peer.subject.CN) } : {}),
    });
    handler(req, res);
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return { url: `https://127.0.0.1:${(server.address() as { port: number }).port}/v1`, requests };
}

beforeAll(async () => {
  await build();
  certs = makeCertificates(mkdtempSync(path.join(work, 'certs-')));
  const f = certs.files;
  const pem = (file: string) => readFileSync(file, 'utf8');
  const signed = { cert: pem(f.serverCert), key: pem(f.serverKey) };
  targets.selfSigned = await httpsReference({ cert: pem(f.selfSignedCert), key: pem(f.selfSignedKey) });
  targets.insecure = await httpsReference({ cert: pem(f.selfSignedCert), key: pem(f.selfSignedKey) });
  targets.opensslMutual = await opensslServer();
  targets.signed = await httpsReference(signed);
  targets.wrongName = await httpsReference({ cert: pem(f.wrongNameCert), key: pem(f.wrongNameKey) });
  targets.mutual = await httpsReference({
    ...signed,
    requestCert: true,
    rejectUnauthorized: true,
    ca: pem(f.caCert),
  });
  targets.proxied = await httpsReference(signed);
  proxy = await forwardProxy();
  closers.push(() => proxy.close());

  // In this process, but for NODE_EXTRA_CA_CERTS, which Node reads as a process starts: a child of its own.
  const cli = async (name: string, target: string, args: string[], env: Record<string, string> = {}) => {
    const run = env.NODE_EXTRA_CA_CERTS === undefined ? runInProcess : runCli;
    runs[name] = await run(['--base-url', targets[target]!.url, '--report-dir', dir(name), ...args], {
      env,
      timeoutMs: 120_000,
    });
  };
  // Sixteen connections at once, not the default 128: these runs are about trust, and their HTTPS
  // servers share this test's thread, where 2 runs × 128 handshakes (client certificates checked)
  // on a busy machine once kept a request unanswered past its 10 s timeout.
  const full = ['--only', 'LIST', '--concurrency', '16'];
  // The runs that stop at the preflight, then the full ones two at a time.
  await Promise.all([
    cli('selfSigned', 'selfSigned', ['--api-key', KEY]),
    cli('untrustedCa', 'signed', []),
    cli('wrongName', 'wrongName', ['--ca-cert', f.caCert]),
    cli('noClientCert', 'mutual', ['--ca-cert', f.caCert]),
    cli('strangerCert', 'opensslMutual', [
      '--ca-cert',
      f.caCert,
      '--client-cert',
      f.strangerCert,
      '--client-key',
      f.strangerKey,
    ]),
  ]);
  await Promise.all([
    cli('caCert', 'signed', [...full, '--ca-cert', f.caCert]),
    cli('extraCaCerts', 'signed', full, { NODE_EXTRA_CA_CERTS: f.caCert }),
  ]);
  await Promise.all([
    cli('insecure', 'insecure', [...full, '--insecure']),
    cli('mutual', 'mutual', [
      ...full,
      '--ca-cert',
      f.caCert,
      '--client-cert',
      f.clientCert,
      '--client-key',
      f.clientKey,
    ]),
  ]);
  await cli('proxied', 'proxied', [...full, '--ca-cert', f.caCert], { HTTPS_PROXY: proxy.url });
}, 300_000);

afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  rmSync(work, { recursive: true, force: true });
});

const output = (r: CliResult | undefined) =>
  `exit ${r?.code}\n--- stdout\n${r?.stdout}\n--- stderr\n${r?.stderr}`;
const summaryOf = (name: string): Json => readJson(path.join(dir(name), 'summary.json'));

/** Exit 2 with one could-not-judge line, the same reason in summary.json. */
function expectCannotJudge(name: string, reason: RegExp): string {
  const r = runs[name];
  expect(r?.code, output(r)).toBe(2);
  const lines = r!.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^petstore-conformance: could not judge: /);
  expect(lines[0]).toMatch(reason);
  expect(summaryOf(name).error).toMatch(reason);
  return lines[0]!;
}

describe('a certificate the runner cannot trust: could not judge (exit 2), with the fix', () => {
  test('self-signed', () => {
    const line = expectCannotJudge(
      'selfSigned',
      /the certificate of 127\.0\.0\.1:\d+ is not trusted: it is self-signed/,
    );
    for (const fix of ['--ca-cert', 'NODE_EXTRA_CA_CERTS', '--insecure']) expect(line).toContain(fix);
    expect(`${runs.selfSigned?.stdout}${runs.selfSigned?.stderr}`).not.toContain(KEY);
    expect(targets.selfSigned!.requests).toEqual([]);
  });

  test('issued by a CA the runner does not know', () => {
    const line = expectCannotJudge(
      'untrustedCa',
      /is not trusted: it is issued by a CA this machine does not trust/,
    );
    expect(line).toContain('--ca-cert');
  });

  test('valid for another host name', () => {
    const line = expectCannotJudge('wrongName', /is not valid for the name 127\.0\.0\.1/);
    expect(line).toContain('--insecure');
  });

  test('a server that wants a client certificate, and gets none', () => {
    const line = expectCannotJudge(
      'noClientCert',
      /127\.0\.0\.1:\d+ asks for a client certificate \(mutual TLS\)/,
    );
    expect(line).toContain('--client-cert');
  });

  test('a server that refuses the client certificate it gets, with a TLS alert', () => {
    expectCannotJudge('strangerCert', /refused the client certificate given with --client-cert/);
  });
});

describe('trusting the target', () => {
  test('--ca-cert trusts the CA that signed it', () => {
    expect(runs.caCert?.code, output(runs.caCert)).toBe(0);
    expect(summaryOf('caCert').options).toMatchObject({ caCert: true, insecure: false, clientCert: false });
    expect(runs.caCert?.stdout).toContain('network: also trusting the CA of');
  });

  test('NODE_EXTRA_CA_CERTS does the same, read by Node', () => {
    expect(runs.extraCaCerts?.code, output(runs.extraCaCerts)).toBe(0);
    expect(summaryOf('extraCaCerts').options).toMatchObject({ caCert: false });
  });

  test('--insecure runs against a self-signed certificate, warned and recorded', () => {
    const r = runs.insecure;
    expect(r?.code, output(r)).toBe(0);
    expect(r?.stderr).toMatch(/warning: --insecure: the target's certificate is not verified/);
    expect(summaryOf('insecure').options).toMatchObject({ insecure: true });
    expect(readFileSync(path.join(dir('insecure'), 'summary.md'), 'utf8')).toContain('--insecure');
    expect(JSON.stringify(summaryOf('insecure'))).not.toMatch(/BEGIN|PRIVATE/);
  });

  test('--client-cert and --client-key: mutual TLS, every request made with the certificate', () => {
    const r = runs.mutual;
    expect(r?.code, output(r)).toBe(0);
    const requests = targets.mutual!.requests;
    expect(requests.length).toBeGreaterThan(5);
    expect(requests.every((q) => q.clientCn === 'qa-runner')).toBe(true);
    expect(summaryOf('mutual').options).toMatchObject({ clientCert: true, caCert: true });
    for (const file of ['summary.json', 'summary.md', 'junit.xml']) {
      expect(readFileSync(path.join(dir('mutual'), file), 'utf8')).not.toContain('PRIVATE KEY');
    }
  });

  test('through HTTPS_PROXY (upper case): TLS to the target inside the tunnel, every request through it', () => {
    const r = runs.proxied;
    expect(r?.code, output(r)).toBe(0);
    const requests = targets.proxied!.requests;
    expect(requests.length).toBeGreaterThan(5);
    expect(requests.filter((q) => !proxy.opened(q.remotePort))).toEqual([]);
    expect(proxy.connects).toContain(new URL(targets.proxied!.url).host);
  });
});

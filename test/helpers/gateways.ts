/**
 * Real gateways in front of a server, as staging has them, from Debian's packages: nginx and haproxy,
 * each started in the foreground with a configuration of its own in a temporary folder, listening on
 * 127.0.0.1 and a free port, and stopped by its pid. `.ci/run` installs both; without one, the tests
 * that need it skip saying so (and fail under CI=true).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const NGINX = process.env.NGINX_PATH || '/usr/sbin/nginx';
export const HAPROXY = process.env.HAPROXY_PATH || '/usr/sbin/haproxy';

/** Whether a gateway's binary runs here. */
export function gatewayFound(binary: string): boolean {
  return spawnSync(binary, ['-v'], { encoding: 'utf8' }).status === 0;
}

export interface Gateway {
  /** The base URL through the gateway: …/v1. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * nginx in front of `upstream` (a base URL …/v1): `http` is what goes in its http {} block around the
 * server (limit zones), `location` what goes in the location that proxies every request.
 */
export async function startNginx(upstream: string, http: string, location: string): Promise<Gateway> {
  const dir = mkdtempSync(path.join(tmpdir(), 'petstore-nginx-'));
  // Started as root, nginx runs its worker as nobody, which writes a large body to a temp path here.
  chmodSync(dir, 0o755);
  const port = await freePort();
  const target = new URL(upstream);
  const conf = [
    'worker_processes 1;',
    'daemon off;',
    `pid ${dir}/nginx.pid;`,
    `error_log ${dir}/error.log warn;`,
    'events { worker_connections 1024; }',
    'http {',
    '  access_log off;',
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${dir}/${t};`),
    `  ${http}`,
    `  upstream reference { server ${target.host}; keepalive 32; }`,
    '  server {',
    `    listen 127.0.0.1:${port};`,
    // The reference answers a body over its limit itself (413, JSON): nginx lets 8 MiB through.
    '    client_max_body_size 8m;',
    '    location / {',
    `      ${location}`,
    '      proxy_pass http://reference;',
    '      proxy_http_version 1.1;',
    '      proxy_set_header Connection "";',
    '    }',
    '  }',
    '}',
  ].join('\n');
  writeFileSync(path.join(dir, 'nginx.conf'), conf);
  const child = spawn(NGINX, ['-c', path.join(dir, 'nginx.conf'), '-p', dir], { stdio: 'ignore' });
  return started(child, port, target.pathname, dir);
}

/**
 * haproxy in front of `upstream`: `frontend` lines go in its frontend (a stick-table and its rule),
 * `server` is appended to the backend's server line (maxconn 4).
 */
export async function startHaproxy(upstream: string, frontend: string[], server = ''): Promise<Gateway> {
  const dir = mkdtempSync(path.join(tmpdir(), 'petstore-haproxy-'));
  const port = await freePort();
  const target = new URL(upstream);
  const cfg = [
    'global',
    '  maxconn 4096',
    'defaults',
    '  mode http',
    '  timeout connect 5s',
    '  timeout client 30s',
    '  timeout server 30s',
    '  timeout queue 30s',
    'frontend pets',
    `  bind 127.0.0.1:${port}`,
    ...frontend.map((l) => `  ${l}`),
    '  default_backend reference',
    'backend reference',
    `  server reference ${target.host} ${server}`,
  ].join('\n');
  writeFileSync(path.join(dir, 'haproxy.cfg'), `${cfg}\n`);
  const child = spawn(HAPROXY, ['-db', '-f', path.join(dir, 'haproxy.cfg')], { stdio: 'ignore' });
  return started(child, port, target.pathname, dir);
}

/** Resolves once the gateway accepts connections on `port` (within 10 s). */
async function started(child: ChildProcess, port: number, basePath: string, dir: string): Promise<Gateway> {
  const close = () => stop(child).then(() => rmSync(dir, { recursive: true, force: true }));
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await close();
      throw new Error(`the gateway did not listen on 127.0.0.1:${port} (exit ${child.exitCode})`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url: `http://127.0.0.1:${port}${basePath}`, close };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.connect(port, '127.0.0.1');
  });
}

/** A port nothing listens on now (a listener on port 0, closed). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Ends the gateway by its pid (SIGTERM: nginx's master and haproxy stop their workers), and waits. */
function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    if (child.pid !== undefined) process.kill(child.pid, 'SIGTERM');
  });
}

/**
 * reference-impl/main.ts as a process: compiled with the project's build settings (tsconfig.build.json)
 * into a folder of its own under node_modules/.cache, so that the files other people have in progress
 * elsewhere in the project, and their builds of dist/, cannot break or race this one; with
 * spec/openapi.yaml beside it, where the reference reads it in the sources.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, test } from 'vitest';
import { packageRoot } from '../../catalog/paths.ts';
import { MAX_BODY_BYTES } from '../../reference-impl/limits.ts';
import { call, createPet, delay, petOfSize, rawConnect, readUntilClosed, statusOf } from './helpers.ts';

const ROOT = packageRoot();
const OUT = path.join(ROOT, 'node_modules', '.cache', 'reference-impl-test');
const MAIN = path.join(OUT, 'reference-impl', 'main.js');

beforeAll(async () => {
  mkdirSync(OUT, { recursive: true });
  cpSync(path.join(ROOT, 'spec', 'openapi.yaml'), path.join(OUT, 'spec', 'openapi.yaml'));
  writeFileSync(
    path.join(OUT, 'tsconfig.json'),
    JSON.stringify({
      extends: path.join(ROOT, 'tsconfig.build.json'),
      compilerOptions: { outDir: OUT, rootDir: ROOT, incremental: false, sourceMap: false },
      include: [path.join(ROOT, 'reference-impl')], // the reference needs no code of spec/, only its files
    }),
  );
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  await promisify(execFile)(process.execPath, [tsc, '-p', path.join(OUT, 'tsconfig.json')], {
    timeout: 60_000,
  });
}, 90_000);

interface Launched {
  child: ChildProcess;
  /** The first line of stdout: the base URL. */
  url: Promise<string>;
  exit: Promise<number | string | null>;
  stdout: () => string;
  stderr: () => string;
}

function launch(
  args: string[],
  env: Record<string, string> = {},
  { nodeOptions = [] as string[], guardMs = 20_000 } = {},
): Launched {
  const child = spawn(process.execPath, [...nodeOptions, MAIN, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const exit = new Promise<number | string | null>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal)),
  );
  const url = new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
      if (stdout.includes('\n')) resolve(stdout.split('\n')[0] ?? '');
    });
    exit.then((code) => reject(new Error(`exited ${code} before printing its URL: ${stderr}`)));
  });
  url.catch(() => {});
  // Bounded: a process that outlives its test is stopped.
  const guard = setTimeout(() => child.kill('SIGKILL'), guardMs);
  exit.then(() => clearTimeout(guard));
  return { child, url, exit, stdout: () => stdout, stderr: () => stderr };
}

async function stopped(launched: Launched) {
  if (launched.child.exitCode === null) launched.child.kill('SIGKILL');
  await launched.exit;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

describe('node dist/reference-impl/main.js', () => {
  test('prints its base URL on stdout and serves the API there', async () => {
    const server = launch(['--port', '0']);
    try {
      const url = await server.url;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      expect(
        (await call(url, 'POST', '/pets', { body: '{"id":9223372036854775807,"name":"x"}' })).status,
      ).toBe(201);
      expect((await call(url, 'GET', '/pets')).text).toBe('[{"id":9223372036854775807,"name":"x"}]');
    } finally {
      await stopped(server);
    }
  });

  test.each(['SIGTERM', 'SIGINT'] as const)(
    '%s lets a request in flight finish, then the process exits 0',
    async (signal) => {
      const server = launch(['--port', '0']);
      try {
        const url = await server.url;
        const socket = await rawConnect(url);
        const reply = readUntilClosed(socket);
        const body = '{"id":1,"name":"last one"}';
        socket.write(
          `POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
        );
        socket.write(body.slice(0, 5));
        await delay(100);
        server.child.kill(signal);
        await delay(100);
        expect(server.child.exitCode).toBeNull(); // still waiting for the request in flight
        socket.write(body.slice(5));
        const raw = await reply;
        expect(statusOf(raw)).toBe(201);
        expect(raw).toContain(body);
        expect(await server.exit).toBe(0);
      } finally {
        await stopped(server);
      }
    },
  );

  test('an idle process stops at once on SIGTERM, exit 0', async () => {
    const server = launch(['--port', '0']);
    try {
      await server.url;
      const started = performance.now();
      server.child.kill('SIGTERM');
      expect(await server.exit).toBe(0);
      expect(performance.now() - started).toBeLessThan(2_000);
    } finally {
      await stopped(server);
    }
  });

  test('without --port it listens on the port in PORT', async () => {
    const port = await freePort();
    const server = launch([], { PORT: String(port) });
    try {
      expect(await server.url).toBe(`http://127.0.0.1:${port}/v1`);
    } finally {
      await stopped(server);
    }
  });

  test('--help documents the options and the default port 8080, exit 0', async () => {
    const server = launch(['--help']);
    expect(await server.exit).toBe(0);
    expect(server.stdout()).toContain('default 8080');
    for (const option of [
      '--port',
      '--host',
      '--api-key',
      '--api-key-header',
      '--api-key-query',
      '--max-pets',
      '--max-connections',
    ])
      expect(server.stdout()).toContain(option);
  });

  test.each([
    ['a port that is not a number', ['--port', 'abc'], {}, 'the port must be an integer'],
    ['a port above 65535', ['--port', '70000'], {}, 'the port must be an integer'],
    ['a negative port', ['--port=-1'], {}, 'the port must be an integer'],
    ['a PORT that is not a number', [], { PORT: 'http' }, 'the port must be an integer'],
    ['an unknown option', ['--verbose'], {}, "Unknown option '--verbose'"],
    ['a positional argument', ['serve'], {}, 'serve'],
    ['an option without its value', ['--port'], {}, '--port'],
    ['an empty API key', ['--api-key', ''], {}, '--api-key must not be empty'],
    ['a header name with a space', ['--api-key-header', 'X Key'], {}, '--api-key-header must be a header'],
    ['a --max-pets of 0', ['--max-pets', '0'], {}, '--max-pets must be a positive integer'],
    ['a --max-pets that is not a number', ['--max-pets', '1e4'], {}, '--max-pets must be a positive integer'],
    [
      'a negative --max-connections',
      ['--max-connections=-5'],
      {},
      '--max-connections must be a positive integer',
    ],
  ])('%s is refused with a message and exit 2', async (_, args, env, message) => {
    const server = launch(args as string[], env as Record<string, string>);
    expect(await server.exit).toBe(2);
    expect(server.stderr()).toContain(message);
    expect(server.stderr()).toContain('Usage:');
    expect(server.stdout()).toBe('');
  });

  test('a port in use is reported with exit 1', async () => {
    const first = launch(['--port', '0']);
    try {
      const port = new URL(await first.url).port;
      const second = launch(['--port', port]);
      expect(await second.exit).toBe(1);
      expect(second.stderr()).toContain('EADDRINUSE');
    } finally {
      await stopped(first);
    }
  });

  test('PETSTORE_API_KEY makes the key required, and the key is printed nowhere', async () => {
    const key = 'secret-from-the-environment';
    const server = launch(['--port', '0'], { PETSTORE_API_KEY: key });
    try {
      const url = await server.url;
      expect((await call(url, 'GET', '/pets')).status).toBe(401);
      expect((await call(url, 'GET', '/pets', { headers: { 'X-API-Key': key } })).status).toBe(200);
      server.child.kill('SIGTERM');
      expect(await server.exit).toBe(0);
      expect(server.stdout() + server.stderr()).not.toContain(key);
    } finally {
      await stopped(server);
    }
  });

  test('--api-key and --api-key-header require the key in that header', async () => {
    const server = launch(['--port', '0', '--api-key', 'k', '--api-key-header', 'X-Pets-Key']);
    try {
      const url = await server.url;
      expect((await call(url, 'GET', '/pets', { headers: { 'X-API-Key': 'k' } })).status).toBe(401);
      expect((await call(url, 'GET', '/pets', { headers: { 'X-Pets-Key': 'k' } })).status).toBe(200);
    } finally {
      await stopped(server);
    }
  });

  test('--api-key-query requires the key in that query parameter', async () => {
    const server = launch(['--port', '0', '--api-key', 'k', '--api-key-query', 'key']);
    try {
      const url = await server.url;
      expect((await call(url, 'GET', '/pets')).status).toBe(401);
      expect((await call(url, 'GET', '/pets?key=k')).status).toBe(200);
    } finally {
      await stopped(server);
    }
  });
});

describe('a store filled to its cap, in a process with a small heap', () => {
  const MAX_PETS = 1_000;
  // The process needs about 25 MB of heap for itself; the store at its cap, with every pet at the
  // body limit and half of them two bytes a character in memory, about 12 MB more.
  const HEAP_MB = 48;

  test('stays up and answering, with every acknowledged pet still there', async () => {
    const server = launch(
      ['--port', '0', '--max-pets', String(MAX_PETS)],
      {},
      {
        nodeOptions: [`--max-old-space-size=${HEAP_MB}`],
        guardMs: 110_000,
      },
    );
    try {
      const url = await server.url;
      /** Runs `work(i)` for i = 0…count-1, eight at a time. */
      const eightAtATime = async (count: number, work: (i: number) => Promise<void>) => {
        let next = 0;
        const worker = async () => {
          while (next < count) await work(next++);
        };
        await Promise.all(Array.from({ length: 8 }, worker));
      };

      // More creates than the cap, each pet at the body limit: the first MAX_PETS are stored, the rest 409.
      const acknowledged = new Map<number, string>();
      const refused: number[] = [];
      await eightAtATime(MAX_PETS + 200, async (i) => {
        const json = petOfSize(i + 1, MAX_BODY_BYTES, i % 2 === 0);
        const res = await createPet(url, json);
        if (res.status === 201) acknowledged.set(i + 1, json);
        else refused.push(res.status);
      });
      expect(acknowledged.size).toBe(MAX_PETS);
      expect(new Set(refused)).toEqual(new Set([409]));

      // Every page, the largest answers the server builds, twice.
      await eightAtATime(200, async (i) => {
        const res = await call(url, 'GET', `/pets?limit=${(i % 100) + 1}`);
        expect(res.status).toBe(200);
      });

      // Creates race eight at a time, so which ids filled the store varies: every acknowledged one is there.
      const ids = [...acknowledged.keys()];
      await eightAtATime(ids.length, async (i) => {
        const id = ids[i]!;
        const res = await call(url, 'GET', `/pets/${id}`);
        expect(res.status).toBe(200);
        expect(res.text).toBe(acknowledged.get(id));
      });
      expect(server.child.exitCode).toBeNull();
      expect(server.stderr()).toBe('');
      server.child.kill('SIGTERM');
      expect(await server.exit).toBe(0);
    } finally {
      await stopped(server);
    }
  }, 120_000);
});

/**
 * Helpers of the reference implementation's own tests: a small HTTP client over undici, and a raw
 * socket for what undici would not send. The server they talk to: test/helpers/servers.ts
 * (startServer, serverForBlock).
 */
import { connect, type Socket } from 'node:net';
import { isLosslessNumber, parse } from 'lossless-json';
import { request } from 'undici';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body read by lossless-json: numbers are LosslessNumbers, digit for digit. */
  json(): unknown;
}

export interface CallInit {
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/** One request to `base + path`, with a 10 s bound; JSON bodies get application/json unless told otherwise. */
export async function call(base: string, method: string, path: string, init: CallInit = {}): Promise<Reply> {
  const headers = { ...init.headers };
  if (init.body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
    headers['content-type'] = 'application/json';
  const res = await request(base + path, {
    method: method as 'GET',
    headers,
    body: init.body,
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text, json: () => parse(text) };
}

/** POST /pets with a raw JSON text (so that numbers keep every digit). */
export const createPet = (base: string, json: string, headers?: Record<string, string>) =>
  call(base, 'POST', '/pets', { body: json, ...(headers ? { headers } : {}) });

/** The ids of a JSON array of pets, as digit strings. */
export function idsOf(reply: Reply): string[] {
  return (reply.json() as { id: unknown }[]).map((pet) => idText(pet.id));
}

export function idText(id: unknown): string {
  return isLosslessNumber(id) ? id.toString() : String(id);
}

/** The port of a base URL such as http://127.0.0.1:4321/v1. */
export const portOf = (base: string) => Number(new URL(base).port);

/** A raw TCP connection to the server, for requests a client library would not send. */
export function rawConnect(base: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(portOf(base), '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/**
 * Everything the server sends on `socket` until it closes the connection, or `untilText` appears;
 * rejects after `timeoutMs`.
 */
export function readUntilClosed(socket: Socket, timeoutMs = 5_000, untilText?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no close within ${timeoutMs} ms; received: ${data.slice(0, 300)}`));
    }, timeoutMs);
    socket.on('data', (chunk) => {
      data += chunk.toString('latin1');
      if (untilText !== undefined && data.includes(untilText)) {
        clearTimeout(timer);
        resolve(data);
      }
    });
    socket.on('error', () => {}); // a reset after the response is fine here; the test reads `data`
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(data);
    });
  });
}

/** The status code of a raw HTTP/1.1 response text. */
export const statusOf = (raw: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1]);

export const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The JSON text of a pet that takes exactly `bytes` bytes; `wide` puts a two-byte UTF-8 character in its name. */
export function petOfSize(id: number, bytes: number, wide = false): string {
  const bare = Buffer.byteLength(`{"id":${id},"name":"${wide ? 'Ā' : ''}"}`);
  return `{"id":${id},"name":"${'x'.repeat(bytes - bare)}${wide ? 'Ā' : ''}"}`;
}

/**
 * A server for the benchmarks, in a process of its own so that the load generator and the server do
 * not share a core. Forked by bench/main.ts:
 *   reference <pets>   the reference implementation with <pets> pets stored
 *   bare               node:http answering fixed bytes (sent by the parent), without any logic
 *   counting           the reference, counting the requests it serves
 * It sends { url } once listening and answers { type: 'stats' } with { rss, requests }.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { PetStore, startReferenceServer } from '../reference-impl/index.ts';

export interface Canned {
  status: number;
  headers: Record<string, string>;
  body: string;
}
export type ParentMessage =
  | { type: 'stats' }
  | { type: 'canned'; list: Canned; show: Canned; create: Canned };
export type ChildMessage =
  | { type: 'listening'; url: string }
  | { type: 'stats'; rss: number; requests: number };

const send = (message: ChildMessage) => process.send?.(message);
const [kind = 'reference', petsArg = '0'] = process.argv.slice(2);
let requests = 0;

async function startReference(pets: number) {
  const store = new PetStore({ maxPets: Math.max(pets, 10_000) });
  for (let i = 1; i <= pets; i++) store.add({ id: BigInt(i), name: `pet ${i}`, tag: 'bench' });
  // Measure the steady state: the garbage of filling is collected before any request is served.
  globalThis.gc?.();
  const server = await startReferenceServer({
    port: 0,
    store,
    wrap: (handler) => (req, res) => {
      requests++;
      handler(req, res);
    },
  });
  return server.url;
}

function startBare(canned: Extract<ParentMessage, { type: 'canned' }>): Promise<string> {
  const reply = (res: ServerResponse, c: Canned) => {
    res.writeHead(c.status, c.headers);
    res.end(c.body);
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    requests++;
    if (req.method === 'POST') {
      req.resume();
      req.on('end', () => reply(res, canned.create));
    } else reply(res, req.url?.startsWith('/v1/pets/') ? canned.show : canned.list);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/v1`);
    }),
  );
}

process.on('message', async (message: ParentMessage) => {
  if (message.type === 'stats') {
    globalThis.gc?.();
    send({ type: 'stats', rss: process.memoryUsage().rss, requests });
  }
  if (message.type === 'canned' && kind === 'bare')
    send({ type: 'listening', url: await startBare(message) });
});
process.on('disconnect', () => process.exit(0));

if (kind !== 'bare') send({ type: 'listening', url: await startReference(Number(petsArg)) });

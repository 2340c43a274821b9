/**
 * A server for the benchmarks, in a process of its own so that the load generator and the server do
 * not share a core. Forked by bench/main.ts:
 *   reference <pets>   the reference implementation with <pets> pets stored
 *   bare               node:http answering fixed bytes (sent by the parent), without any logic
 *   counting           the reference, counting the requests it serves
 *   full               the reference with its store filled to the default cap, every pet at the body limit
 * It sends { url } once listening and answers { type: 'stats' } with its memory, the requests it
 * served and the event loop's delays since the last { type: 'loop-reset' }.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { DEFAULT_MAX_PETS, MAX_BODY_BYTES, PetStore, startReferenceServer } from '../reference-impl/index.ts';

export interface Canned {
  status: number;
  headers: Record<string, string>;
  body: string;
}
export type ParentMessage =
  | { type: 'stats' }
  | { type: 'loop-reset' }
  | { type: 'canned'; list: Canned; show: Canned; create: Canned };
export type ChildMessage =
  | { type: 'listening'; url: string }
  | {
      type: 'stats';
      rss: number;
      heapUsed: number;
      requests: number;
      /** The longest and the 99th percentile delay of the event loop, in ms (1 ms resolution). */
      loopMaxMs: number;
      loopP99Ms: number;
    };

const send = (message: ChildMessage) => process.send?.(message);
const [kind = 'reference', petsArg = '0'] = process.argv.slice(2);
let requests = 0;
const loop = monitorEventLoopDelay({ resolution: 1 });
loop.enable();

/** A pet whose JSON takes exactly MAX_BODY_BYTES; `wide` ones hold a two-byte character, so that V8 keeps their text at two bytes a character. */
function petAtCap(id: number, wide: boolean) {
  const bare = Buffer.byteLength(`{"id":${id},"name":"${wide ? 'Ā' : ''}"}`);
  return { id, name: `${'x'.repeat(MAX_BODY_BYTES - bare)}${wide ? 'Ā' : ''}` };
}

async function startReference(pets: number, full: boolean) {
  const store = new PetStore({ maxPets: full ? DEFAULT_MAX_PETS : Math.max(pets, DEFAULT_MAX_PETS) });
  if (full) {
    for (let i = 1; i <= DEFAULT_MAX_PETS; i++) {
      const added = store.add(petAtCap(i, i % 2 === 0));
      if (added !== 'added') throw new Error(`bench: pet ${i} not added (${added})`);
    }
  } else for (let i = 1; i <= pets; i++) store.add({ id: BigInt(i), name: `pet ${i}`, tag: 'bench' });
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
    // the loop's figures first: the collection below would count as a delay of its own
    const loopMaxMs = loop.max / 1e6;
    const loopP99Ms = loop.percentile(99) / 1e6;
    globalThis.gc?.();
    const { rss, heapUsed } = process.memoryUsage();
    send({ type: 'stats', rss, heapUsed, requests, loopMaxMs, loopP99Ms });
  }
  if (message.type === 'loop-reset') loop.reset();
  if (message.type === 'canned' && kind === 'bare')
    send({ type: 'listening', url: await startBare(message) });
});
process.on('disconnect', () => process.exit(0));

if (kind !== 'bare') send({ type: 'listening', url: await startReference(Number(petsArg), kind === 'full') });

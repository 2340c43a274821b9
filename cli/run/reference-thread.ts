/**
 * The bundled reference implementation on a thread of its own, started by cli/run/dependencies.ts: it
 * loads and compiles its validators on the second core while the main thread loads vitest, and
 * answers the run's requests beside the main thread's reporters rather than between them.
 *
 * workerData: the StartOptions (plain data). Messages out: { type: 'listening', url, port } or
 * { type: 'failed', message }; in: { type: 'close' }, answered { type: 'closed' } once every
 * connection is closed.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type StartOptions, startReferenceServer } from '../../reference-impl/index.ts';

export type FromReference =
  | { readonly type: 'listening'; readonly url: string; readonly port: number }
  | { readonly type: 'failed'; readonly message: string }
  | { readonly type: 'closed' };
export type ToReference = { readonly type: 'close' };

const port = parentPort;
if (port) {
  const send = (message: FromReference) => port.postMessage(message);
  try {
    const server = await startReferenceServer(workerData as StartOptions);
    port.on('message', (message: ToReference) => {
      if (message.type === 'close') void server.close().then(() => send({ type: 'closed' }));
    });
    send({ type: 'listening', url: server.url, port: server.port });
  } catch (error) {
    send({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  }
}

/**
 * A forward proxy on 127.0.0.1 that adds latency, as a deployment across an ocean would: every chunk
 * a client sends reaches the target `delayMs` later (so each request, and each connection's set-up,
 * takes `delayMs` more), in order; answers come back at once. It speaks CONNECT, which is how
 * undici's proxy agent reaches http:// and https:// targets alike. Used by the suite benchmark with
 * the CLI's --proxy.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';

export interface LatencyProxy {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  /** Tunnels opened (one per connection the client made). */
  readonly tunnels: number;
  close(): Promise<void>;
}

export async function latencyProxy(delayMs: number): Promise<LatencyProxy> {
  const sockets = new Set<Socket>();
  let tunnels = 0;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  };
  const server = createServer((_req, res) => {
    res.writeHead(405, { 'content-type': 'text/plain' }).end('this proxy only tunnels (CONNECT)\n');
  });
  server.on('connection', track);
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    tunnels++;
    const authority = req.url ?? '';
    const at = authority.lastIndexOf(':');
    const upstream = connect(
      Number(authority.slice(at + 1)),
      authority.slice(0, at).replace(/^\[(.*)\]$/, '$1'),
    );
    track(upstream);
    // Each chunk goes upstream delayMs after it came; the set-up of the tunnel takes delayMs too.
    const later = (chunk: Buffer) => setTimeout(() => upstream.write(chunk), delayMs);
    upstream.once('connect', () => {
      setTimeout(() => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) later(head);
        client.on('data', later);
        upstream.pipe(client);
      }, delayMs);
    });
    upstream.on('error', () => {
      if (client.writable) client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
    });
    client.on('end', () => setTimeout(() => upstream.end(), delayMs));
    client.on('close', () => setTimeout(() => upstream.destroy(), delayMs));
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    get tunnels() {
      return tunnels;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

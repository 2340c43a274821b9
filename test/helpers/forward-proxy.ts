/**
 * A forward proxy for the tests, on 127.0.0.1: CONNECT tunnels (what undici's ProxyAgent uses, for
 * http:// and https:// targets) and absolute-form requests. It remembers the local port of every
 * connection it opens to a target, so that a target server can tell, request by request, whether a
 * request came through the proxy (its remote port is one of them) or straight from the client.
 */
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';

export interface ForwardProxy {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  /** CONNECT requests received, by target (host:port). */
  readonly connects: string[];
  /** Absolute-form requests forwarded. */
  readonly forwarded: string[];
  /** Proxy-Authorization headers received (CONNECT and forwarded), as sent. */
  readonly authorizations: string[];
  /** Whether a connection with this remote port (as a target sees it) was opened by the proxy. */
  opened(remotePort: number | undefined): boolean;
  close(): Promise<void>;
}

export interface ProxyOptions {
  /** Answer every CONNECT with this status instead of connecting (e.g. 502, 407). */
  readonly refuseWith?: number;
}

export async function forwardProxy(options: ProxyOptions = {}): Promise<ForwardProxy> {
  const ports = new Set<number>();
  const connects: string[] = [];
  const forwarded: string[] = [];
  const authorizations: string[] = [];
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  };
  const noteAuthorization = (req: IncomingMessage) => {
    const value = req.headers['proxy-authorization'];
    if (value !== undefined) authorizations.push(String(value));
  };

  const server = createServer((req, res) => {
    noteAuthorization(req);
    forwarded.push(`${req.method} ${req.url}`);
    const target = new URL(req.url ?? '');
    const { 'proxy-authorization': _auth, 'proxy-connection': _pc, ...headers } = req.headers;
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: `${target.pathname}${target.search}`,
        headers,
        agent: false,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('socket', (socket) => {
      track(socket);
      socket.on('connect', () => {
        if (socket.localPort !== undefined) ports.add(socket.localPort);
      });
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    req.pipe(upstream);
  });
  server.on('connection', track);
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    noteAuthorization(req);
    connects.push(req.url ?? '');
    if (options.refuseWith !== undefined) {
      client.end(`HTTP/1.1 ${options.refuseWith} Refused\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    const [host, port] = splitHostPort(req.url ?? '');
    const upstream = connect(Number(port), host, () => {
      if (upstream.localPort !== undefined) ports.add(upstream.localPort);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    track(upstream);
    upstream.on('error', () => {
      if (client.writable) client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    connects,
    forwarded,
    authorizations,
    opened: (remotePort) => remotePort !== undefined && ports.has(remotePort),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function splitHostPort(authority: string): [string, string] {
  const at = authority.lastIndexOf(':');
  return [authority.slice(0, at).replace(/^\[(.*)\]$/, '$1'), authority.slice(at + 1)];
}

/** Remote ports of the requests a server received: wrap a node:http handler with `record`. */
export function requestLog() {
  const remotePorts: (number | undefined)[] = [];
  return {
    remotePorts,
    record:
      <Req extends IncomingMessage, Res>(handler: (req: Req, res: Res) => void) =>
      (req: Req, res: Res) => {
        remotePorts.push(req.socket.remotePort);
        handler(req, res);
      },
  };
}

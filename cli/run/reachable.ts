/**
 * Whether a deployment answers at all, before any test runs (part of the target stage): a target
 * the run cannot connect to means the run cannot judge (exit 2).
 */
import diagnostics from 'node:diagnostics_channel';
import type { Network } from '../../suites/harness/config/config.ts';
import { connectionFailure, createDispatcher } from '../../suites/harness/http/network.ts';
import { CannotJudgeError } from '../record/errors.ts';

/**
 * Whether the target answers at all, asked the way the suites will ask: one GET of the base URL
 * through the same dispatcher (proxy, TLS settings), without the API key. A DNS failure, a refused
 * connection, a proxy that cannot connect, no connection within the limit: there is nothing to
 * judge (exit 2). So is a TLS failure: a certificate this machine does not trust, one that does not
 * name the host, a client certificate the server wants and does not get: the runner's trust, not the
 * service, is at fault, and the message says how to fix it. A target that accepts the connection and
 * then misbehaves (any status, a reset, garbage, silence) is a failing server: that is for the suite
 * to find.
 */
export async function checkReachable(baseUrl: string, timeoutMs: number, network?: Network): Promise<void> {
  const url = new URL(baseUrl);
  const dispatcher = createDispatcher(network, { connections: 1, connectTimeoutMs: timeoutMs });
  // A TLS alert that comes after the handshake (TLS 1.3's "certificate required") reaches undici
  // as "other side closed": the socket's own error says what happened.
  const socketErrors: unknown[] = [];
  // The channel is the process's: only this target's connections are listened to (runs in one
  // process, as the tests have them, each ask their own).
  const onConnected = (message: unknown) => {
    const { socket, connectParams } = message as {
      socket: NodeJS.EventEmitter;
      connectParams?: { host?: string; protocol?: string };
    };
    const ours = connectParams?.host === url.host && connectParams.protocol === url.protocol;
    if (!ours && network?.proxy === undefined) return;
    socket.on('error', (error: unknown) => socketErrors.push(error));
  };
  diagnostics.subscribe('undici:client:connected', onConnected);
  // Silence after the connection is made ends the check (headersTimeout: reachable); the timer is
  // the limit for making the connection at all (a proxy that never answers CONNECT).
  const timer = AbortSignal.timeout(timeoutMs + 2_000);
  // Loaded here, not with the command: a run against the bundled reference does not need it.
  const { request } = await import('undici');
  try {
    const res = await request(url, {
      method: 'GET',
      dispatcher,
      signal: timer,
      headersTimeout: Math.min(timeoutMs, 5_000),
      bodyTimeout: timeoutMs,
    });
    res.body.on('error', () => undefined).destroy();
  } catch (error) {
    if (timer.aborted) {
      const through = network?.proxy ? ' (through the proxy)' : '';
      throw new CannotJudgeError(
        `target unreachable: ${url.host} did not accept a connection within ${timeoutMs} ms${through}`,
      );
    }
    for (const cause of [...socketErrors, error]) {
      const failure = connectionFailure(cause, url, network);
      if (failure !== undefined) throw new CannotJudgeError(failure.message);
    }
  } finally {
    diagnostics.unsubscribe('undici:client:connected', onConnected);
    await dispatcher.destroy().catch(() => undefined);
  }
}

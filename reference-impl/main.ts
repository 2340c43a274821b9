/**
 * `npm run reference`: the reference server as a process. Prints its base URL (one line on stdout)
 * once listening; SIGTERM or SIGINT stops it after the requests in flight are answered (exit 0; a
 * second signal stops it at once, exit 1). Bad arguments: a message on stderr, exit 2.
 */
import { parseArgs } from 'node:util';
import { DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_PETS } from './limits.ts';
import { startReferenceServer } from './server.ts';

const DEFAULT_PORT = 8080;
const USAGE = `Usage: npm run reference -- [options]   (or: node dist/reference-impl/main.js [options])

  --port <n>              port to listen on, 0 for a free one (env PORT; default ${DEFAULT_PORT})
  --host <address>        address to listen on (default 127.0.0.1)
  --api-key <key>         require this API key on every request (env PETSTORE_API_KEY)
  --api-key-header <name> the header that carries the key (default X-API-Key)
  --api-key-query <name>  carry the key in this query parameter instead of a header
  --max-pets <n>          the most pets the store keeps; then creates get 409 (default ${DEFAULT_MAX_PETS})
  --max-connections <n>   the most connections served at once; then 503 (default ${DEFAULT_MAX_CONNECTIONS})
  -h, --help              print this help
`;

/** An HTTP field name or query parameter name: an RFC 9110 token. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function usageError(message: string): never {
  process.stderr.write(`reference-impl: ${message}\n\n${USAGE}`);
  process.exit(2);
}

function readOptions() {
  let values: ReturnType<typeof parse>['values'];
  try {
    values = parse().values;
  } catch (error) {
    usageError((error as Error).message);
  }
  if (values.help) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  const portText = values.port ?? process.env.PORT ?? String(DEFAULT_PORT);
  const port = Number(portText);
  if (!/^[0-9]+$/.test(portText) || port > 65535)
    usageError(`the port must be an integer from 0 to 65535, not ${JSON.stringify(portText)}`);
  if (values['api-key'] === '') usageError('--api-key must not be empty');
  for (const name of ['api-key-header', 'api-key-query'] as const) {
    const value = values[name];
    if (value !== undefined && !TOKEN.test(value))
      usageError(`--${name} must be a header or parameter name, not ${JSON.stringify(value)}`);
  }
  if (values.host === '') usageError('--host must not be empty');
  const maxPets = positiveInteger('--max-pets', values['max-pets']);
  const maxConnections = positiveInteger('--max-connections', values['max-connections']);
  return {
    port,
    host: values.host ?? '127.0.0.1',
    // An empty PETSTORE_API_KEY counts as unset.
    apiKey: values['api-key'] ?? (process.env.PETSTORE_API_KEY || undefined),
    apiKeyHeader: values['api-key-header'],
    apiKeyQuery: values['api-key-query'],
    ...(maxPets === undefined ? {} : { maxPets }),
    ...(maxConnections === undefined ? {} : { maxConnections }),
  };
}

function positiveInteger(option: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(value) || value < 1)
    usageError(`${option} must be a positive integer, not ${JSON.stringify(text)}`);
  return value;
}

function parse() {
  return parseArgs({
    strict: true,
    allowPositionals: false,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'api-key': { type: 'string' },
      'api-key-header': { type: 'string' },
      'api-key-query': { type: 'string' },
      'max-pets': { type: 'string' },
      'max-connections': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

const options = readOptions();
let server: Awaited<ReturnType<typeof startReferenceServer>>;
try {
  server = await startReferenceServer(options);
} catch (error) {
  // Not the arguments' fault (a port in use, an unreadable spec/): exit 1.
  process.stderr.write(`reference-impl: cannot start: ${(error as Error).message}\n`);
  process.exit(1);
}
let stopping = false;
const stop = () => {
  if (stopping) process.exit(1);
  stopping = true;
  server.close().then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// Printed last: whoever waits for this line may signal the process at once.
process.stdout.write(`${server.url}\n`);

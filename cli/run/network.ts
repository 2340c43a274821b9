/**
 * The network options at the edge: --proxy and HTTP_PROXY/HTTPS_PROXY/NO_PROXY (either case), and
 * --ca-cert, --insecure, --client-cert/--client-key with NODE_EXTRA_CA_CERTS, resolved into the plain
 * Config.network the suites and the reachability check build their dispatcher from
 * (suites/harness/http/network.ts). Files are read and checked here, so that a wrong path or a key that
 * does not match its certificate is a usage error (exit 2) before anything runs.
 */
import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Network, ProxySettings, TlsSettings } from '../../suites/harness/config/config.ts';
import { fileErrorReason } from '../record/errors.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** The network flags as parseArgs gives them. */
export interface NetworkFlags {
  readonly proxy?: string | undefined;
  readonly 'ca-cert'?: string | undefined;
  readonly insecure?: boolean | undefined;
  readonly 'client-cert'?: string | undefined;
  readonly 'client-key'?: string | undefined;
}

/** A bad network option: the caller turns it into its UsageError. */
export class NetworkOptionError extends Error {
  override name = 'NetworkOptionError';
}

export interface ResolvedNetwork {
  readonly network?: Network;
  /** What the start of the run prints about the network; undefined when there is nothing to say. */
  readonly summary?: string;
  readonly warnings: readonly string[];
}

/**
 * The network of a run against `targetUrl` (undefined: the bundled reference, reached on loopback
 * without proxy or TLS: the environment's proxies are ignored for it, and network flags are warned
 * about and dropped).
 */
export function resolveNetwork(
  flags: NetworkFlags,
  env: Env,
  cwd: string,
  targetUrl: string | undefined,
  /** Where flags.proxy came from, when not --proxy (a config file: "proxy in petstore-conformance.config.yaml"). */
  proxyFrom = '--proxy',
): ResolvedNetwork {
  const warnings: string[] = [];
  const given = (['proxy', 'ca-cert', 'insecure', 'client-cert', 'client-key'] as const).filter(
    (name) => flags[name] !== undefined && flags[name] !== false,
  );
  if (targetUrl === undefined) {
    if (given.length > 0) {
      warnings.push(
        `${given.map((name) => `--${name}`).join(', ')}: no effect on the bundled reference implementation, which is reached on this machine over plain HTTP`,
      );
    }
    return { warnings };
  }
  const proxy = resolveProxy(flags.proxy, env, new URL(targetUrl).protocol, proxyFrom);
  const tls = readTls(flags, env, cwd);
  const https =
    targetUrl.startsWith('https:') || [proxy?.http, proxy?.https].some((p) => p?.startsWith('https:'));
  if (tls && !https && (tls.ca !== undefined || tls.cert !== undefined || tls.insecure)) {
    warnings.push(
      `${given
        .filter((n) => n !== 'proxy')
        .map((n) => `--${n}`)
        .join(', ')}: no effect, ${targetUrl} is reached over plain HTTP`,
    );
  }
  if (tls?.insecure && https) {
    warnings.push(
      "--insecure: the target's certificate is not verified, so anyone on the way can read and change the traffic; summary.json records it",
    );
  }
  const network: Network = { ...(proxy ? { proxy } : {}), ...(tls ? { tls } : {}) };
  const summary = describeNetwork(network, flags, new URL(targetUrl).protocol);
  return {
    ...(proxy || tls ? { network } : {}),
    ...(summary === undefined ? {} : { summary }),
    warnings,
  };
}

/**
 * --proxy, else the environment: http_proxy/HTTP_PROXY for http:// targets, https_proxy/HTTPS_PROXY
 * for https:// ones, falling back to HTTP_PROXY as undici does (lower case first, as undici and curl
 * read them), and no_proxy/NO_PROXY, which applies to --proxy too. A proxy given without a scheme
 * (proxy:3128, as such variables often are) is http://. Undefined when no proxy is set for the
 * target's scheme (`protocol`, "http:" or "https:").
 */
export function resolveProxy(
  flag: string | undefined,
  env: Env,
  protocol: string,
  flagFrom = '--proxy',
): ProxySettings | undefined {
  const read = (name: string) => {
    for (const variable of [name.toLowerCase(), name]) {
      const value = env[variable];
      if (value !== undefined && value.trim() !== '') return { variable, value: value.trim() };
    }
    return undefined;
  };
  const noProxy = read('NO_PROXY');
  if (flag !== undefined) {
    const url = proxyUrl(flag, flagFrom);
    return { http: url, https: url, noProxy: noProxy?.value ?? '', from: sources([flagFrom, noProxy]) };
  }
  const http = read('HTTP_PROXY');
  const https = read('HTTPS_PROXY');
  if (!http && !(https && protocol === 'https:')) return undefined;
  return {
    http: http ? proxyUrl(http.value, http.variable) : '',
    https: https ? proxyUrl(https.value, https.variable) : '',
    noProxy: noProxy?.value ?? '',
    from: sources([protocol === 'https:' ? (https ?? http) : http, noProxy]),
  };
}

function sources(items: readonly (string | { variable: string } | undefined)[]): string {
  return items
    .filter((i) => i !== undefined)
    .map((i) => (typeof i === 'string' ? i : i.variable))
    .join(', ');
}

function proxyUrl(raw: string, from: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new NetworkOptionError(
      `${from} is not a proxy URL: "${mask(raw)}" (expected a form like http://proxy.example.com:3128)`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new NetworkOptionError(
      `${from} must be an http:// or https:// proxy, got "${url.protocol}" (e.g. http://proxy.example.com:3128)`,
    );
  }
  return url.href;
}

/** A proxy URL as printed: without its credentials. */
function shownProxy(raw: string): string {
  const url = new URL(raw);
  const credentials = url.username || url.password ? ' (with credentials)' : '';
  return `${url.protocol}//${url.host}${credentials}`;
}

function mask(raw: string): string {
  return raw.replace(/\/\/[^/@]*@/, '//***@');
}

/** The TLS flags, their files read and checked; undefined when none is given. */
function readTls(flags: NetworkFlags, env: Env, cwd: string): TlsSettings | undefined {
  const caFile = flags['ca-cert'];
  const certFile = flags['client-cert'];
  let keyFile = flags['client-key'];
  if (caFile === undefined && certFile === undefined && keyFile === undefined && !flags.insecure)
    return undefined;

  let ca: string | undefined;
  if (caFile !== undefined) {
    ca = readPem(caFile, '--ca-cert', cwd);
    certificates(ca, '--ca-cert', caFile);
  }
  let cert: string | undefined;
  let key: string | undefined;
  if (certFile !== undefined || keyFile !== undefined) {
    if (certFile === undefined) {
      throw new NetworkOptionError(
        '--client-key needs --client-cert: the certificate that goes with the key',
      );
    }
    cert = readPem(certFile, '--client-cert', cwd);
    const [leaf] = certificates(cert, '--client-cert', certFile);
    // One file may hold both, as curl's --cert takes it.
    if (keyFile === undefined) {
      if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(cert)) {
        throw new NetworkOptionError(
          `--client-cert ${certFile} holds no private key: give the key with --client-key <pem>`,
        );
      }
      keyFile = certFile;
    }
    key = readPem(keyFile, '--client-key', cwd);
    const privateKey = parseKey(key, keyFile);
    if (!leaf!.checkPrivateKey(privateKey)) {
      throw new NetworkOptionError(
        `--client-key ${keyFile} is not the key of the certificate in --client-cert ${certFile}`,
      );
    }
  }
  // With --ca-cert the trusted list is built by the dispatcher; Node 20 cannot list what it read
  // from NODE_EXTRA_CA_CERTS, so its text goes along (a file Node could not read is skipped, as Node does).
  let extraCa: string | undefined;
  const extraFile = env.NODE_EXTRA_CA_CERTS;
  if (ca !== undefined && extraFile !== undefined && extraFile.trim() !== '') {
    try {
      extraCa = readFileSync(path.resolve(cwd, extraFile), 'utf8');
    } catch {
      extraCa = undefined;
    }
  }
  return {
    ...(ca === undefined ? {} : { ca }),
    ...(extraCa === undefined ? {} : { extraCa }),
    ...(cert === undefined ? {} : { cert }),
    ...(key === undefined ? {} : { key }),
    ...(flags.insecure ? { insecure: true } : {}),
  };
}

function readPem(file: string, flag: string, cwd: string): string {
  if (file.trim() === '') throw new NetworkOptionError(`${flag} needs a file`);
  try {
    return readFileSync(path.resolve(cwd, file), 'utf8');
  } catch (error) {
    throw new NetworkOptionError(`${flag} ${file}: cannot read it (${fileErrorReason(error)})`);
  }
}

/** Every certificate of a PEM text, parsed; at least one. */
function certificates(pem: string, flag: string, file: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) {
    throw new NetworkOptionError(
      `${flag} ${file} holds no PEM certificate (expected a block starting -----BEGIN CERTIFICATE-----)`,
    );
  }
  return blocks.map((block, i) => {
    try {
      return new X509Certificate(block);
    } catch (error) {
      throw new NetworkOptionError(
        `${flag} ${file}: certificate ${i + 1} does not parse (${(error as Error).message})`,
      );
    }
  });
}

function parseKey(pem: string, file: string): KeyObject {
  const block = /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]+?-----END [A-Z ]*PRIVATE KEY-----/.exec(pem)?.[0];
  if (block === undefined) {
    throw new NetworkOptionError(
      `--client-key ${file} holds no PEM private key (expected a block starting -----BEGIN PRIVATE KEY-----)`,
    );
  }
  try {
    return createPrivateKey(block);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_MISSING_PASSPHRASE' || /ENCRYPTED/.test(block)) {
      throw new NetworkOptionError(
        `--client-key ${file} is encrypted: give an unencrypted copy (openssl pkey -in ${file} -out client.key)`,
      );
    }
    throw new NetworkOptionError(
      `--client-key ${file} does not parse as a private key (${code ?? 'invalid'})`,
    );
  }
}

/** One line for the start of the run: the proxy and where it came from, the TLS settings in force. */
function describeNetwork(network: Network, flags: NetworkFlags, protocol: string): string | undefined {
  const parts: string[] = [];
  const proxy = network.proxy;
  if (proxy) {
    const used = protocol === 'https:' ? proxy.https || proxy.http : proxy.http;
    const bypass = proxy.noProxy === '' ? '' : `, not for ${proxy.noProxy}`;
    parts.push(`proxy ${shownProxy(used)} (${proxy.from}${bypass})`);
  }
  const tls = network.tls;
  if (tls?.ca !== undefined) parts.push(`also trusting the CA of ${flags['ca-cert']}`);
  if (tls?.cert !== undefined) parts.push(`client certificate ${flags['client-cert']}`);
  if (tls?.insecure) parts.push('certificate NOT verified (--insecure)');
  return parts.length === 0 ? undefined : `network: ${parts.join(' · ')}`;
}

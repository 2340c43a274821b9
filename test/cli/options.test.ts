import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { UsageError } from '../../cli/record/errors.ts';
import { type Invocation, parseInvocation, previousDirOf } from '../../cli/run/options.ts';
import { type Certificates, makeCertificates } from '../helpers/certs.ts';

const cwd = '/work/project';
const run = (argv: string[], env: Record<string, string> = {}) => {
  const invocation: Invocation = parseInvocation(argv, env, cwd);
  if (invocation.kind !== 'run') throw new Error(`expected a run, got ${invocation.kind}`);
  return invocation;
};
const usage = (argv: string[], env: Record<string, string> = {}) => {
  try {
    parseInvocation(argv, env, cwd);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error(`expected a UsageError for ${argv.join(' ')}`);
};

describe('options: flag, then environment, then default', () => {
  test('no target means the bundled reference implementation, with the documented defaults', () => {
    const plan = run([]);
    expect(plan.target).toEqual({ kind: 'reference' });
    expect(plan.config).toMatchObject({
      apiKeyHeader: 'X-API-Key',
      authRequired: false,
      readOnly: false,
      strict: false,
      only: [],
      timeoutMs: 10_000,
    });
    expect(plan.config.apiKey).toBeUndefined();
    expect(Number.isInteger(plan.config.seed) && plan.config.seed >= 0 && plan.config.seed < 2 ** 31).toBe(
      true,
    );
    expect(plan.config.runId).toMatch(/^[0-9a-f]{8}$/);
    expect(plan.reportDir).toBe(path.join(cwd, 'reports', 'latest'));
    expect(plan.previousReportDir).toBe(path.join(cwd, 'reports', 'previous'));
    expect(plan.html).toBe(false);
  });

  test('--base-url wins over PETSTORE_BASE_URL and loses its trailing slash', () => {
    const plan = run(['--base-url', 'http://localhost:8080/v1/'], { PETSTORE_BASE_URL: 'http://other/v1' });
    expect(plan.target).toEqual({ kind: 'url', baseUrl: 'http://localhost:8080/v1', from: '--base-url' });
    expect(run([], { PETSTORE_BASE_URL: 'https://Pets.Example.com/v1' }).target).toMatchObject({
      baseUrl: 'https://pets.example.com/v1',
      from: 'PETSTORE_BASE_URL',
    });
  });

  test('--target reads the URL of the named deployment, and says which variable is missing', () => {
    expect(
      run(['--target', 'staging'], { PETSTORE_STAGING_URL: 'https://staging.example.com/v1' }).target,
    ).toMatchObject({
      baseUrl: 'https://staging.example.com/v1',
      from: '--target staging',
    });
    expect(usage(['--target', 'production'])).toContain('PETSTORE_PRODUCTION_URL');
    expect(usage(['--target', 'qa'])).toContain('production or staging');
    expect(usage(['--target', 'staging', '--base-url', 'http://x/v1'])).toContain('exclude each other');
  });

  test('the API key comes from --api-key, else PETSTORE_API_KEY; the carrier is a header or a query parameter', () => {
    expect(run(['--api-key', 'flag'], { PETSTORE_API_KEY: 'env' }).config.apiKey).toBe('flag');
    expect(run([], { PETSTORE_API_KEY: 'env' }).config.apiKey).toBe('env');
    expect(run(['--api-key-header', 'Authorization']).config.apiKeyHeader).toBe('Authorization');
    expect(run(['--api-key-query', 'api_key']).config.apiKeyQuery).toBe('api_key');
    expect(usage(['--api-key-header', 'X-Key', '--api-key-query', 'key'])).toContain('exclude each other');
    expect(usage(['--api-key-header', 'bad header'])).toContain('header name');
  });

  test('--auth-required without a key runs, with a warning that only the refusal checks can pass', () => {
    const plan = run(['--auth-required', '--base-url', 'http://localhost:8080/v1']);
    expect(plan.config.authRequired).toBe(true);
    expect(plan.warnings.join('\n')).toContain('--auth-required without an API key');
    // The bundled reference requires a key only when given one: the combination cannot pass.
    expect(usage(['--auth-required'])).toContain('needs --api-key');
  });

  test('--only splits on commas only, and takes id prefixes in any case, upper-cased', () => {
    expect(run(['--only', 'LIST,SHOW-OK', '--only', 'CREATE']).config.only).toEqual([
      'LIST',
      'SHOW-OK',
      'CREATE',
    ]);
    expect(run(['--only', 'list,show-ok']).config.only).toEqual(['LIST', 'SHOW-OK']);
    expect(usage(['--only', 'list.ok'])).toContain('requirement id prefixes');
  });

  test('--exclude takes prefixes as --only does; none by default', () => {
    expect(run([]).config.exclude).toEqual([]);
    expect(run(['--exclude', 'list-limit, AUTH', '--only', 'LIST']).config).toMatchObject({
      only: ['LIST'],
      exclude: ['LIST-LIMIT', 'AUTH'],
    });
    expect(usage(['--exclude', 'LIST OK'])).toMatch(/^--exclude takes requirement id prefixes/);
  });

  test('--annotations github, the default under GITHUB_ACTIONS=true; none turns it off', () => {
    expect(run([]).annotations).toBeUndefined();
    expect(run(['--annotations', 'github']).annotations).toBe('github');
    expect(run([], { GITHUB_ACTIONS: 'true' }).annotations).toBe('github');
    expect(run(['--annotations', 'none'], { GITHUB_ACTIONS: 'true' }).annotations).toBeUndefined();
    expect(usage(['--annotations', 'gitlab'])).toContain('--annotations takes github or none');
  });

  test('numbers are whole and in range', () => {
    expect(run(['--seed', '1234567', '--timeout-ms', '2500']).config).toMatchObject({
      seed: 1234567,
      timeoutMs: 2500,
    });
    expect(usage(['--seed', '-1'])).toContain('--seed');
    expect(usage(['--seed', '12abc'])).toContain('--seed');
    expect(usage(['--timeout-ms', '0'])).toContain('--timeout-ms');
    expect(usage(['--timeout-ms', '1.5'])).toContain('--timeout-ms');
  });

  test('a base URL must be http(s), without credentials, query or fragment', () => {
    expect(usage(['--base-url', 'localhost:8080'])).toContain('http or https');
    expect(usage(['--base-url', 'not a url'])).toContain('is not a URL');
    expect(usage(['--base-url', 'http://user:pw@host/v1'])).toContain('credentials');
    expect(usage(['--base-url', 'http://host/v1?x=1'])).toContain('query');
  });

  test('a base URL whose path does not end with /v1 runs, with a warning naming the expected form', () => {
    const plan = run(['--base-url', 'http://localhost:8080']);
    expect(plan.warnings.join('\n')).toContain('http://localhost:8080/v1');
  });

  test('unknown options, positionals and missing values are usage errors', () => {
    expect(usage(['--bogus'])).toBe('unknown option --bogus');
    expect(usage(['staging'])).toContain('unexpected argument');
    expect(usage(['--seed'])).toContain('--seed');
    expect(usage(['--base-url', ''])).toContain('--base-url needs a value');
  });

  test('--help and --version stop before anything else is checked', () => {
    expect(parseInvocation(['--help', '--seed', 'x'], {}, cwd).kind).toBe('help');
    expect(parseInvocation(['-v'], {}, cwd).kind).toBe('version');
  });

  test('the previous run is kept beside the report folder', () => {
    expect(previousDirOf('/p/reports/latest')).toBe('/p/reports/previous');
    expect(previousDirOf('/p/reports/ci')).toBe('/p/reports/ci.previous');
    expect(usage(['--report-dir', '.'])).toContain('--report-dir');
  });
});

describe('network options: proxies', () => {
  const target = ['--base-url', 'http://staging.example.com/v1'];
  const tlsTarget = ['--base-url', 'https://staging.example.com/v1'];
  const proxyOf = (argv: string[], env: Record<string, string>) => run(argv, env).config.network?.proxy;

  test('none by default: no proxy settings, nothing printed', () => {
    const plan = run(target);
    expect(plan.config.network).toBeUndefined();
    expect(plan.networkLine).toBeUndefined();
  });

  test('HTTP_PROXY for http:// targets, either case, lower case first; NO_PROXY with it', () => {
    expect(proxyOf(target, { HTTP_PROXY: 'http://upper:3128' })).toEqual({
      http: 'http://upper:3128/',
      https: '',
      noProxy: '',
      from: 'HTTP_PROXY',
    });
    expect(
      proxyOf(target, {
        http_proxy: 'http://lower:3128',
        HTTP_PROXY: 'http://upper:3128',
        no_proxy: '.internal',
      }),
    ).toEqual({
      http: 'http://lower:3128/',
      https: '',
      noProxy: '.internal',
      from: 'http_proxy, no_proxy',
    });
    expect(run(target, { HTTP_PROXY: 'http://upper:3128', NO_PROXY: 'localhost' }).networkLine).toBe(
      'network: proxy http://upper:3128 (HTTP_PROXY, NO_PROXY, not for localhost)',
    );
  });

  test('HTTPS_PROXY for https:// targets (HTTP_PROXY when it is not set, as undici does); not for http://', () => {
    expect(proxyOf(target, { HTTPS_PROXY: 'http://p:3128' })).toBeUndefined();
    expect(proxyOf(tlsTarget, { HTTPS_PROXY: 'http://p:3128' })).toMatchObject({
      https: 'http://p:3128/',
      from: 'HTTPS_PROXY',
    });
    expect(proxyOf(tlsTarget, { https_proxy: 'http://p:3128', HTTPS_PROXY: 'http://q:3128' })?.https).toBe(
      'http://p:3128/',
    );
    expect(proxyOf(tlsTarget, { HTTP_PROXY: 'http://h:3128' })).toMatchObject({
      http: 'http://h:3128/',
      https: '',
    });
  });

  test('--proxy wins over the environment, keeps NO_PROXY, and a proxy without a scheme is http://', () => {
    expect(
      proxyOf([...target, '--proxy', 'flag:8080'], { HTTP_PROXY: 'http://env:3128', NO_PROXY: 'x' }),
    ).toEqual({
      http: 'http://flag:8080/',
      https: 'http://flag:8080/',
      noProxy: 'x',
      from: '--proxy, NO_PROXY',
    });
  });

  test('a proxy that is not an http(s) URL is a usage error naming where it came from', () => {
    expect(usage([...target, '--proxy', 'socks4://p:1080'])).toMatch(
      /^--proxy must be an http:\/\/ or https:\/\/ proxy/,
    );
    expect(usage(target, { HTTP_PROXY: 'http://[bad' })).toMatch(/^HTTP_PROXY is not a proxy URL/);
  });

  test('credentials in a proxy URL are not printed', () => {
    const plan = run([...target, '--proxy', 'http://qa:s3cret@proxy:3128']);
    expect(plan.networkLine).toBe('network: proxy http://proxy:3128 (with credentials) (--proxy)');
    expect(usage([...target, '--proxy', 'ftp://qa:s3cret@proxy'])).not.toContain('s3cret');
  });

  test('the bundled reference is reached directly: the environment is ignored, flags are warned about', () => {
    expect(run([], { HTTP_PROXY: 'http://p:3128' }).config.network).toBeUndefined();
    const plan = run(['--proxy', 'http://p:3128', '--insecure']);
    expect(plan.config.network).toBeUndefined();
    expect(plan.warnings.join('\n')).toContain(
      '--proxy, --insecure: no effect on the bundled reference implementation',
    );
  });
});

describe('network options: TLS files', () => {
  let certs: Certificates;
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'petstore-conformance-options-'));
    certs = makeCertificates(dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const target = ['--base-url', 'https://staging.example.com/v1'];
  const tlsOf = (argv: string[], env: Record<string, string> = {}) =>
    run([...target, ...argv], env).config.network?.tls;

  test('--ca-cert is read (relative to the working folder) and checked; NODE_EXTRA_CA_CERTS goes along', () => {
    expect(tlsOf(['--ca-cert', certs.files.caCert])).toEqual({ ca: certs.pem('caCert') });
    const relative = path.relative(cwd, certs.files.caCert);
    expect(tlsOf(['--ca-cert', relative])?.ca).toBe(certs.pem('caCert'));
    expect(tlsOf(['--ca-cert', certs.files.caCert], { NODE_EXTRA_CA_CERTS: certs.files.serverCert })).toEqual(
      {
        ca: certs.pem('caCert'),
        extraCa: certs.pem('serverCert'),
      },
    );
    expect(usage([...target, '--ca-cert', path.join(dir, 'missing.pem')])).toMatch(
      /--ca-cert .*missing\.pem: cannot read it \(no such file\)/,
    );
    expect(usage([...target, '--ca-cert', certs.files.clientKey])).toContain('holds no PEM certificate');
  });

  test('--client-cert with --client-key, or one file holding both; the key must match, unencrypted', () => {
    const f = certs.files;
    expect(tlsOf(['--client-cert', f.clientCert, '--client-key', f.clientKey])).toEqual({
      cert: certs.pem('clientCert'),
      key: certs.pem('clientKey'),
    });
    expect(tlsOf(['--client-cert', f.clientBoth])).toMatchObject({ key: certs.pem('clientBoth') });
    expect(usage([...target, '--client-cert', f.clientCert])).toContain(
      'holds no private key: give the key with --client-key',
    );
    expect(usage([...target, '--client-key', f.clientKey])).toContain('--client-key needs --client-cert');
    expect(usage([...target, '--client-cert', f.clientCert, '--client-key', f.strangerKey])).toMatch(
      /--client-key .*stranger\.key is not the key of the certificate/,
    );
    expect(usage([...target, '--client-cert', f.clientCert, '--client-key', f.clientKeyEncrypted])).toContain(
      'is encrypted',
    );
  });

  test('--insecure: warned; the line printed at the start says so', () => {
    const plan = run([...target, '--insecure']);
    expect(plan.config.network?.tls).toEqual({ insecure: true });
    expect(plan.warnings.join('\n')).toContain("--insecure: the target's certificate is not verified");
    expect(plan.networkLine).toBe('network: certificate NOT verified (--insecure)');
  });

  test('TLS options against an http:// target are warned about', () => {
    const plan = run(['--base-url', 'http://staging.example.com/v1', '--ca-cert', certs.files.caCert]);
    expect(plan.warnings.join('\n')).toContain(
      '--ca-cert: no effect, http://staging.example.com/v1 is reached over plain HTTP',
    );
  });
});

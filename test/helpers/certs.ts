/**
 * Certificates for the TLS tests, made with openssl into a folder of the test's own: a CA; server
 * certificates it signs for 127.0.0.1 and for a wrong name; a self-signed server certificate; client
 * certificates (one signed by the CA, one by another CA); an encrypted key.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface Certificates {
  readonly dir: string;
  /** Absolute paths of the PEM files. */
  readonly files: {
    caCert: string;
    serverCert: string;
    serverKey: string;
    selfSignedCert: string;
    selfSignedKey: string;
    wrongNameCert: string;
    wrongNameKey: string;
    clientCert: string;
    clientKey: string;
    /** The client certificate and its key in one file. */
    clientBoth: string;
    /** A client certificate signed by a CA the server does not trust. */
    strangerCert: string;
    strangerKey: string;
    /** The client key, encrypted with a passphrase. */
    clientKeyEncrypted: string;
  };
  /** The text of a file of `files`. */
  pem(name: keyof Certificates['files']): string;
}

export function makeCertificates(dir: string): Certificates {
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) =>
    execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 });
  const key = (name: string) =>
    openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', file(name));
  const ca = (name: string, subject: string) => {
    key(`${name}.key`);
    openssl(
      'req',
      '-x509',
      '-new',
      '-key',
      file(`${name}.key`),
      '-subj',
      subject,
      '-days',
      '2',
      '-out',
      file(`${name}.pem`),
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    );
  };
  /** A leaf certificate signed by `issuer`, with these extensions. */
  const leaf = (name: string, issuer: string, subject: string, extensions: string) => {
    key(`${name}.key`);
    openssl('req', '-new', '-key', file(`${name}.key`), '-subj', subject, '-out', file(`${name}.csr`));
    writeFileSync(file(`${name}.ext`), extensions);
    openssl(
      'x509',
      '-req',
      '-in',
      file(`${name}.csr`),
      '-CA',
      file(`${issuer}.pem`),
      '-CAkey',
      file(`${issuer}.key`),
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      file(`${name}.ext`),
      '-out',
      file(`${name}.pem`),
    );
  };
  ca('ca', '/CN=petstore-conformance test CA');
  ca('other-ca', '/CN=another CA');
  const serverExt = (names: string) =>
    `basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=${names}\n`;
  leaf('server', 'ca', '/CN=127.0.0.1', serverExt('IP:127.0.0.1,DNS:localhost'));
  leaf('wrong-name', 'ca', '/CN=wrong.example', serverExt('DNS:wrong.example'));
  const clientExt = 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=clientAuth\n';
  leaf('client', 'ca', '/CN=qa-runner', clientExt);
  leaf('stranger', 'other-ca', '/CN=stranger', clientExt);
  key('self-signed.key');
  openssl(
    'req',
    '-x509',
    '-new',
    '-key',
    file('self-signed.key'),
    '-subj',
    '/CN=127.0.0.1',
    '-days',
    '2',
    '-out',
    file('self-signed.pem'),
    '-addext',
    'subjectAltName=IP:127.0.0.1',
  );
  writeFileSync(
    file('client-both.pem'),
    `${readFileSync(file('client.pem'), 'utf8')}${readFileSync(file('client.key'), 'utf8')}`,
  );
  openssl(
    'pkey',
    '-in',
    file('client.key'),
    '-aes256',
    '-passout',
    'pass:secret',
    '-out',
    file('client-encrypted.key'),
  );

  const files = {
    caCert: file('ca.pem'),
    serverCert: file('server.pem'),
    serverKey: file('server.key'),
    selfSignedCert: file('self-signed.pem'),
    selfSignedKey: file('self-signed.key'),
    wrongNameCert: file('wrong-name.pem'),
    wrongNameKey: file('wrong-name.key'),
    clientCert: file('client.pem'),
    clientKey: file('client.key'),
    clientBoth: file('client-both.pem'),
    strangerCert: file('stranger.pem'),
    strangerKey: file('stranger.key'),
    clientKeyEncrypted: file('client-encrypted.key'),
  };
  return { dir, files, pem: (name) => readFileSync(files[name], 'utf8') };
}

import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Logger } from '../../logger.ts';

/**
 * The TLS listener's certificate: a configured one (PEM text or a file path), or a self-signed one
 * generated on first start and kept in the data directory so clients can pin it.
 */

/** Relative to the data directory. */
export const TLS_DIR = 'tls';
export const TLS_CERT_FILE = 'eventlog-cert.pem';
export const TLS_KEY_FILE = 'eventlog-key.pem';

export interface TlsMaterial {
  cert: string;
  key: string;
  /** Where it came from, for the log. */
  source: 'configured' | 'generated' | 'data-dir';
}

function pemOrFile(value: string, what: string): string {
  if (value.includes('-----BEGIN')) return value;
  try {
    return fs.readFileSync(value, 'utf8');
  } catch (err) {
    throw new Error(
      `cannot read the TLS ${what} file ${value}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
      { cause: err },
    );
  }
}

function subjectAltNames(host: string) {
  const names: { type: 2 | 7; value?: string; ip?: string }[] = [
    { type: 2, value: 'localhost' },
    { type: 7, ip: '127.0.0.1' },
    { type: 7, ip: '::1' },
  ];
  if (host && host !== '0.0.0.0' && host !== '::' && host !== 'localhost' && host !== '127.0.0.1' && host !== '::1') {
    names.push(net.isIP(host) ? { type: 7, ip: host } : { type: 2, value: host });
  }
  return names;
}

export async function loadTlsMaterial(options: {
  dataDir: string;
  host: string;
  tlsCert?: string;
  tlsKey?: string;
  logger: Logger;
}): Promise<TlsMaterial> {
  if (options.tlsCert || options.tlsKey) {
    if (!options.tlsCert || !options.tlsKey) throw new Error('a TLS certificate needs both tlsCert and tlsKey');
    return {
      cert: pemOrFile(options.tlsCert, 'certificate'),
      key: pemOrFile(options.tlsKey, 'key'),
      source: 'configured',
    };
  }
  const dir = path.join(options.dataDir, TLS_DIR);
  const certFile = path.join(dir, TLS_CERT_FILE);
  const keyFile = path.join(dir, TLS_KEY_FILE);
  if (fs.existsSync(certFile) && fs.existsSync(keyFile)) {
    return { cert: fs.readFileSync(certFile, 'utf8'), key: fs.readFileSync(keyFile, 'utf8'), source: 'data-dir' };
  }

  const { generate } = await import('selfsigned');
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(notBefore);
  notAfter.setFullYear(notAfter.getFullYear() + 10);
  const pems = await generate([{ name: 'commonName', value: 'Homeport event log' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notBeforeDate: notBefore,
    notAfterDate: notAfter,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: subjectAltNames(options.host) },
    ],
  });
  // Key first and private; the pair only counts as present once the certificate is written too.
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(keyFile, pems.private, { mode: 0o600 });
  fs.writeFileSync(certFile, pems.cert, { mode: 0o600 });
  options.logger.info(
    { certFile, fingerprint: pems.fingerprint },
    'generated a self-signed certificate for the event-log TLS listener',
  );
  return { cert: pems.cert, key: pems.private, source: 'generated' };
}

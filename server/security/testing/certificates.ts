import net from 'node:net';
import { generate } from 'selfsigned';

/*
 * Certificates for tests that speak TLS: one test CA and a leaf per entry, EC P-256 (generated in milliseconds,
 * where an RSA 2048 key takes hundreds). Clients trust `ca`; servers present a leaf.
 */

/** Issues a CA and a leaf certificate per entry (DNS names or IP addresses), EC P-256, valid a day. */
export async function makeTestCertificates(
  entries: (string | string[])[],
): Promise<{ ca: string; certificates: Record<string, { key: string; cert: string }> }> {
  const notBeforeDate = new Date(Date.now() - 3_600_000);
  const notAfterDate = new Date(Date.now() + 86_400_000);
  const ca = await generate([{ name: 'commonName', value: 'Homeport test CA' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const certificates: Record<string, { key: string; cert: string }> = {};
  for (const entry of entries) {
    const names = typeof entry === 'string' ? [entry] : entry;
    const leaf = await generate([{ name: 'commonName', value: names[0] }], {
      keyType: 'ec',
      algorithm: 'sha256',
      notBeforeDate,
      notAfterDate,
      ca: { key: ca.private, cert: ca.cert },
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
        { name: 'extKeyUsage', serverAuth: true },
        {
          name: 'subjectAltName',
          altNames: names.map((name) => (net.isIP(name) ? { type: 7, ip: name } : { type: 2, value: name })),
        },
      ],
    });
    certificates[names[0]] = { key: leaf.private, cert: leaf.cert };
  }
  return { ca: ca.cert, certificates };
}

/** A test CA and one leaf for `names` (DNS names or IP addresses): what a single https test server needs. */
export async function makeTestCertificate(names: string[]): Promise<{ ca: string; key: string; cert: string }> {
  const { ca, certificates } = await makeTestCertificates([names]);
  return { ca, ...certificates[names[0]] };
}

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTestCertificates } from './certificates.ts';

/*
 * Runs a Node script inside a network + mount namespace made for it (`unshare -n -m`, as root), so code
 * that refuses private addresses can be tested with its guard ON against servers on "public" addresses:
 *
 *   const out = await runInNamespace<MyReport>({
 *     script: new URL('./push.netns.ts', import.meta.url),   // .ts runs natively (Node 22 type stripping)
 *     hosts: { 'push.example': ['1.2.3.4'] },                   // /etc/hosts of the namespace
 *     dns: { 'rebind.example': [['1.2.3.4'], ['127.0.0.1']] }, // answered by the namespace's DNS server
 *     certificates: [['push.example', '1.2.3.4'], 'other.example'], // leaf certificates from the test CA
 *     input: { anything: 'json' },                              // handed to the script
 *   });
 *   out.result      // what the script passed to report()
 *   out.dnsQueries  // every question the DNS server was asked, in order ({ name, type: 'A' | 'AAAA' })
 *
 * guardTestNetwork(['site.example']) gives the usual hosts, dns and certificates of a guard test.
 *
 * Inside, `lo` is up and carries every address named in `hosts`, `dns` answers and `addresses` (loopback
 * and IPv4-mapped ones reach 127.0.0.0/8 as they are), so a server can listen on 1.2.3.4 and a client
 * connect to it; nothing leaves the namespace (it has no other interface). /etc/hosts and /etc/resolv.conf
 * are bind-mounted from generated files (the mount namespace keeps that private); resolv.conf names a DNS
 * server on 127.0.0.53 (dns2) that answers the names of `dns` with their successive answer sets: the n-th A
 * (or AAAA) question gets the IPv4 (IPv6) addresses of set n, the last set repeating — e.g. public for the
 * check, loopback for the connect, to test DNS rebinding. Other names get NXDOMAIN; every answer has TTL 0.
 *
 * The script (see netns-child.ts) reads the test CA and certificates with `namespaceContext()` and sends one
 * JSON-serialisable value back with `report(value)`; its Node has NODE_EXTRA_CA_CERTS set to the test CA.
 * The script runs under plain Node (type stripping, as bench/ does), so it and what it imports must be
 * erasable TypeScript, as server/ is; connectionCounter() there counts connections to where a guard must
 * not go. The script's stderr reaches the test's stderr; a script that exits without reporting, exits
 * non-zero or outlives `timeoutMs` rejects the promise with its output. Needs root, util-linux's unshare and
 * iproute2.
 */

export interface NamespaceRunOptions {
  /** The script to run with `node` inside the namespace (a path or file: URL). */
  script: string | URL;
  /** Names of the namespace's /etc/hosts and their addresses (localhost is always there). */
  hosts?: Record<string, string[]>;
  /** Names answered by the namespace's DNS server: successive answer sets, the last one repeating. */
  dns?: Record<string, string[][]>;
  /** More addresses to put on `lo` (beyond those in `hosts` and `dns`). */
  addresses?: string[];
  /**
   * Leaf certificates to issue from the run's test CA: a host name or IP address, or a list of them for one
   * certificate naming them all (found under its first name).
   */
  certificates?: (string | string[])[];
  /** JSON-serialisable input handed to the script (`namespaceContext().input`). */
  input?: unknown;
  /** Extra environment variables for the script. */
  env?: Record<string, string>;
  /** The whole run is killed past this (default NAMESPACE_RUN_TIMEOUT_MS). */
  timeoutMs?: number;
}

export interface NamespaceRun<T> {
  /** What the script passed to `report()`. */
  result: T;
  /** Every question the namespace's DNS server received, in order. */
  dnsQueries: { name: string; type: 'A' | 'AAAA' | string }[];
  /** What the script wrote to stderr (also forwarded to the test's stderr). */
  stderr: string;
}

/** What the boot script reads (written to a file, its path the boot's argument). */
export interface NamespaceConfig {
  dir: string;
  hostsFile: string;
  resolvFile: string;
  addresses: string[];
  dns: Record<string, string[][]>;
  script: string;
  env: Record<string, string>;
  /** Handed to the script as HOMEPORT_NETNS (JSON), read by namespaceContext(). */
  context: NamespaceContext;
}

export interface NamespaceContext {
  /** PEM of the test CA (also in NODE_EXTRA_CA_CERTS). */
  ca: string;
  /** Key and certificate (PEM) per entry of `certificates`, under its (first) name. */
  certificates: Record<string, { key: string; cert: string }>;
  input: unknown;
}

/**
 * Deadlines only to fail instead of hanging: a run that starts Homeports inside takes 10-25 s alone, and
 * several times that beside the whole suite on two cores. A test passes NAMESPACE_TEST_TIMEOUT_MS to `it`.
 */
export const NAMESPACE_RUN_TIMEOUT_MS = 170_000;
export const NAMESPACE_TEST_TIMEOUT_MS = 180_000;

export const RESULT_MARK = '@@homeport-netns-result ';
export const DNS_SERVER_ADDRESS = '127.0.0.53';

/** The public-looking address guard tests serve from, and the private one they must never reach. */
export const PUBLIC_TEST_ADDRESS = '1.2.3.4';
export const PRIVATE_TEST_ADDRESS = '10.1.2.3';

/**
 * The usual network of a guard test: `names` on PUBLIC_TEST_ADDRESS, with one certificate (found under
 * `names[0]`) naming them, rebind.example and the address itself; loopback.example (127.0.0.1),
 * private.example (PRIVATE_TEST_ADDRESS) and mapped.example (::ffff:127.0.0.1) in /etc/hosts; and
 * rebind.example answered by DNS with the public address first and 127.0.0.1 after.
 */
export function guardTestNetwork(names: string[]): Pick<NamespaceRunOptions, 'hosts' | 'dns' | 'certificates'> {
  return {
    hosts: {
      ...Object.fromEntries(names.map((name) => [name, [PUBLIC_TEST_ADDRESS]])),
      'loopback.example': ['127.0.0.1'],
      'private.example': [PRIVATE_TEST_ADDRESS],
      'mapped.example': ['::ffff:127.0.0.1'],
    },
    // Public when first asked, loopback after: a client that looked up twice would connect to loopback.
    dns: { 'rebind.example': [[PUBLIC_TEST_ADDRESS], ['127.0.0.1']] },
    certificates: [[...names, 'rebind.example', PUBLIC_TEST_ADDRESS]],
  };
}

const BOOT = fileURLToPath(new URL('./netns-boot.ts', import.meta.url));

/** Addresses `lo` has already, or reaches through one it has (mapped IPv4): not added. */
const onLoopbackAlready = (address: string) =>
  address === '::1' || address.startsWith('127.') || address.toLowerCase().startsWith('::ffff:');

/** Runs `options.script` in a fresh network + mount namespace; resolves with what it reported. */
export async function runInNamespace<T>(options: NamespaceRunOptions): Promise<NamespaceRun<T>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-netns-'));
  try {
    const hosts = options.hosts ?? {};
    const dns = options.dns ?? {};
    const addresses = [
      ...new Set([...Object.values(hosts).flat(), ...Object.values(dns).flat(2), ...(options.addresses ?? [])]),
    ].filter((a) => !onLoopbackAlready(a));
    for (const address of addresses) if (net.isIP(address) === 0) throw new Error(`not an IP address: ${address}`);
    const hostsFile = path.join(dir, 'hosts');
    fs.writeFileSync(
      hostsFile,
      [
        '127.0.0.1 localhost',
        '::1 localhost ip6-localhost',
        ...Object.entries(hosts).flatMap(([name, list]) => list.map((a) => `${a} ${name}`)),
        '',
      ].join('\n'),
    );
    const resolvFile = path.join(dir, 'resolv.conf');
    fs.writeFileSync(resolvFile, `nameserver ${DNS_SERVER_ADDRESS}\noptions timeout:2 attempts:2\n`);
    const { ca, certificates } = await makeTestCertificates(options.certificates ?? []);
    const caFile = path.join(dir, 'ca.pem');
    fs.writeFileSync(caFile, ca);
    const config: NamespaceConfig = {
      dir,
      hostsFile,
      resolvFile,
      addresses,
      dns,
      script: options.script instanceof URL ? fileURLToPath(options.script) : path.resolve(options.script),
      env: { ...options.env, NODE_EXTRA_CA_CERTS: caFile },
      context: { ca, certificates, input: options.input ?? null },
    };
    const configFile = path.join(dir, 'config.json');
    fs.writeFileSync(configFile, JSON.stringify(config));
    return await boot<T>(configFile, options.timeoutMs ?? NAMESPACE_RUN_TIMEOUT_MS);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function boot<T>(configFile: string, timeoutMs: number): Promise<NamespaceRun<T>> {
  return new Promise((resolve, reject) => {
    // unshare's default propagation is private: the bind mounts stay inside.
    const child = spawn('unshare', ['--net', '--mount', '--', process.execPath, BOOT, configFile], {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      process.stderr.write(chunk);
    });
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
      reject(new Error(`the namespace run outlived ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`unshare could not start (root, util-linux and iproute2 are needed): ${err.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const line = stdout.split('\n').find((l) => l.startsWith(RESULT_MARK));
      if (code !== 0 || !line)
        return reject(
          new Error(`the namespace run ended (${signal ?? `exit ${code}`}) without a result\n${stdout}\n${stderr}`),
        );
      const parsed = JSON.parse(line.slice(RESULT_MARK.length)) as Omit<NamespaceRun<T>, 'stderr'>;
      resolve({ ...parsed, stderr });
    });
  });
}

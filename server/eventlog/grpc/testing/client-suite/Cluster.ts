/**
 * Stands in for the KurrentDB client suite's `src/utils/Cluster.ts` (which builds docker-compose clusters): the
 * runner (`run.ts`) copies it over that file, so every test that asks for a node gets a `homeport serve` process
 * of its own instead. Written in the suite's dialect (CommonJS through ts-jest, no `import.meta`), and kept to
 * what type-checks in both projects. Homeport is a single node: a "cluster" is that one node, the leader, which
 * serves the files that ask for a cluster only to talk to its leader (the runner leaves out the others).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  type BasicCredentials,
  type Certificate,
  type EndPoint,
  KurrentDBClient,
  type NodePreference,
} from '@kurrent/kurrentdb-client';

/** The suite's `ConnectionFeatures` (its utils/index.ts), repeated so this file stands alone. */
interface ConnectionFeatures {
  defaultUserCredentials?: BasicCredentials;
  nodePreference?: NodePreference;
  userCertificates?: 'valid' | 'invalid';
  maxDiscoverAttempts?: number;
  discoveryInterval?: number;
  endpoints?: EndPoint[];
  throwOnAppendFailure?: boolean;
  defaultDeadline?: number;
  connectionName?: string;
}

/** Where Homeport's repository is (the runner sets it). */
const HOMEPORT_ROOT = process.env.HOMEPORT_ROOT ?? '';
/** KurrentDB creates these stopped (StartStandardProjections=false); Homeport runs them from the first start. */
const STANDARD_PROJECTIONS = [
  '$by_category',
  '$by_event_type',
  '$stream_by_category',
  '$streams',
  '$by_correlation_id',
];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export class Cluster {
  public domain = 'localhost';
  private readonly insecure: boolean;
  private readonly dataDir: string;
  private port = 0;
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  private certificates?: { root: Buffer; users: { admin: Certificate; invalid: Certificate } };

  constructor(_count: number, insecure = false) {
    this.insecure = insecure;
    this.dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-client-suite-'));
  }

  public setLogLevel = (): this => this;

  /** KurrentDB options (append sizes, commit timeouts) have no `serve` flag: the node runs with Homeport's own. */
  public setOption = (): this => this;

  public get certs() {
    if (this.insecure) throw new Error('No Cert for insecure cluster');
    if (!this.certificates) throw new Error('Cluster failed to initialize');
    return this.certificates;
  }

  public get certPath() {
    if (this.insecure) throw new Error('No Cert for insecure cluster');
    const unsupported = {
      certPath: '/homeport-has-no-user-certificates',
      certKeyPath: '/homeport-has-no-user-certificates',
    };
    return {
      root: path.join(this.dataDir, 'tls', 'eventlog-cert.pem'),
      admin: unsupported,
      invalid: unsupported,
    };
  }

  public get uri(): string {
    return `${this.domain}:${this.port}`;
  }

  public get endpoints(): EndPoint[] {
    return [{ address: this.domain, port: this.port }];
  }

  public connectionString = (): string => this.connectionStringWithOverrides({});

  public connectionStringWithOverrides = (features: ConnectionFeatures): string => {
    const endpoints = (features.endpoints ?? this.endpoints).map((x) => `${x.address}:${x.port}`).join(',');
    const user = features.defaultUserCredentials ?? { username: 'admin', password: 'changeit' };
    const params: string[] = [];
    if (features.nodePreference) params.push(`nodePreference=${features.nodePreference}`);
    if (this.insecure) params.push('tls=false');
    else params.push('tls=true', `tlsCAFile=${this.certPath.root}`);
    if (features.maxDiscoverAttempts) params.push(`maxDiscoverAttempts=${features.maxDiscoverAttempts}`);
    if (features.discoveryInterval) params.push(`discoveryInterval=${features.discoveryInterval}`);
    if (features.throwOnAppendFailure !== undefined && !features.throwOnAppendFailure)
      params.push('throwOnAppendFailure=false');
    if (features.defaultDeadline) params.push(`defaultDeadline=${features.defaultDeadline}`);
    if (features.connectionName) params.push(`connectionName=${features.connectionName}`);
    const query = params.length > 0 ? `?${params.join('&')}` : '';
    return `kurrentdb://${user.username}:${user.password}@${endpoints}${query}`;
  };

  public up = async (): Promise<void> => {
    if (this.child) return;
    if (!this.port) this.port = await freePort();
    await this.start();
    if (!this.insecure) {
      const root = fs.readFileSync(this.certPath.root);
      const none = { userCertFile: Buffer.alloc(0), userKeyFile: Buffer.alloc(0) };
      this.certificates = { root, users: { admin: none, invalid: none } };
    }
    // As a KurrentDB container starts them: stopped, for the tests that enable one (a disabled one stays so).
    const client = KurrentDBClient.connectionString(this.connectionString());
    try {
      for (const name of STANDARD_PROJECTIONS) await client.disableProjection(name);
    } finally {
      await client.dispose();
    }
  };

  public down = async (): Promise<void> => {
    await this.stop();
    fs.rmSync(this.dataDir, { recursive: true, force: true });
  };

  public enableNodeLogs = async (): Promise<void> => {};

  public killNode = async (node: EndPoint): Promise<void> => {
    if (node.port !== this.port) throw new Error(`unknown node ${node.address}:${node.port}`);
    await this.stop();
  };

  /** Starts the node again on the same port and data directory. */
  public resurrect = async (): Promise<void> => {
    if (!this.child) await this.start();
  };

  public inspect = async (): Promise<void> => {};
  public openInBrowser = async (): Promise<void> => {};

  private start(): Promise<void> {
    const args = [path.join(HOMEPORT_ROOT, 'bin', 'homeport.js'), 'serve', '--data-dir', this.dataDir];
    args.push('--host', '127.0.0.1', '--grpc-port', String(this.port), '--tcp-port', '0', '--tcp-tls-port', 'off');
    args.push('--http-port', '0', '--log-level', 'warn', ...(this.insecure ? ['--grpc-insecure'] : []));
    const child = spawn(process.execPath, args, { cwd: HOMEPORT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    this.exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    return new Promise<void>((resolve, reject) => {
      let out = '';
      let err = '';
      child.stderr!.on('data', (d) => {
        err += d;
        if (process.env.HOMEPORT_SUITE_LOGS) process.stderr.write(d);
      });
      child.stdout!.on('data', (d) => {
        out += d;
        // `serve` prints every listener, then the data directory.
        if (/^data directory /m.test(out)) resolve();
      });
      child.once('exit', (code) => {
        this.child = null;
        reject(new Error(`homeport serve exited with ${code} before listening\n${out}\n${err}`));
      });
    });
  }

  private async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    child.kill('SIGTERM');
    await this.exited;
    this.child = null;
  }
}

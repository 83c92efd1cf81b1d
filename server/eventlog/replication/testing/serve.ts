/**
 * Test support: `homeport serve` in a process of its own with TCP and gRPC (TLS, the server's own
 * certificate), restartable on the same ports, and the connection strings the replicator takes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import es from 'node-eventstore-client';
import { startServeProcess } from '../../../testing/serve-process.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..', '..');

export interface ServedHomeport {
  dataDir: string;
  child: ChildProcess;
  tcpPort: number;
  grpcPort: number;
  /** tcp://admin:changeit@127.0.0.1:PORT */
  tcpUrl: string;
  /** kurrentdb://admin:changeit@127.0.0.1:PORT?tlsCAFile=… */
  grpcUrl: string;
  exited: Promise<void>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

const madeDirs: string[] = [];

/** Removes every directory tempDir made (call it after the servers on them stopped). */
export function removeTempDirs(): void {
  for (const dir of madeDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** A new directory under the system's temporary folder; removeTempDirs removes it. */
export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `homeport-repl-${prefix}-`));
  madeDirs.push(dir);
  return dir;
}

/**
 * A free loopback port below Linux's ephemeral range (32768-60999), for a server a test restarts on the same
 * address: a port the system hands out to `listen(0)` could be taken by another process while it is down.
 */
export async function stablePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + crypto.randomInt(12_000);
    const free = await new Promise<boolean>((resolve) => {
      const probe = net.createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

/** `homeport serve` on ports outside the ephemeral range, so that it can be killed and restarted on them. */
export async function serveRestartable(dataDir: string): Promise<ServedHomeport> {
  return serveHomeport(dataDir, { tcp: await stablePort(), grpc: await stablePort() });
}

/** Starts `homeport serve` on `dataDir` (free ports unless given) and resolves once TCP and gRPC listen. */
export async function serveHomeport(
  dataDir: string,
  ports: { tcp?: number; grpc?: number } = {},
): Promise<ServedHomeport> {
  const served = await startServeProcess({
    dataDir,
    args: ['--tcp-port', String(ports.tcp ?? 0), '--grpc-port', String(ports.grpc ?? 0)],
  });
  if (!served.grpc) throw new Error('homeport serve started without its gRPC listener');
  const { child, ended } = served;
  return {
    dataDir,
    child,
    tcpPort: served.tcpPort,
    grpcPort: served.grpc.port,
    tcpUrl: `tcp://admin:changeit@127.0.0.1:${served.tcpPort}`,
    grpcUrl: served.grpc.connectionString.replace('kurrentdb://', 'kurrentdb://admin:changeit@'),
    exited: ended,
    async kill(signal = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await ended;
    },
  };
}

/** A node-eventstore-client connection as admin. */
export async function tcpClient(port: number): Promise<es.EventStoreNodeConnection> {
  const connection = es.createConnection(
    {
      defaultUserCredentials: new es.UserCredentials('admin', 'changeit'),
      log: { debug() {}, info() {}, error() {} },
    },
    { host: '127.0.0.1', port },
  );
  connection.on('error', () => {});
  await connection.connect();
  return connection;
}

export interface ReplicatorProcess {
  child: ChildProcess;
  /** Everything it printed so far (stderr progress, stdout summary). */
  output(): string;
  /** The source position of its last progress line (0 before the first). */
  position(): number;
  exitCode: Promise<number | null>;
}

/** `homeport eventlog replicate ARGS` in a process of its own. */
export function startReplicator(args: string[], stdin?: string): ReplicatorProcess {
  const child = spawn(process.execPath, ['bin/homeport.js', 'eventlog', 'replicate', ...args], {
    cwd: ROOT,
    stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (stdin !== undefined) child.stdin!.end(stdin);
  let text = '';
  let position = 0;
  const take = (d: Buffer) => {
    text += d;
    for (const m of String(d).matchAll(/position (\d+)\//g)) position = Number(m[1]);
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  const exitCode = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => text, position: () => position, exitCode };
}

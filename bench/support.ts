/** What the event-log benchmarks share: `homeport serve` in its own process, a client connection, percentiles. */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

const require = createRequire(import.meta.url);
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const es: any = require('node-eventstore-client');

const ROOT = path.resolve(import.meta.dirname, '..');
const quietLog = { debug() {}, info() {}, error() {} };

/** The `p`th percentile of ascending values; NaN when there are none. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export interface Server {
  child: ChildProcess;
  port: number;
  /** The HTTP listener's port (the UI, the social server). */
  httpPort: number;
  dataDir: string;
}

/** Starts `homeport serve` (TCP on a free port, no TLS) in a fresh data directory named `dataDirPrefix`…, with extra node flags. */
export function startServer(dataDirPrefix: string, nodeFlags: readonly string[] = []): Promise<Server> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), dataDirPrefix));
  const child = spawn(
    process.execPath,
    [
      ...nodeFlags,
      'bin/homeport.js',
      'serve',
      '--data-dir',
      dataDir,
      '--tcp-port',
      '0',
      '--http-port',
      '0',
      '--tcp-tls-port',
      'off',
      '--log-level',
      'warn',
    ],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const tcp = /eventlog tcp listening on (\S+):(\d+)/.exec(out);
      const http = /http listening on http:\/\/[^:]+:(\d+)/.exec(out);
      if (tcp && http) resolve({ child, port: Number(tcp[2]), httpPort: Number(http[1]), dataDir });
    });
    child.once('exit', (code) => reject(new Error(`homeport serve exited with ${code}: ${out}`)));
  });
}

export async function stopServer(server: Server): Promise<void> {
  const exited = new Promise((r) => server.child.once('exit', r));
  server.child.kill('SIGTERM');
  await exited;
  fs.rmSync(server.dataDir, { recursive: true, force: true });
}

/** A node-eventstore-client connection as admin, once connected; the limits size its request queue. */
export async function connectClient(
  port: number,
  name: string,
  limits: { maxConcurrentItems: number; maxQueueSize: number },
) {
  const connection = es.createConnection(
    { log: quietLog, defaultUserCredentials: new es.UserCredentials('admin', 'changeit'), ...limits },
    `tcp://127.0.0.1:${port}`,
    name,
  );
  const connected = new Promise<void>((resolve) => connection.once('connected', () => resolve()));
  await connection.connect();
  await connected;
  return connection;
}

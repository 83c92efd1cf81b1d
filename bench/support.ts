/** What the event-log benchmarks share: `homeport serve` in its own process, a client connection, percentiles. */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { startServeProcess, type ServeProcess } from '../server/testing/serve-process.ts';

const require = createRequire(import.meta.url);
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const es: any = require('node-eventstore-client');

const quietLog = { debug() {}, info() {}, error() {} };

/** The `p`th percentile of ascending values; NaN when there are none. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * Starts `homeport serve` (free ports, no TLS) in a fresh data directory named `dataDirPrefix`…, with more serve
 * flags and node flags; its output shows on stderr.
 */
export function startServer(
  dataDirPrefix: string,
  more: { args?: readonly string[]; nodeFlags?: readonly string[] } = {},
): Promise<ServeProcess> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), dataDirPrefix));
  return startServeProcess({ dataDir, ...more, echo: true });
}

/** Stops a server startServer started (SIGTERM) and removes its data directory. */
export async function stopServer(server: ServeProcess): Promise<void> {
  await server.stop();
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

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); NaN elsewhere. */
export function cpuSecondsOf(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** bench/ack-server.ts in its own process (as the real server runs in its own): the client's limit. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

/** Extra node flags for the ack server, e.g. BENCH_ACK_FLAGS=--perf-basic-prof (profiling the floor). */
const ACK_FLAGS = (process.env.BENCH_ACK_FLAGS ?? '').split(' ').filter(Boolean);

/**
 * Starts the ack server; with `upstreamPort` it replays that server's read answers, with `paceMs` it reads each
 * socket at most once per that many milliseconds (bench/ack-server.ts: ACK_PACE_MS).
 */
export function startAckServer(upstreamPort?: number, paceMs?: number): Promise<{ child: ChildProcess; port: number }> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (upstreamPort !== undefined) env.UPSTREAM = String(upstreamPort);
  if (paceMs !== undefined) env.ACK_PACE_MS = String(paceMs);
  else delete env.ACK_PACE_MS;
  const child = spawn(process.execPath, [...ACK_FLAGS, path.join(import.meta.dirname, '..', 'ack-server.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env,
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on \S+:(\d+)/.exec(out);
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.once('exit', (code) => reject(new Error(`ack server exited with ${code}: ${out}`)));
  });
}

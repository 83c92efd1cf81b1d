/** `homeport serve` in a process of its own, for tests that kill it or measure its memory. Not used by the server. */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');

export interface ServeProcess {
  child: ChildProcess;
  /** The event-log TCP port it listens on. */
  port: number;
  /** The gRPC listener's port and connection string (without credentials), when it runs. */
  grpc: { port: number; connectionString: string } | null;
  exited: Promise<void>;
}

/**
 * Starts `homeport serve` on `dataDir` (free ports, no TLS, warnings only), with more flags or environment
 * variables if given, and resolves once TCP listens.
 */
export function startServeProcess(
  dataDir: string,
  more: { args?: string[]; env?: Record<string, string> } = {},
): Promise<ServeProcess> {
  const args = ['bin/homeport.js', 'serve', '--data-dir', dataDir, '--tcp-port', '0', '--http-port', '0'];
  args.push('--tcp-tls-port', 'off', '--log-level', 'warn', ...(more.args ?? []));
  const env = { ...process.env, ...more.env };
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    child.stdout!.on('data', (d) => {
      out += d;
      // Every listener is printed before the data directory.
      if (!/^data directory /m.test(out)) return;
      const tcp = /eventlog tcp listening on (\S+):(\d+)/.exec(out);
      const grpc = /eventlog grpc listening on \S+:(\d+) \((\S+)\)/.exec(out);
      if (tcp)
        resolve({
          child,
          port: Number(tcp[2]),
          grpc: grpc ? { port: Number(grpc[1]), connectionString: grpc[2] } : null,
          exited,
        });
    });
    child.once('exit', (code) =>
      reject(new Error(`homeport serve exited with ${code} before listening\n${out}\n${err}`)),
    );
  });
}

/** A process's resident memory now and at its peak (bytes), from /proc (Linux). */
export function residentMemory(pid: number): { now: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    if (!m) throw new Error(`no ${field} in /proc/${pid}/status`);
    return Number(m[1]) * 1024;
  };
  return { now: kib('VmRSS'), peak: kib('VmHWM') };
}

/**
 * `homeport serve` in a process of its own, as a user runs it: what kills it shows as its exit, its memory and
 * CPU time are its own (read from /proc, Linux). For tests that SIGKILL the server or measure it, and for the
 * benchmarks. Not used by the server.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'homeport.js');
/** Linux's USER_HZ, the unit of /proc/<pid>/stat's times (100 on every architecture Node runs on). */
const CLOCK_TICKS_PER_SECOND = 100;
/** How much of the server's output an error message quotes. */
const OUTPUT_TAIL_CHARS = 16_384;

/** `homeport serve` flags that put its HTTP, TCP and TCP-over-TLS listeners on free ports. */
export const FREE_PORT_FLAGS: readonly string[] = ['--http-port', '0', '--tcp-port', '0', '--tcp-tls-port', '0'];

export interface ServeOptions {
  dataDir: string;
  /** More `serve` flags; one named here replaces its default (the last of a flag wins). */
  args?: readonly string[];
  /** Added to this process's environment. */
  env?: Record<string, string>;
  /** Flags for node itself, before the script (e.g. `--max-old-space-size=256`). */
  nodeFlags?: readonly string[];
  /** Its log level (default warn); HOMEPORT_TEST_LOG, when set, overrides it and echoes its output here. */
  logLevel?: string;
  /** The HTTP listener's address (default 127.0.0.1) and port (default a free one, chosen by the server). */
  host?: string;
  httpPort?: number;
  /**
   * Makes `http://host:port` its public URL (its federation identity), so other servers reach it where it
   * listens; a free port is chosen first when none is given.
   */
  publicUrl?: boolean;
  /** Echo the server's output to this process's stderr (benchmarks: a crash shows). */
  echo?: boolean;
}

export interface ServeProcess {
  child: ChildProcess;
  dataDir: string;
  /** The event-log TCP port. */
  tcpPort: number;
  /** The HTTP listener: `http://127.0.0.1:port`, and its port. */
  httpUrl: string;
  httpPort: number;
  /** The gRPC listener's port and connection string (without credentials), when it runs. */
  grpc: { port: number; connectionString: string } | null;
  /** Settles when the process has exited. */
  ended: Promise<void>;
  /** Why it ended, once it has: the exit code or signal. */
  exitStatus: string | null;
  /** Resident memory now and at its peak, in bytes; null once the process is gone. */
  memory(): { now: number; peak: number } | null;
  /** Resident memory now in bytes; null once the process is gone. */
  rss(): number | null;
  /** CPU time the server process used so far (user and system, all its threads), in seconds. */
  cpuSeconds(): number;
  /** Runs `homeport <args> --data-dir <its data dir>` (an admin command) and returns its standard output. */
  cli(args: readonly string[], input?: string): string;
  /** A social user with a token of the read, write and follow scopes, made through the CLI; returns the token. */
  createUser(username: string): string;
  /** Stops it (SIGTERM: in order; SIGKILL: as a crash would) and waits for its end. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** A free TCP port on `address` (for a server that must be told its port, so its public URL can name it). */
async function freePort(address: string): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, address, resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function memoryOf(pid: number): { now: number; peak: number } | null {
  let status: string;
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  return { now: kib('VmRSS'), peak: kib('VmHWM') };
}

/**
 * Starts `homeport serve` on `options.dataDir` (made when missing): event-log TCP and HTTP on free loopback
 * ports, no TLS nor gRPC listener (`args: ['--grpc-port', '0']` asks for one), warnings only. Resolves once every listener is up (the server prints them all before
 * its data directory line); rejects, quoting its output, if it exits first.
 */
export async function startServeProcess(options: ServeOptions): Promise<ServeProcess> {
  const host = options.host ?? '127.0.0.1';
  const httpPort = options.httpPort ?? (options.publicUrl ? await freePort(host) : 0);
  const logLevel = process.env.HOMEPORT_TEST_LOG ?? options.logLevel ?? 'warn';
  const echo = options.echo || process.env.HOMEPORT_TEST_LOG !== undefined;
  fs.mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const args = ['serve', '--data-dir', options.dataDir, '--host', host, '--http-port', String(httpPort)];
  args.push('--tcp-port', '0', '--tcp-tls-port', 'off', '--grpc-port', 'off', '--log-level', logLevel);
  if (options.publicUrl) args.push('--public-url', `http://${host}:${httpPort}`);
  args.push(...(options.args ?? []));
  const env = { ...process.env, ...options.env };
  const child = spawn(process.execPath, [...(options.nodeFlags ?? []), BIN, ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });

  let output = '';
  const listened = new Promise<Pick<ServeProcess, 'tcpPort' | 'httpUrl' | 'httpPort' | 'grpc'>>((resolve, reject) => {
    let ready = false;
    let stdout = '';
    // Both streams are read to the end: a full pipe would block the server's writes.
    const keep = (chunk: Buffer) => {
      output = (output + chunk).slice(-OUTPUT_TAIL_CHARS);
      if (echo) process.stderr.write(chunk);
    };
    child.stderr!.on('data', keep);
    child.stdout!.on('data', (chunk: Buffer) => {
      keep(chunk);
      if (ready) return;
      stdout += chunk;
      if (!/^data directory /m.test(stdout)) return;
      ready = true;
      const tcp = /^eventlog tcp listening on \S+:(\d+)$/m.exec(stdout);
      const http = /^http listening on (http:\/\/\S+:(\d+))$/m.exec(stdout);
      const grpc = /^eventlog grpc listening on \S+:(\d+) \((\S+)\)$/m.exec(stdout);
      if (!tcp || !http) return reject(new Error(`homeport serve started without TCP or HTTP:\n${stdout}`));
      resolve({
        tcpPort: Number(tcp[1]),
        httpUrl: http[1],
        httpPort: Number(http[2]),
        grpc: grpc ? { port: Number(grpc[1]), connectionString: grpc[2] } : null,
      });
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`homeport serve exited (${signal ?? code}) before listening\n${output}`)),
    );
  });
  const ended = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const listeners = await listened;

  const proc: ServeProcess = {
    child,
    dataDir: options.dataDir,
    ...listeners,
    ended,
    exitStatus: null,
    memory: () => (proc.exitStatus === null ? memoryOf(child.pid!) : null),
    rss: () => proc.memory()?.now ?? null,
    cpuSeconds() {
      // Fields 14 and 15 of /proc/<pid>/stat (after the command's closing parenthesis): clock ticks.
      const stat = fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
    },
    cli: (cliArgs, input) =>
      execFileSync(process.execPath, [BIN, ...cliArgs, '--data-dir', options.dataDir], {
        cwd: ROOT,
        encoding: 'utf8',
        input,
        env,
      }),
    createUser(username) {
      proc.cli(
        ['accounts', 'create', username, '--email', `${username}@example.org`, '--password-stdin', '--confirmed'],
        `${username}-long-test-password\n`,
      );
      const created = proc.cli(['tokens', 'create', username, '--scopes', 'read write follow']);
      const token = /([A-Za-z0-9_-]{30,})/.exec(created)?.[1];
      if (!token) throw new Error(`no token in the output of "homeport tokens create": ${created}`);
      return token;
    },
    async stop(signal = 'SIGTERM') {
      if (proc.exitStatus !== null) return;
      child.kill(signal);
      await ended;
    },
  };
  child.once('exit', (code, signal) => {
    proc.exitStatus = signal ?? String(code);
  });
  return proc;
}

/** Samples `proc`'s resident memory until stopped; `peak` is the largest seen. */
export function sampleMemory(proc: ServeProcess, everyMs = 50): { peak(): number; stop(): void } {
  let peak = proc.rss() ?? 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, proc.rss() ?? 0);
  }, everyMs);
  return {
    peak: () => peak,
    stop: () => clearInterval(timer),
  };
}

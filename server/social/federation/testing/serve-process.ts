import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/*
 * A `homeport serve` in a process of its own, as a user runs it: what kills it shows as its exit, and its
 * memory is its own (read from /proc). Accounts and tokens come from the CLI, everything else goes over HTTP.
 */

const BIN = path.resolve(import.meta.dirname, '..', '..', '..', '..', 'bin', 'homeport.js');

/** Linux's USER_HZ, the unit of /proc/<pid>/stat's times (100 on every architecture Node runs on). */
const CLOCK_TICKS_PER_SECOND = 100;

export interface ServeProcess {
  /** `http://127.0.0.1:port` (or the address given). */
  url: string;
  dataDir: string;
  child: ChildProcess;
  /** Why it ended, once it has: the exit code or signal. */
  exited: string | null;
  /** Resident memory of the server process now, in bytes (null once it is gone). */
  rss(): number | null;
  /** CPU time the server process used so far (user and system, all its threads), in seconds. */
  cpuSeconds(): number;
  /** A user with a token of every scope, made through the CLI. */
  createUser(username: string): string;
  /** Stops it (SIGTERM: in order; SIGKILL: as a crash would) and waits for its end. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** A free TCP port on `address` (the server is told its port, so its public URL can name it). */
export async function freePort(address: string): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, address, resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts `homeport serve` on `address:port` over `dataDir` (made when missing); resolves once it listens. */
export async function startServeProcess(options: {
  dataDir: string;
  address?: string;
  port?: number;
  env?: Record<string, string>;
  /** Its log level (default warn); its log goes to this process's stdout when HOMEPORT_TEST_LOG is set. */
  logLevel?: string;
}): Promise<ServeProcess> {
  const address = options.address ?? '127.0.0.1';
  const port = options.port ?? (await freePort(address));
  const url = `http://${address}:${port}`;
  fs.mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const args = [
    BIN,
    'serve',
    '--data-dir',
    options.dataDir,
    '--host',
    address,
    '--http-port',
    String(port),
    '--tcp-port',
    '0',
    '--tcp-tls-port',
    'off',
    '--public-url',
    url,
    '--log-level',
    process.env.HOMEPORT_TEST_LOG ?? options.logLevel ?? 'warn',
  ];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const proc: ServeProcess = {
    url,
    dataDir: options.dataDir,
    child,
    exited: null,
    rss() {
      if (proc.exited !== null) return null;
      try {
        const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
        const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
        return kb ? Number(kb) * 1024 : null;
      } catch {
        return null;
      }
    },
    cpuSeconds() {
      // Fields 14 and 15 of /proc/<pid>/stat (after the command's closing parenthesis): clock ticks.
      const stat = fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
    },
    createUser(username) {
      const cli = (cliArgs: string[], input?: string) =>
        execFileSync(process.execPath, [BIN, ...cliArgs, '--data-dir', options.dataDir], {
          encoding: 'utf8',
          input,
          env: { ...process.env, ...options.env },
        });
      cli(
        ['accounts', 'create', username, '--email', `${username}@example.org`, '--password-stdin', '--confirmed'],
        `${username}-long-test-password\n`,
      );
      return /([A-Za-z0-9_-]{30,})/.exec(cli(['tokens', 'create', username, '--scopes', 'read write follow']))![1];
    },
    async stop(signal = 'SIGTERM') {
      if (proc.exited !== null) return;
      const ended = new Promise((resolve) => child.once('exit', resolve));
      child.kill(signal);
      await ended;
    },
  };
  child.once('exit', (code, signal) => {
    proc.exited = signal ?? String(code);
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      if (out.includes('http listening on')) resolve();
      if (process.env.HOMEPORT_TEST_LOG) process.stderr.write(chunk);
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`homeport serve exited (${signal ?? code}) before listening`)),
    );
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

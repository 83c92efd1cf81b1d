/**
 * Start time and memory at rest (`npm run bench:startup`): starts `homeport serve` on a warm data directory
 * N times and prints, per run, the time from spawn to the first answer over TCP (EventStoreDB ping), HTTP
 * (GET /api/v1/instance) and gRPC (ServerFeatures over TLS), the CPU the process spent to get there, its RSS
 * once answering and after idling. The ceiling comes from the same run: node's own start (`node -e 0`) and a
 * bare `node:http` server's start and RSS. Then the CLI: `--help` and an admin command, wall and CPU. Each `homeport`
 * figure twice: from the TypeScript sources (as the tests run them) and from the prebuilt bundle users run
 * (dist/server, built first when it is not current).
 *
 *   STARTUP_RUNS=5 STARTUP_IDLE_SECONDS=30 node bench/startup.ts
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
// @ts-expect-error: plain JavaScript module without type declarations
import { buildServer } from '../scripts/build-server.mjs';
import { currentServerBundle } from '../bin/server-bundle.js';
import { FREE_PORT_FLAGS } from '../server/testing/serve-process.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const RUNS = Number(process.env.STARTUP_RUNS ?? 5);
const IDLE_SECONDS = Number(process.env.STARTUP_IDLE_SECONDS ?? 30);
const DEADLINE_MS = 60_000;
const CLK_TCK = 100; // Linux's USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s

interface Proc {
  child: ChildProcess;
  startedAt: number;
  out: string;
}

function launch(args: string[], env: NodeJS.ProcessEnv = process.env): Proc {
  const startedAt = performance.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env });
  const proc: Proc = { child, startedAt, out: '' };
  child.stdout!.on('data', (d) => {
    proc.out += d;
  });
  child.stderr!.on('data', (d) => {
    proc.out += d;
  });
  return proc;
}

/** Resolves with the first match of `pattern` in the process's output; rejects if it exits or the deadline passes. */
function waitForOutput(proc: Proc, pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const m = pattern.exec(proc.out);
      if (!m) return;
      done();
      resolve(m);
    };
    const exited = (code: number | null) => {
      done();
      reject(new Error(`process exited (${code}) before printing ${pattern}: ${proc.out}`));
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`no ${pattern} within ${DEADLINE_MS} ms: ${proc.out}`));
    }, DEADLINE_MS);
    const done = () => {
      clearTimeout(timer);
      proc.child.stdout!.off('data', check);
      proc.child.stderr!.off('data', check);
      proc.child.off('exit', exited);
    };
    proc.child.stdout!.on('data', check);
    proc.child.stderr!.on('data', check);
    proc.child.once('exit', exited);
    check();
  });
}

async function stop(proc: Proc): Promise<void> {
  if (proc.child.exitCode !== null) return;
  const exited = new Promise((r) => proc.child.once('exit', r));
  proc.child.kill('SIGTERM');
  await exited;
}

function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

/** User + system CPU time of a live process, in ms. */
function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
}

/** EventStoreDB TCP: a Ping (0x03) answered by a Pong (0x04). */
function tcpPing(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const frame = Buffer.alloc(4 + 18);
    frame.writeUInt32LE(18, 0);
    frame[4] = 0x03;
    frame[5] = 0x00;
    Buffer.from(randomUUID().replaceAll('-', ''), 'hex').copy(frame, 6);
    let got = Buffer.alloc(0);
    socket.on('connect', () => socket.write(frame));
    socket.on('data', (d) => {
      got = Buffer.concat([got, d]);
      if (got.length < 5) return;
      socket.destroy();
      if (got[4] === 0x04) resolve();
      else reject(new Error(`TCP answered command 0x${got[4].toString(16)}, not Pong`));
    });
    socket.on('error', reject);
  });
}

function httpGet(port: number, pathname: string): Promise<void> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: pathname, agent: false }, (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`GET ${pathname} answered ${res.statusCode}`)),
        );
      })
      .on('error', reject);
  });
}

/** A unary gRPC call (ServerFeatures.GetSupportedMethods, an empty message) over TLS; resolves on grpc-status 0. */
function grpcServerFeatures(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`https://127.0.0.1:${port}`, { rejectUnauthorized: false });
    session.on('error', reject);
    const req = session.request({
      ':method': 'POST',
      ':path': '/event_store.client.server_features.ServerFeatures/GetSupportedMethods',
      'content-type': 'application/grpc',
      te: 'trailers',
    });
    req.on('trailers', (trailers) => {
      session.close();
      if (trailers['grpc-status'] === '0') resolve();
      else reject(new Error(`gRPC answered status ${trailers['grpc-status']} ${trailers['grpc-message'] ?? ''}`));
    });
    req.on('error', reject);
    req.resume();
    req.end(Buffer.alloc(5)); // uncompressed, zero-length message
  });
}

async function timed(startedAt: number, fn: () => Promise<void>): Promise<number> {
  await fn();
  return performance.now() - startedAt;
}

interface ServeRun {
  tcpMs: number;
  httpMs: number;
  grpcMs: number;
  cpuMs: number;
  rssMiB: number;
  idleRssMiB: number;
}

function serveArgs(dataDir: string, extra: string[] = []): string[] {
  return [
    ...extra,
    'bin/homeport.js',
    'serve',
    '--data-dir',
    dataDir,
    ...FREE_PORT_FLAGS,
    '--grpc-port',
    '0',
    '--log-level',
    'warn',
  ];
}

/** How `homeport` runs its server: the TypeScript sources, or the prebuilt bundle (dist/server). */
type ServerBuild = 'sources' | 'bundle';

function buildEnv(build: ServerBuild): NodeJS.ProcessEnv {
  return { ...process.env, HOMEPORT_FROM_SOURCE: build === 'sources' ? '1' : '0' };
}

async function serveOnce(dataDir: string, idleSeconds: number, build: ServerBuild): Promise<ServeRun> {
  const proc = launch(serveArgs(dataDir), buildEnv(build));
  try {
    const listening = await waitForOutput(proc, /data directory /);
    const text = proc.out.slice(0, listening.index);
    const tcp = Number(/eventlog tcp listening on \S+:(\d+)/.exec(text)![1]);
    const httpPort = Number(/http listening on http:\/\/[^\s]+:(\d+)/.exec(text)![1]);
    const grpc = Number(/eventlog grpc listening on \S+:(\d+)/.exec(text)![1]);
    const [tcpMs, httpMs, grpcMs] = await Promise.all([
      timed(proc.startedAt, () => tcpPing(tcp)),
      timed(proc.startedAt, () => httpGet(httpPort, '/api/v1/instance')),
      timed(proc.startedAt, () => grpcServerFeatures(grpc)),
    ]);
    const pid = proc.child.pid!;
    const run: ServeRun = { tcpMs, httpMs, grpcMs, cpuMs: cpuMs(pid), rssMiB: rssMiB(pid), idleRssMiB: NaN };
    if (idleSeconds > 0) {
      await new Promise((r) => setTimeout(r, idleSeconds * 1000)); // idling is what is measured here
      run.idleRssMiB = rssMiB(pid);
    }
    return run;
  } finally {
    await stop(proc);
  }
}

/** The ceiling: a bare node:http server started the same way (spawn to first answer, its RSS). */
async function bareHttpOnce(): Promise<{ httpMs: number; cpuMs: number; rssMiB: number }> {
  const proc = launch([
    '-e',
    "require('node:http').createServer((q,s)=>s.end('ok')).listen(0,'127.0.0.1',function(){console.log('port '+this.address().port)})",
  ]);
  try {
    const m = await waitForOutput(proc, /port (\d+)/);
    const httpMs = await timed(proc.startedAt, () => httpGet(Number(m[1]), '/'));
    const pid = proc.child.pid!;
    return { httpMs, cpuMs: cpuMs(pid), rssMiB: rssMiB(pid) };
  } finally {
    await stop(proc);
  }
}

/** Wall ms and CPU ms (children's user + system) of one short command. */
function commandOnce(args: string[], env: NodeJS.ProcessEnv = process.env): { wallMs: number; cpuMs: number } {
  const childrenBefore = childrenCpuMs();
  const t = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', env });
  const wallMs = performance.now() - t;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { wallMs, cpuMs: childrenCpuMs() - childrenBefore };
}

/** CPU of finished children of this process (getrusage(RUSAGE_CHILDREN) via /proc/self/stat cutime+cstime). */
function childrenCpuMs(): number {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / CLK_TCK;
}

function range(values: number[], digits = 0): string {
  const finite = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (finite.length === 0) return 'n/a';
  const median = finite[Math.floor(finite.length / 2)];
  return `${median.toFixed(digits)} (${finite[0].toFixed(digits)}–${finite[finite.length - 1].toFixed(digits)})`;
}

function serveRows(label: string, serve: ServeRun[]): [string, string, string, string][] {
  return [
    [
      `${label}: TCP`,
      range(serve.map((r) => r.tcpMs)),
      range(serve.map((r) => r.cpuMs)),
      range(
        serve.map((r) => r.rssMiB),
        1,
      ),
    ],
    [`${label}: HTTP`, range(serve.map((r) => r.httpMs)), '', ''],
    [`${label}: gRPC`, range(serve.map((r) => r.grpcMs)), '', ''],
    [
      `${label} after ${IDLE_SECONDS} s idle`,
      '',
      '',
      range(
        serve.map((r) => r.idleRssMiB),
        1,
      ),
    ],
  ];
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-startup-'));
  try {
    // The bundle users run (npm run build:server); built here when missing or older than the sources.
    if (!currentServerBundle(ROOT, {})) await buildServer();
    if (!currentServerBundle(ROOT, {})) throw new Error('dist/server is not current after building it');
    console.log(`startup: ${RUNS} runs on a warm data directory, idle ${IDLE_SECONDS} s; ${os.cpus().length} cores`);
    console.log(
      `load average at start: ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    console.log('(median (min–max); ms from spawn; CPU = user + system of the process until it answered)');
    console.log(
      "sources = the TypeScript files through Node's type stripping (HOMEPORT_FROM_SOURCE=1, as the tests run);",
    );
    console.log('bundle = dist/server, the prebuilt bundle `homeport` runs when it is current\n');
    // Warm: the first start creates the databases, keys and certificates.
    await serveOnce(dataDir, 0, 'bundle');

    const nodeStart = Array.from({ length: RUNS }, () => commandOnce(['-e', '0']));
    const bare = [];
    for (let i = 0; i < RUNS; i++) bare.push(await bareHttpOnce());
    // Alternating, so both see the same load.
    const serve: Record<ServerBuild, ServeRun[]> = { sources: [], bundle: [] };
    for (let i = 0; i < RUNS; i++)
      for (const build of ['sources', 'bundle'] as const)
        serve[build].push(await serveOnce(dataDir, IDLE_SECONDS, build));

    const rows: [string, string, string, string][] = [
      ['', 'first answer ms', 'CPU ms', 'RSS MiB'],
      ['node -e 0 (ceiling)', range(nodeStart.map((r) => r.wallMs)), range(nodeStart.map((r) => r.cpuMs)), ''],
      [
        'bare node:http (ceiling)',
        range(bare.map((r) => r.httpMs)),
        range(bare.map((r) => r.cpuMs)),
        range(
          bare.map((r) => r.rssMiB),
          1,
        ),
      ],
      ...serveRows('serve (sources)', serve.sources),
      ...serveRows('serve (bundle)', serve.bundle),
    ];
    for (const [label, ...cells] of rows) console.log(`${label.padEnd(40)} ${cells.map((c) => c.padEnd(20)).join('')}`);

    const cliRows: [string, string[]][] = [
      ['homeport --help', ['bin/homeport.js', '--help']],
      ['homeport eventlog users list', ['bin/homeport.js', 'eventlog', 'users', 'list', '--data-dir', dataDir]],
      ['homeport rules list', ['bin/homeport.js', 'rules', 'list', '--data-dir', dataDir]],
    ];
    console.log(`\n${'CLI'.padEnd(40)} ${'wall ms'.padEnd(20)}${'CPU ms'.padEnd(20)}`);
    for (const [label, args] of cliRows) {
      for (const build of ['sources', 'bundle'] as const) {
        const runs = Array.from({ length: RUNS }, () => commandOnce(args, buildEnv(build)));
        console.log(
          `${`${label} (${build})`.padEnd(40)} ${range(runs.map((r) => r.wallMs)).padEnd(20)}${range(runs.map((r) => r.cpuMs)).padEnd(20)}`,
        );
      }
    }
    console.log(
      `load average at the end: ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();

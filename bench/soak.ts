/**
 * Soak (`npm run bench:soak`): `homeport serve` in its own process under both of its loads at once, for
 * SOAK_MINUTES (default 30):
 * - event log: 50 TCP clients appending SOAK_RATE events/s (default 50) in all, 50 TCP clients subscribed to $all
 *   and SOAK_EVENTLOG_SOCKETS (default 1,000) WebSockets tailing $all through the UI API;
 * - social: SOAK_SOCIAL_SOCKETS (default 1,000) streaming WebSockets on four accounts (home, public:local, public,
 *   notifications), SOAK_POSTS (default 20) statuses/s from two accounts, and SOAK_CREATES (default 20) signed
 *   Creates/s POSTed to the shared inbox by a remote server the bench runs.
 * Each kind of client runs in a process of its own (bench/soak-eventlog-tcp.ts, soak-eventlog-sockets.ts,
 * soak-social.ts). Every minute the table gets the server's resident memory, its heap after a full collection, its
 * CPU and main-thread busy share over the minute (its headroom) and the load average. Growth of RSS and heap from
 * the end of the warm-up (SOAK_WARMUP_MINUTES, by default until the status caches are full: 10 minutes at the
 * default rates) to the last sample under load must stay under 5%, and every subscriber and socket must get every
 * event it should.
 * SOAK_HEAP_SNAPSHOTS=10,25 writes heap snapshots at those minutes (into SOAK_SNAPSHOT_DIR, default the temp dir;
 * a snapshot pauses the server for seconds, so such a run is a diagnosis, not a pass).
 *   SOAK_MINUTES=3 npm run bench:soak
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServeProcess } from '../server/testing/serve-process.ts';
import { freeLoopbackPort, inspectHeap } from './soak-inspector.ts';
import { memorySplit } from './soak-memory.ts';
import { startWorker, type Worker } from './soak-ipc.ts';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const MINUTES = env('SOAK_MINUTES', 30);
const SAMPLE_MS = env('SOAK_SAMPLE_SECONDS', 60) * 1000;
const SOCKETS = env('SOAK_EVENTLOG_SOCKETS', 1000);
const SOCIAL_SOCKETS = env('SOAK_SOCIAL_SOCKETS', 1000);
const WRITERS = 50;
const SUBSCRIBERS = 50;
/** Events per second over all writers: every one fans out to every event-log subscriber and socket. */
const RATE = env('SOAK_RATE', 50);
const POSTS = env('SOAK_POSTS', 20);
const CREATES = env('SOAK_CREATES', 20);
/**
 * The warm-up ends when the last of the server's caches that keep an entry per status is full: the status parts
 * (STATUS_PARTS_ENTRIES, server/social/entities/status-fixed-parts.ts) fill at POSTS + CREATES statuses/s (20,000
 * at 40/s: 8.3 minutes); the listings' rows (10,000) fill in half that. Everything else the server holds is either
 * taken at start (the event log's idempotency window, 8.5 MB) or per connection. So: the fill's minutes rounded up,
 * plus one (10 at the default rates), in a run at least twice as long; else a fifth of the run (at least 1).
 */
const STATUS_PARTS_ENTRIES = 20_000;
const fillMinutes = STATUS_PARTS_ENTRIES / (POSTS + CREATES) / 60;
const filledWarmup = Math.ceil(fillMinutes) + 1;
const longRun = MINUTES >= 2 * filledWarmup;
const WARMUP_MINUTES = env('SOAK_WARMUP_MINUTES', longRun ? filledWarmup : Math.max(1, Math.floor(MINUTES / 5)));
const warmupReason =
  process.env.SOAK_WARMUP_MINUTES !== undefined
    ? 'SOAK_WARMUP_MINUTES'
    : `the status parts' ${STATUS_PARTS_ENTRIES} entries fill at ${POSTS + CREATES} statuses/s in ` +
      `${fillMinutes.toFixed(1)} min${longRun ? ', plus a minute' : '; a short run: a fifth of it'}`;
/**
 * Scheduling priorities (nice values, -20 to 19; below 0 needs root). Linux shares the CPUs between sessions
 * first (autogroups) and only then by nice within each: SOAK_GROUP_NICE sets the soak's session's share (run it as
 * `setsid npm run bench:soak` so the session is the soak's alone), SOAK_SERVER_NICE and SOAK_CLIENT_NICE the
 * server's and the clients' within it. On a machine other jobs load, a run at 0 measures the machine rather than
 * the server.
 */
const GROUP_NICE = process.env.SOAK_GROUP_NICE;
const SERVER_NICE = env('SOAK_SERVER_NICE', 0);
const CLIENT_NICE = env('SOAK_CLIENT_NICE', 0);
if (GROUP_NICE !== undefined) fs.writeFileSync('/proc/self/autogroup', GROUP_NICE);
const SNAPSHOT_MINUTES = (process.env.SOAK_HEAP_SNAPSHOTS ?? '').split(',').filter(Boolean).map(Number);
const SNAPSHOT_DIR = process.env.SOAK_SNAPSHOT_DIR ?? os.tmpdir();
const MAX_GROWTH_PERCENT = 5;
if (!(WARMUP_MINUTES < MINUTES)) throw new Error('SOAK_WARMUP_MINUTES must be shorter than SOAK_MINUTES');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-soak-'));
const inspectorPort = await freeLoopbackPort();
const server = await startServeProcess({
  dataDir,
  args: ['--tcp-max-connections', '2000'],
  // The remote server is on loopback; two accounts posting 20/s is past what the rate limits let one person do.
  env: { HOMEPORT_TEST_PRIVATE_NETWORK: '1', HOMEPORT_BENCH_NO_RATE_LIMIT: '1' },
  // The inspector reads the heap after a collection (RSS alone mixes in what the allocator keeps).
  nodeFlags: [`--inspect=127.0.0.1:${inspectorPort}`],
  publicUrl: true,
  echo: true,
});
/** Linux keeps a priority per thread: every thread of `pid` gets it (threads started later inherit their starter's). */
const renice = (pid: number, nice: number) => {
  for (const thread of fs.readdirSync(`/proc/${pid}/task`)) os.setPriority(Number(thread), nice);
};
renice(server.child.pid!, SERVER_NICE);
const workers: Worker[] = [];
// A set-up that throws leaves no server nor worker behind (a passed or failed run has stopped them already).
process.once('exit', () => {
  if (server.exitStatus === null) server.child.kill('SIGKILL');
  for (const w of workers) w.kill();
  fs.rmSync(dataDir, { recursive: true, force: true });
});
const heap = await inspectHeap(inspectorPort);
const { tcpPort, httpUrl } = server;

// The CLI runs synchronously here, before any client connects.
const password = crypto.randomBytes(12).toString('hex');
server.cli(['eventlog', 'users', 'add', 'soak', '--group', '$admins', '--password-stdin'], `${password}\n`);
const tokens = Object.fromEntries(
  ['alice', 'bob', 'carol', 'dave', 'erin'].map((name) => [name, server.createUser(name)]),
);
const session = (await (
  await fetch(`${httpUrl}/api/homeport/v1/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'soak', password }),
  })
).json()) as { token: string };

const tcp = startWorker('event-log TCP clients', './soak-eventlog-tcp.ts');
const uiSockets = startWorker('event-log UI sockets', './soak-eventlog-sockets.ts');
const social = startWorker('social clients', './soak-social.ts');
workers.push(tcp, uiSockets, social);
for (const w of workers) renice(w.pid, CLIENT_NICE);
await Promise.all([
  social.call('setup', { httpUrl, tokens, sockets: SOCIAL_SOCKETS, postsPerSecond: POSTS, createsPerSecond: CREATES }),
  tcp.call('setup', { tcpPort, username: 'soak', password, writers: WRITERS, subscribers: SUBSCRIBERS, rate: RATE }),
  uiSockets.call('setup', { httpUrl, token: session.token, sockets: SOCKETS }),
]);

interface TcpStatus {
  written: number;
  errors: number;
  dropped: number;
  lastError: string;
  cpuSeconds: number;
}
interface SocketsStatus {
  errors: number;
  skipped: number;
  cpuSeconds: number;
}
interface SocialStatus {
  posts: number;
  creates: number;
  errors: number;
  lastError: string;
  cpuSeconds: number;
}
interface Deliveries {
  complete: number;
  missing: number;
  extra: number;
}
const statuses = async () => {
  const [t, u, s] = await Promise.all([
    tcp.call<TcpStatus>('status'),
    uiSockets.call<SocketsStatus>('status'),
    social.call<SocialStatus>('status'),
  ]);
  return { tcp: t, ui: u, social: s };
};

interface Sample {
  minute: number;
  rssMB: number;
  heapMB: number;
  /**
   * RSS split (bench/soak-memory.ts), after the collection: V8's heap as committed (heapTotal), memory V8 is told
   * of outside it (external, arrayBuffers among it), then by mapping: the main malloc arena (brk), glibc's thread
   * arenas (MB and count), thread stacks and threads, SQLite's mapped files (-shm), code, the other anonymous
   * memory (V8's heap among it, large mallocs), and the SQLite files' sizes on disk.
   */
  v8MB: number;
  externalMB: number;
  arrayBuffersMB: number;
  brkMB: number;
  arenasMB: number;
  arenas: number;
  stacksMB: number;
  threads: number;
  shmMB: number;
  codeMB: number;
  otherAnonMB: number;
  socialDbMB: number;
  socialWalMB: number;
  eventlogDbMB: number;
  eventlogWalMB: number;
  /** The server's CPU time over the interval per second of it (all its threads; 100 = one core). */
  serverCpuPct: number;
  /** The share of the interval the server's main thread was busy (100 = no headroom left). */
  mainThreadBusyPct: number;
  /**
   * The share of the interval the main thread waited for a CPU, runnable (Linux's schedstat): what other jobs on
   * the machine took from it. Busy minus running minus waiting is time blocked (disk).
   */
  mainThreadWaitPct: number;
  /** The clients' CPU (all three workers) over the interval, as serverCpuPct. */
  clientsCpuPct: number;
  load1: number;
  events: number;
  posts: number;
  creates: number;
  /** Failed requests and dropped connections or subscriptions so far, all clients. */
  errors: number;
}
const samples: Sample[] = [];
const MB = (bytes: number) => Math.round(bytes / 1e5) / 10;
type Statuses = Awaited<ReturnType<typeof statuses>>;
const clientCpu = (s: Statuses) => s.tcp.cpuSeconds + s.ui.cpuSeconds + s.social.cpuSeconds;
const errorsIn = (s: Statuses) => s.tcp.errors + s.tcp.dropped + s.ui.errors + s.ui.skipped + s.social.errors;

/** The server's main thread: nanoseconds on a CPU and waiting for one, so far. */
const mainThreadSchedule = () => {
  const [running, waiting] = fs.readFileSync(`/proc/${server.child.pid}/schedstat`, 'utf8').split(' ').map(Number);
  return { running, waiting };
};
const startStatus = await statuses();
let last = {
  at: performance.now(),
  serverCpu: server.cpuSeconds(),
  loop: await heap.eventLoop(),
  schedule: mainThreadSchedule(),
  clientCpu: clientCpu(startStatus),
};
const sample = async () => {
  const at = performance.now();
  const serverCpu = server.cpuSeconds();
  const loop = await heap.eventLoop();
  const schedule = mainThreadSchedule();
  const status = await statuses();
  const seconds = (at - last.at) / 1000;
  const busyMs = loop.active - last.loop.active;
  const totalMs = busyMs + loop.idle - last.loop.idle;
  const heapMB = MB(await heap.usedAfterGc());
  const usage = await heap.memoryUsage();
  const split = memorySplit(server.child.pid!, dataDir);
  const s: Sample = {
    minute: Math.round(((at - started) / 60_000) * 10) / 10,
    rssMB: MB(server.rss() ?? 0),
    heapMB,
    v8MB: MB(usage.heapTotal),
    externalMB: MB(usage.external),
    arrayBuffersMB: MB(usage.arrayBuffers),
    brkMB: MB(split.brkHeap),
    arenasMB: MB(split.arenas),
    arenas: split.arenaCount,
    stacksMB: MB(split.stacks),
    threads: split.threads,
    shmMB: MB(split.sqliteFiles),
    codeMB: MB(split.code),
    otherAnonMB: MB(split.otherAnon),
    socialDbMB: MB(split.files['social.db'] ?? 0),
    socialWalMB: MB(split.files['social.db-wal'] ?? 0),
    eventlogDbMB: MB(split.files['eventlog.db'] ?? 0),
    eventlogWalMB: MB(split.files['eventlog.db-wal'] ?? 0),
    serverCpuPct: Math.round(((serverCpu - last.serverCpu) / seconds) * 100),
    mainThreadBusyPct: totalMs > 0 ? Math.round((busyMs / totalMs) * 100) : 0,
    mainThreadWaitPct: Math.round((schedule.waiting - last.schedule.waiting) / seconds / 1e7),
    clientsCpuPct: Math.round(((clientCpu(status) - last.clientCpu) / seconds) * 100),
    load1: Math.round(os.loadavg()[0] * 10) / 10,
    events: status.tcp.written,
    posts: status.social.posts,
    creates: status.social.creates,
    errors: errorsIn(status),
  };
  last = { at, serverCpu, loop, schedule, clientCpu: clientCpu(status) };
  samples.push(s);
  console.log(`soak ${JSON.stringify(s)}`);
};
// Minute 0 (its CPU columns are the set-up's), then the load starts.
const started = performance.now();
await sample();
await Promise.all([tcp.call('start'), social.call('start')]);
// Samples at whole minutes from the start (a slow sample does not shift the next ones).
for (let minute = 1; minute <= MINUTES; minute++) {
  const wait = started + minute * SAMPLE_MS - performance.now();
  if (wait > 0) await sleep(wait);
  await sample();
  if (SNAPSHOT_MINUTES.includes(minute)) {
    const file = path.join(SNAPSHOT_DIR, `homeport-soak-minute-${minute}.heapsnapshot`);
    await heap.snapshot(file);
    console.log(`soak: heap snapshot ${file}`);
  }
}
// The last sample was under load: now the writers and posters stop and the last deliveries arrive.
const [written] = await Promise.all([tcp.call<number>('stop'), social.call('stop')]);
const deliveries = () =>
  Promise.all([
    tcp.call<Deliveries>('deliveries', written),
    uiSockets.call<Deliveries>('deliveries', written),
    social.call<boolean>('complete'),
  ]);
// A deadline only to fail instead of waiting for ever.
const deadline = performance.now() + 60_000;
let [tcpDelivered, uiDelivered, socialComplete] = await deliveries();
while (
  !(tcpDelivered.complete === SUBSCRIBERS && uiDelivered.complete === SOCKETS && socialComplete) &&
  performance.now() < deadline
) {
  await sleep(500);
  [tcpDelivered, uiDelivered, socialComplete] = await deliveries();
}
const socialMissing = await social.call<object[]>('missing');
const end = await statuses();

const warm = samples.find((s) => s.minute >= WARMUP_MINUTES) ?? samples[samples.length - 1];
const final = samples[samples.length - 1];
const growth = (from: number, to: number) => Math.round(((to - from) / from) * 1000) / 10;
const rssGrowth = growth(warm.rssMB, final.rssMB);
const heapGrowth = growth(warm.heapMB, final.heapMB);
const loaded = samples.slice(1);
const range = (values: number[]) => `${Math.min(...values)}–${Math.max(...values)}`;
const errors = errorsIn(end);

console.log(
  `\nsoak: ${MINUTES} min on ${os.cpus().length} cores; ${fs.readFileSync('/proc/self/autogroup', 'utf8').trim()}, ` +
    `within it the server at nice ${SERVER_NICE}, the clients at ${CLIENT_NICE}; ` +
    'load average each minute in the table (load1)',
);
console.table(samples);
console.log(
  `warm-up: the first ${WARMUP_MINUTES} min (${warmupReason}; the samples before minute ${WARMUP_MINUTES} are not ` +
    `judged); growth from ` +
    `minute ${warm.minute} to minute ${final.minute}: RSS ${warm.rssMB} → ${final.rssMB} MB ${rssGrowth}%, heap after ` +
    `a full collection ${warm.heapMB} → ${final.heapMB} MB ${heapGrowth}% (bound ${MAX_GROWTH_PERCENT}% each); ` +
    `peak RSS ${server.memory()?.peak ? MB(server.memory()!.peak) : '?'} MB`,
);
console.log(
  `server under the full load (minutes 1–${final.minute}): CPU ${range(loaded.map((s) => s.serverCpuPct))}% of a core, ` +
    `main thread busy ${range(loaded.map((s) => s.mainThreadBusyPct))}% of the time, waiting for a CPU ` +
    `${range(loaded.map((s) => s.mainThreadWaitPct))}%; clients ` +
    `${range(loaded.map((s) => s.clientsCpuPct))}% of a core; load average ${range(samples.map((s) => s.load1))}`,
);
console.log(
  `event log: ${written} events (${RATE}/s asked); TCP subscribers with every one ${tcpDelivered.complete}/${SUBSCRIBERS} ` +
    `(missing ${tcpDelivered.missing}, extra ${tcpDelivered.extra}); UI WebSockets ${uiDelivered.complete}/${SOCKETS} ` +
    `(missing ${uiDelivered.missing}, extra ${uiDelivered.extra}, skipped notices ${end.ui.skipped})`,
);
console.log(
  `social: ${end.social.posts} posts (${POSTS}/s asked), ${end.social.creates} remote Creates taken (202; ${CREATES}/s ` +
    'asked); per group of streaming sockets:',
);
console.table(socialMissing);
console.log(
  `errors: event-log TCP ${end.tcp.errors} (dropped connections ${end.tcp.dropped}) ${end.tcp.lastError}; UI sockets ` +
    `${end.ui.errors}; social ${end.social.errors} ${end.social.lastError}`,
);
// Judged before closing: closing fires every client's dropped handler.
const ok =
  errors === 0 &&
  tcpDelivered.complete === SUBSCRIBERS &&
  uiDelivered.complete === SOCKETS &&
  socialComplete &&
  rssGrowth < MAX_GROWTH_PERCENT &&
  heapGrowth < MAX_GROWTH_PERCENT;
await Promise.all(workers.map((w) => w.call('close')));
for (const w of workers) w.kill();
heap.close();
await server.stop();
fs.rmSync(dataDir, { recursive: true, force: true });
console.log(
  ok
    ? `soak passed: no error, every event delivered, RSS and heap growth after the warm-up under ${MAX_GROWTH_PERCENT}%`
    : 'SOAK FAILED',
);
process.exit(ok ? 0 : 1);

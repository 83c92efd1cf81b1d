/**
 * Soak (`npm run bench:soak`): `homeport serve` in its own process under both of its loads at once, for
 * SOAK_MINUTES (default 30; a quiet machine's run):
 * - event log: 50 TCP clients appending SOAK_RATE events/s (default 50) in all, 50 TCP clients subscribed to $all
 *   and SOAK_EVENTLOG_SOCKETS (default 1,000) WebSockets tailing $all through the UI API;
 * - social: SOAK_SOCIAL_SOCKETS (default 1,000) streaming WebSockets on four accounts (home, public:local, public,
 *   notifications), SOAK_POSTS (default 20) statuses/s from two accounts, and SOAK_CREATES (default 20) signed
 *   Creates/s POSTed to the shared inbox by a remote server the bench runs.
 * The server's resident memory is sampled every minute and printed as a table; its growth from the end of the
 * warm-up (SOAK_WARMUP_MINUTES, default a tenth of the run, at least 1) to the end must stay under 5%, and every
 * subscriber and socket must get every event it should (missing ones are counted per socket and reported).
 *   SOAK_MINUTES=3 npm run bench:soak
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { startServeProcess } from '../server/testing/serve-process.ts';
import { startSocialLoad } from './soak-social.ts';
import { es } from './support.ts';

const quietLog = { debug() {}, info() {}, error() {} };
const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const MINUTES = env('SOAK_MINUTES', 30);
const WARMUP_MINUTES = env('SOAK_WARMUP_MINUTES', Math.max(1, Math.round(MINUTES / 10)));
const SAMPLE_MS = env('SOAK_SAMPLE_SECONDS', 60) * 1000;
const SOCKETS = env('SOAK_EVENTLOG_SOCKETS', 1000);
const SOCIAL_SOCKETS = env('SOAK_SOCIAL_SOCKETS', 1000);
const WRITERS = 50;
const SUBSCRIBERS = 50;
/** Events per second over all writers: every one fans out to every event-log subscriber and socket. */
const RATE = env('SOAK_RATE', 50);
const MAX_GROWTH_PERCENT = 5;
if (!(WARMUP_MINUTES < MINUTES)) throw new Error('SOAK_WARMUP_MINUTES must be shorter than SOAK_MINUTES');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-soak-'));
const server = await startServeProcess({
  dataDir,
  args: ['--tcp-max-connections', '2000'],
  // The remote server is on loopback; two accounts posting 20/s is past what the rate limits let one person do.
  env: { HOMEPORT_TEST_PRIVATE_NETWORK: '1', HOMEPORT_BENCH_NO_RATE_LIMIT: '1' },
  publicUrl: true,
  echo: true,
});
// A set-up that throws leaves no server behind (a passed or failed run has stopped it already).
process.once('exit', () => {
  if (server.exitStatus === null) server.child.kill('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});
const { tcpPort, httpUrl } = server;
const rss = () => server.rss() ?? 0;
const password = crypto.randomBytes(12).toString('hex');
server.cli(['eventlog', 'users', 'add', 'soak', '--group', '$admins', '--password-stdin'], `${password}\n`);
const session = (await (
  await fetch(`${httpUrl}/api/homeport/v1/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'soak', password }),
  })
).json()) as { token: string };

// First: its set-up runs the CLI synchronously, which would hold up the event-log clients' heartbeats.
const social = await startSocialLoad(server, {
  sockets: SOCIAL_SOCKETS,
  postsPerSecond: env('SOAK_POSTS', 20),
  createsPerSecond: env('SOAK_CREATES', 20),
});

let errors = 0;
const credentials = new es.UserCredentials('soak', password);
async function connect(name: string) {
  const c = es.createConnection(
    { log: quietLog, defaultUserCredentials: credentials },
    `tcp://127.0.0.1:${tcpPort}`,
    name,
  );
  c.on('error', () => errors++);
  const connected = new Promise<void>((resolve) => c.once('connected', () => resolve()));
  await c.connect();
  await connected;
  return c;
}

const tcpReceived = new Array<number>(SUBSCRIBERS).fill(0);
const subscribers = await Promise.all(
  Array.from({ length: SUBSCRIBERS }, async (_, i) => {
    const c = await connect(`soak-sub-${i}`);
    await c.subscribeToAll(
      false,
      (_s: unknown, e: { originalEvent: { eventType: string } }) => {
        if (e.originalEvent.eventType === 'SoakTick') tcpReceived[i]++;
      },
      () => errors++,
    );
    return c;
  }),
);

const wsReceived = new Array<number>(SOCKETS).fill(0);
const sockets: WebSocket[] = [];
for (let i = 0; i < SOCKETS; i++) {
  const ws = new WebSocket(
    `${httpUrl.replace('http', 'ws')}/api/homeport/v1/eventlog/live?access_token=${session.token}&hideSystem=true`,
  );
  ws.on('message', (data) => {
    const m = JSON.parse(String(data)) as { type: string; events?: { eventType: string }[] };
    if (m.type === 'events') wsReceived[i] += m.events!.filter((e) => e.eventType === 'SoakTick').length;
    else if (m.type === 'skipped') errors++;
  });
  ws.on('error', () => errors++);
  await new Promise<void>((resolve) => ws.once('message', () => resolve()));
  sockets.push(ws);
}

const writers = await Promise.all(Array.from({ length: WRITERS }, (_, i) => connect(`soak-writer-${i}`)));
let written = 0;
let running = true;
const started = Date.now();
const perWriterIntervalMs = (1000 * WRITERS) / RATE;
const writing = writers.map(async (c, w) => {
  for (let n = 0; running; n++) {
    const wait = started + n * perWriterIntervalMs + (w * perWriterIntervalMs) / WRITERS - Date.now();
    if (wait > 0) await sleep(wait);
    try {
      await c.appendToStream(`soak-${w}`, es.expectedVersion.any, [
        es.createJsonEventData(crypto.randomUUID(), { w, n }, null, 'SoakTick'),
      ]);
      written++;
    } catch {
      errors++;
    }
  }
});
social.start();

interface Sample {
  minute: number;
  rssMB: number;
  cpuSeconds: number;
  events: number;
  posts: number;
  creates: number;
}
const samples: Sample[] = [];
const sample = () => {
  const s = {
    minute: Math.round(((Date.now() - started) / 60_000) * 10) / 10,
    rssMB: Math.round(rss() / 1e5) / 10,
    cpuSeconds: Math.round(server.cpuSeconds()),
    events: written,
    posts: social.posted().local,
    creates: social.posted().remote,
  };
  samples.push(s);
  console.log(`soak ${JSON.stringify(s)}`);
};
sample();
const sampler = setInterval(sample, SAMPLE_MS);
await sleep(MINUTES * 60_000);
clearInterval(sampler);
sample(); // the last one under load
running = false;
await Promise.all([...writing, social.stop()]);

// The last deliveries arrive (a deadline only to fail instead of waiting for ever).
const everyEventArrived = () =>
  tcpReceived.every((n) => n === written) && wsReceived.every((n) => n === written) && social.complete();
const deadline = Date.now() + 60_000;
while (!everyEventArrived() && Date.now() < deadline) await sleep(200);

const warm = samples.filter((s) => s.minute >= WARMUP_MINUTES)[0] ?? samples[samples.length - 1];
const end = samples[samples.length - 1];
const growthPercent = Math.round(((end.rssMB - warm.rssMB) / warm.rssMB) * 1000) / 10;
const tcpComplete = tcpReceived.filter((n) => n === written).length;
const wsComplete = wsReceived.filter((n) => n === written).length;
const missingEvents = (counts: number[]) => counts.reduce((sum, n) => sum + Math.max(0, written - n), 0);
const socialMissing = social.missing();
const allErrors = errors + social.errors();

console.log(
  `\nsoak: ${MINUTES} min on ${os.cpus().length} cores (load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')})`,
);
console.table(samples);
console.log(
  `server RSS ${warm.rssMB} MB after the ${WARMUP_MINUTES}-min warm-up (minute ${warm.minute}) → ${end.rssMB} MB at the end: ` +
    `${growthPercent}% (bound ${MAX_GROWTH_PERCENT}%); peak ${Math.max(...samples.map((s) => s.rssMB))} MB`,
);
console.log(
  `event log: ${written} events; TCP subscribers with every one ${tcpComplete}/${SUBSCRIBERS} (missing ${missingEvents(tcpReceived)}), ` +
    `UI WebSockets ${wsComplete}/${SOCKETS} (missing ${missingEvents(wsReceived)})`,
);
console.log(`social: ${end.posts} posts, ${end.creates} remote Creates taken (202); per group of streaming sockets:`);
console.table(socialMissing);
console.log(`errors (failed or refused requests, dropped connections): ${allErrors}`);
// Judged before closing: closing fires every client's dropped handler.
const ok =
  allErrors === 0 &&
  tcpComplete === SUBSCRIBERS &&
  wsComplete === SOCKETS &&
  social.complete() &&
  growthPercent < MAX_GROWTH_PERCENT;
social.close();
for (const ws of sockets) ws.terminate();
for (const c of [...subscribers, ...writers]) c.close();
await server.stop();
fs.rmSync(dataDir, { recursive: true, force: true });
console.log(
  ok ? `soak passed: no error, every event delivered, memory growth under ${MAX_GROWTH_PERCENT}%` : 'SOAK FAILED',
);
process.exit(ok ? 0 : 1);

/**
 * Soak: 100 event-log TCP clients (half writing at a steady rate, half subscribed to $all) and 1,000 WebSocket
 * clients tailing $all through the UI API, for 10 minutes against `homeport serve` in its own process.
 * Reports the server's memory growth after warm-up, errors, and whether every event reached every subscriber.
 *   npm run bench:soak                      (10 minutes)
 *   node bench/soak.ts --seconds 60 --sockets 200
 * The social streaming API's sockets join this soak when that API exists.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { startServeProcess } from '../server/testing/serve-process.ts';
import { es } from './support.ts';

const quietLog = { debug() {}, info() {}, error() {} };
const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const SECONDS = arg('seconds', 600);
const SOCKETS = arg('sockets', 1000);
const WRITERS = 50;
const SUBSCRIBERS = 50;
/** Events per second over all writers: every one fans out to 1,050 subscribers. */
const RATE = arg('rate', 50);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-soak-'));
const server = await startServeProcess({ dataDir, args: ['--tcp-max-connections', '2000'], echo: true });
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
    const due = started + n * perWriterIntervalMs + (w * perWriterIntervalMs) / WRITERS;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
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

const warmup = Math.min(60, SECONDS / 10) * 1000;
await new Promise((r) => setTimeout(r, warmup));
const rssAfterWarmup = rss();
let peak = rssAfterWarmup;
const sampler = setInterval(() => (peak = Math.max(peak, rss())), 5000);
await new Promise((r) => setTimeout(r, SECONDS * 1000 - warmup));
running = false;
await Promise.all(writing);
await new Promise((r) => setTimeout(r, 3000)); // let the last deliveries arrive
clearInterval(sampler);
const rssEnd = rss();

const tcpComplete = tcpReceived.filter((n) => n === written).length;
const wsComplete = wsReceived.filter((n) => n === written).length;
const figures = {
  seconds: SECONDS,
  tcpClients: WRITERS + SUBSCRIBERS,
  webSockets: SOCKETS,
  eventsWritten: written,
  deliveries: tcpReceived.reduce((a, b) => a + b, 0) + wsReceived.reduce((a, b) => a + b, 0),
  tcpSubscribersWithEveryEvent: `${tcpComplete}/${SUBSCRIBERS}`,
  webSocketsWithEveryEvent: `${wsComplete}/${SOCKETS}`,
  errors,
  serverRssAfterWarmupMB: Math.round(rssAfterWarmup / 1e6),
  serverRssPeakMB: Math.round(peak / 1e6),
  serverRssEndMB: Math.round(rssEnd / 1e6),
  memoryGrowthPercent: Math.round(((rssEnd - rssAfterWarmup) / rssAfterWarmup) * 1000) / 10,
};
console.log(JSON.stringify(figures, null, 2));
// Judged before closing: closing fires every client's dropped handler.
const ok = errors === 0 && tcpComplete === SUBSCRIBERS && wsComplete === SOCKETS && figures.memoryGrowthPercent < 10;
for (const ws of sockets) ws.terminate();
for (const c of [...subscribers, ...writers]) c.close();
await server.stop();
fs.rmSync(dataDir, { recursive: true, force: true });
console.log(ok ? 'soak passed: no error, every event delivered, memory growth under 10%' : 'SOAK FAILED');
process.exit(ok ? 0 : 1);

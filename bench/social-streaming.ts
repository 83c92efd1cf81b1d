/**
 * Streaming fan-out: post-to-receive latency with many WebSocket subscribers on `public:local`.
 *
 *   node bench/social-streaming.ts            (or: npm run bench:streaming)
 *   BENCH_SOCKETS=1000 BENCH_ACCOUNTS=100 BENCH_RATE=20 BENCH_SECONDS=20 node bench/social-streaming.ts
 *   BENCH_SERVER_NODE_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/prof" node bench/social-streaming.ts   (profile the server)
 *
 * 1. A child process runs the social server (general rate limit off) and answers its RSS on /bench/memory.
 * 2. BENCH_ACCOUNTS accounts each open BENCH_SOCKETS / BENCH_ACCOUNTS sockets subscribed to public:local
 *    (every socket renders as its own viewer: the server checks visibility per account).
 * 3. The same-run floor: POST /api/v1/statuses latency with no subscriber at all (a post cannot reach
 *    anyone sooner than it is written and answered).
 * 4. One account posts at BENCH_RATE statuses/s for BENCH_SECONDS; every socket timestamps each update. The
 *    latency of a delivery is its arrival minus the moment the POST was sent.
 * Reports deliveries (expected = posts × sockets), p50/p99/max latency, the floor beside them, and server
 * memory per connection. Target: p99 < 100 ms with 1,000 sockets.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { createHttpServer } from '../server/http/index.ts';
import { createLogger, LogRing } from '../server/logger.ts';
import { openSocial } from '../server/social/index.ts';
import { percentile } from './support.ts';

const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 1000);
const ACCOUNTS = Math.min(Number(process.env.BENCH_ACCOUNTS ?? 100), SOCKETS);
const RATE = Number(process.env.BENCH_RATE ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const FLOOR_POSTS = 200;

/** The server side (child process). */
async function serve(dataDir: string): Promise<void> {
  const log = createLogger({ level: 'warn', toConsole: false, ring: new LogRing(10) });
  const social = await openSocial({
    dataDir,
    logger: log,
    domain: 'localhost:0',
    generalRateLimit: false,
    federation: false,
  });
  const http = await createHttpServer({
    logger: log,
    rendererDir: null,
    plugins: [
      { name: 'social', plugin: social.plugin },
      {
        name: 'bench',
        plugin: async (app) => {
          app.get('/bench/memory', async () => {
            global.gc?.();
            return {
              rss: process.memoryUsage().rss,
              heap: process.memoryUsage().heapUsed,
              ...social.streaming.stats(),
            };
          });
        },
      },
    ],
  });
  await http.listen({ host: '127.0.0.1', port: 0 });
  const port = (http.server.address() as { port: number }).port;
  social.setDomain(`127.0.0.1:${port}`);
  const tokens: string[] = [];
  for (let i = 0; i < ACCOUNTS + 1; i++) {
    await social.admin.createAccount({
      username: `reader${i}`,
      email: `reader${i}@bench.example`,
      password: `bench-password-${i}`,
      role: 'user',
      confirmed: true,
      approved: true,
    });
    tokens.push(social.admin.createToken(`reader${i}`, 'read write').token);
  }
  process.stdout.write(`listening ${port} ${JSON.stringify(tokens)}\n`);
  process.on(
    'SIGTERM',
    () =>
      void http
        .close()
        .then(() => social.close())
        .then(() => process.exit(0)),
  );
}

function startChild(dataDir: string): Promise<{ child: ChildProcess; port: number; tokens: string[] }> {
  const child = spawn(
    process.execPath,
    [
      '--expose-gc',
      ...(process.env.BENCH_SERVER_NODE_FLAGS ?? '').split(' ').filter(Boolean),
      import.meta.filename,
      'serve',
      dataDir,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening (\d+) (\[.*\])\n/.exec(out);
      if (m) resolve({ child, port: Number(m[1]), tokens: JSON.parse(m[2]) as string[] });
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}

async function memory(
  base: string,
): Promise<{ rss: number; heap: number; connections: number; subscriptions: number }> {
  return (await (await fetch(`${base}/bench/memory`)).json()) as {
    rss: number;
    heap: number;
    connections: number;
    subscriptions: number;
  };
}

async function post(base: string, token: string, text: string): Promise<string> {
  const res = await fetch(`${base}/api/v1/statuses`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ status: text }),
  });
  if (!res.ok) throw new Error(`posting answered ${res.status}`);
  return ((await res.json()) as { id: string }).id;
}

const ms = (ns: bigint) => Number(ns) / 1e6;
const sleep = (t: number) => new Promise((r) => setTimeout(r, t));

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-bench-streaming-'));
  const { child, port, tokens } = await startChild(dataDir);
  const base = `http://127.0.0.1:${port}`;
  const poster = tokens[ACCOUNTS];
  try {
    // The floor: posting with nobody listening.
    const floor: number[] = [];
    for (let i = 0; i < FLOOR_POSTS; i++) {
      const t0 = process.hrtime.bigint();
      await post(base, poster, `floor ${i}`);
      floor.push(ms(process.hrtime.bigint() - t0));
    }
    floor.sort((a, b) => a - b);

    const before = await memory(base);
    const sentAt = new Map<string, bigint>();
    // Arrivals are timed against the POST's send time afterwards: a frame may beat its POST's answer.
    const arrivals: { id: string; at: bigint }[] = [];
    const sockets: WebSocket[] = [];
    for (let i = 0; i < SOCKETS; i++) {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/api/v1/streaming?stream=public:local`, [tokens[i % ACCOUNTS]], {
        perMessageDeflate: false,
      });
      ws.on('message', (data) => {
        const now = process.hrtime.bigint();
        const frame = JSON.parse(data.toString()) as { event: string; payload: string };
        if (frame.event !== 'update') return;
        arrivals.push({ id: (JSON.parse(frame.payload) as { id: string }).id, at: now });
      });
      sockets.push(ws);
      await new Promise((resolve, reject) => {
        ws.once('open', resolve);
        ws.once('error', reject);
      });
    }
    while ((await memory(base)).subscriptions < SOCKETS) await sleep(50);
    const connected = await memory(base);

    // Posting at a steady rate; each POST's send time is known before its id, so arrivals wait for it.
    const posts = RATE * SECONDS;
    const pending: Promise<void>[] = [];
    const started = Date.now();
    for (let i = 0; i < posts; i++) {
      const due = started + (i * 1000) / RATE;
      if (due > Date.now()) await sleep(due - Date.now());
      const t0 = process.hrtime.bigint();
      pending.push(post(base, poster, `streamed ${i}`).then((id) => void sentAt.set(id, t0)));
    }
    await Promise.all(pending);
    const expected = posts * SOCKETS;
    const deadline = Date.now() + 30_000;
    while (arrivals.length < expected && Date.now() < deadline) await sleep(100);
    const latencies = arrivals.flatMap((a) => {
      const t0 = sentAt.get(a.id);
      return t0 === undefined ? [] : [ms(a.at - t0)];
    });
    const after = await memory(base);
    for (const ws of sockets) ws.close();

    latencies.sort((a, b) => a - b);
    const perConnection = (connected.rss - before.rss) / SOCKETS;
    console.log(
      `\nstreaming fan-out: ${SOCKETS} WebSocket subscribers on public:local (${ACCOUNTS} accounts), ${RATE} posts/s for ${SECONDS} s, ${os.cpus().length} cores`,
    );
    console.log(`deliveries            ${latencies.length} of ${expected}`);
    console.log(
      `post → receive        p50 ${percentile(latencies, 50).toFixed(1)} ms   p99 ${percentile(latencies, 99).toFixed(1)} ms   max ${latencies[latencies.length - 1]?.toFixed(1)} ms   (target p99 < 100 ms)`,
    );
    console.log(
      `floor: POST alone     p50 ${percentile(floor, 50).toFixed(1)} ms   p99 ${percentile(floor, 99).toFixed(1)} ms   (no subscribers; same run)`,
    );
    console.log(`ratio p50 / floor     ${(percentile(latencies, 50) / percentile(floor, 50)).toFixed(1)}×`);
    console.log(
      `server memory         ${(perConnection / 1024).toFixed(1)} KiB RSS per connection (${(before.rss / 2 ** 20).toFixed(0)} → ${(connected.rss / 2 ** 20).toFixed(0)} MiB; ${(after.rss / 2 ** 20).toFixed(0)} MiB after posting)`,
    );
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'serve') await serve(process.argv[3]);
else await main();

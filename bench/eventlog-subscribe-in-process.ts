/**
 * The fan-out's own CPU per delivery at a fixed commit shape, whatever the machine's load: the event log, its TCP
 * listener and the subscription engines in this process; 100 `$all` subscribers in a child process that only
 * counts frames; every millisecond tick this process appends EVENTS_PER_TICK single events through the store (one
 * group commit), as the end-to-end bench's writer does on a quiet machine. Under load the end-to-end server falls
 * behind and batches tens of events per write, which moves its CPU per delivery by half; here every commit has the
 * same size, so two builds can be compared run by run.
 *
 *   node bench/eventlog-subscribe-in-process.ts     (SUBSCRIBERS=100 EVENTS_PER_TICK=5 SECONDS=5 ROUNDS=3)
 *
 * Prints, per round, this process's CPU µs per delivery (appends included) and the same with one subscriber
 * (about the append's own cost per event, plus one delivery).
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import readline from 'node:readline';
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import {
  TcpCommand,
  encodeMessage,
  openEventLog,
  startEventLogTcp,
  startSubscriptions,
  subscriptionTcpHandlers,
} from '../server/eventlog/index.ts';
import { PADDING } from './eventlog-subscribe/persistent-group.ts';
import { WireClient } from './eventlog-subscribe/wire-client.ts';

const SUBSCRIBERS = Number(process.env.SUBSCRIBERS ?? 100);
const EVENTS_PER_TICK = Number(process.env.EVENTS_PER_TICK ?? 5);
const SECONDS = Number(process.env.SECONDS ?? 5);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
/** ONE_SUBSCRIBER=0 skips the one-subscriber rounds. */
const ONE_SUBSCRIBER = process.env.ONE_SUBSCRIBER !== '0';

/** The child: SUBSCRIBERS connections subscribed to `$all`, counting StreamEventAppeared frames. */
async function sink(port: number, subscribers: number): Promise<void> {
  let frames = 0;
  const clients = await Promise.all(Array.from({ length: subscribers }, () => WireClient.connect(port)));
  await Promise.all(
    clients.map(async (client) => {
      const reply = await client.request(
        TcpCommand.SubscribeToStream,
        encodeMessage('SubscribeToStream', { eventStreamId: '', resolveLinkTos: false }),
      );
      if (reply.command !== TcpCommand.SubscriptionConfirmation) throw new Error(`subscribe: ${reply.command}`);
      client.countOnly = (command) => {
        if (command === TcpCommand.StreamEventAppeared) frames++;
      };
    }),
  );
  console.log('ready');
  for await (const line of readline.createInterface({ input: process.stdin })) {
    if (line === 'count') console.log(String(frames));
    else break;
  }
  for (const c of clients) c.close();
}

/** Starts a sink child; resolves with a function asking it for its frame count. */
async function startSink(port: number, subscribers: number) {
  const child = spawn(process.execPath, [import.meta.filename, 'sink', String(port), String(subscribers)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = readline.createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const first = await lines.next();
  if (first.value !== 'ready') throw new Error(`sink said ${first.value}`);
  return {
    async count(): Promise<number> {
      child.stdin!.write('count\n');
      return Number((await lines.next()).value);
    },
    stop(): void {
      child.stdin!.end('stop\n');
    },
  };
}

/** ExpectedVersion.Any. */
const ANY_VERSION = -2;

/** The event log, its TCP listener and the subscription engines, as `homeport serve` wires them. */
async function startEventLog() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-bench-fanout-'));
  const logger = pino({ level: 'silent' });
  const eventLog = await openEventLog({ dataDir, logger });
  const subscriptions = startSubscriptions(eventLog.store, { logger });
  const handlers = [subscriptionTcpHandlers(subscriptions)];
  const loopback = { host: '127.0.0.1', port: 0, tlsPort: null };
  const server = await startEventLogTcp(eventLog, { ...loopback, dataDir, logger, handlers });
  const close = async () => {
    for (const part of [server, subscriptions, eventLog]) await part.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  return { store: eventLog.store, port: server.tcp.port, close };
}

async function round(subscribers: number): Promise<{ microsPerDelivery: number; microsPerEvent: number }> {
  const fx = await startEventLog();
  try {
    const { store } = fx;
    const sinkChild = await startSink(fx.port, subscribers);
    const stream = `fanout-${crypto.randomUUID().slice(0, 8)}`;
    const data = Buffer.from(JSON.stringify({ t: Date.now(), n: 0, padding: PADDING }));
    const appendTick = () => {
      const writes: Promise<unknown>[] = [];
      for (let k = 0; k < EVENTS_PER_TICK; k++)
        writes.push(
          store.appendToStream(
            stream,
            ANY_VERSION,
            [
              {
                eventId: crypto.randomUUID(),
                eventType: 'BenchEvent',
                isJson: true,
                data,
                metadata: new Uint8Array(0),
              },
            ],
            null,
          ),
        );
      return Promise.all(writes);
    };
    // One tick's appends at a time, each tick's appends in one turn: every commit holds EVENTS_PER_TICK events.
    const run = async (seconds: number) => {
      const until = performance.now() + seconds * 1000;
      let ticks = 0;
      while (performance.now() < until) {
        await appendTick();
        ticks++;
        await new Promise((r) => setTimeout(r, 1));
      }
      return ticks * EVENTS_PER_TICK;
    };
    await run(1);
    const waitFor = async (frames: number) => {
      const started = performance.now();
      while ((await sinkChild.count()) < frames && performance.now() - started < 10_000)
        await new Promise((r) => setTimeout(r, 5));
    };
    const before = await sinkChild.count();
    const cpuBefore = process.cpuUsage();
    const written = await run(SECONDS);
    await waitFor(before + written * subscribers);
    const cpu = process.cpuUsage(cpuBefore);
    const delivered = (await sinkChild.count()) - before;
    sinkChild.stop();
    if (delivered !== written * subscribers) console.warn(`  delivered ${delivered} of ${written * subscribers}`);
    const micros = cpu.user + cpu.system;
    return { microsPerDelivery: micros / Math.max(1, delivered), microsPerEvent: micros / Math.max(1, written) };
  } finally {
    await fx.close();
  }
}

if (process.argv[2] === 'sink') await sink(Number(process.argv[3]), Number(process.argv[4]));
else {
  for (let r = 0; r < ROUNDS; r++) {
    const fan = await round(SUBSCRIBERS);
    const one = ONE_SUBSCRIBER ? `; 1 subscriber ${(await round(1)).microsPerEvent.toFixed(2)} µs per event` : '';
    console.log(
      `round ${r + 1}: ${SUBSCRIBERS} subscribers ${fan.microsPerDelivery.toFixed(3)} µs per delivery${one}; load ${os.loadavg()[0].toFixed(1)}`,
    );
  }
}

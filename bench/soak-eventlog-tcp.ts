/**
 * The soak's event-log TCP clients, in a process of their own (bench/soak.ts starts it): writers appending
 * SoakTick events at a fixed total rate and subscribers to $all counting them.
 */
import crypto from 'node:crypto';
import { deliveries } from './soak-clients.ts';
import { answerCalls, ownCpuSeconds } from './soak-ipc.ts';
import { es } from './support.ts';

const quietLog = { debug() {}, info() {}, error() {} };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * The client's defaults (a heartbeat after 750 ms of silence, dropped 1.5 s later) drop a healthy connection
 * whenever a loaded machine holds either process up that long; a dead socket is still found within 40 s.
 */
const HEARTBEAT = { heartbeatInterval: 10_000, heartbeatTimeout: 30_000 };

interface Setup {
  tcpPort: number;
  username: string;
  password: string;
  writers: number;
  subscribers: number;
  /** Events per second over all writers. */
  rate: number;
}

type Connection = any;
let connections: Connection[] = [];
let writers: Connection[] = [];
let received: number[] = [];
let written = 0;
let errors = 0;
let dropped = 0;
let lastError = '';
let running = false;
let closing = false;
let writing: Promise<void>[] = [];
let rate = 0;

async function connect(setup: Setup, name: string): Promise<Connection> {
  const c = es.createConnection(
    {
      log: quietLog,
      defaultUserCredentials: new es.UserCredentials(setup.username, setup.password),
      ...HEARTBEAT,
    },
    `tcp://127.0.0.1:${setup.tcpPort}`,
    name,
  );
  c.on('error', (err: Error) => {
    errors++;
    lastError = String(err);
  });
  const connected = new Promise<void>((resolve) => c.once('connected', () => resolve()));
  await c.connect();
  await connected;
  // Any later disconnection is a dropped connection (counted; the client reconnects by itself).
  c.on('disconnected', () => {
    if (!closing) dropped++;
  });
  connections.push(c);
  return c;
}

answerCalls({
  async setup(setup: Setup) {
    rate = setup.rate;
    received = new Array<number>(setup.subscribers).fill(0);
    for (let i = 0; i < setup.subscribers; i++) {
      const c = await connect(setup, `soak-sub-${i}`);
      await c.subscribeToAll(
        false,
        (_s: unknown, e: { originalEvent: { eventType: string } }) => {
          if (e.originalEvent.eventType === 'SoakTick') received[i]++;
        },
        (_s: unknown, reason: string) => {
          errors++;
          lastError = `subscription ${i} dropped: ${reason}`;
        },
      );
    }
    writers = [];
    for (let i = 0; i < setup.writers; i++) writers.push(await connect(setup, `soak-writer-${i}`));
  },
  start() {
    running = true;
    const started = performance.now();
    const perWriterIntervalMs = (1000 * writers.length) / rate;
    writing = writers.map(async (c, w) => {
      for (let n = 0; running; n++) {
        const wait = started + n * perWriterIntervalMs + (w * perWriterIntervalMs) / writers.length - performance.now();
        if (wait > 0) await sleep(wait);
        if (!running) break;
        try {
          await c.appendToStream(`soak-${w}`, es.expectedVersion.any, [
            es.createJsonEventData(crypto.randomUUID(), { w, n }, null, 'SoakTick'),
          ]);
          written++;
        } catch (err) {
          errors++;
          lastError = String(err);
        }
      }
    });
  },
  status: () => ({ written, errors, dropped, lastError, cpuSeconds: ownCpuSeconds() }),
  async stop() {
    running = false;
    await Promise.all(writing);
    return written;
  },
  /** Subscribers that got every one of `expected` events, and the events missing over all of them. */
  deliveries: (expected: number) => deliveries(received, expected),
  close() {
    closing = true;
    for (const c of connections) c.close();
    connections = [];
  },
});

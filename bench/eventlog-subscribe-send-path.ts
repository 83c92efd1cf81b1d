/**
 * The connection's own JavaScript per delivery under fan-out, without the kernel: ClientConnection over sockets
 * whose write takes every byte at once and does nothing else, 100 connections, commits of 5 events (what a
 * subscriber's sink does per event: isBacklogged, send; then the flush after the commit). Two source trees are
 * loaded into this one process and measured in alternation, so the machine's load moves both alike.
 *
 *   node bench/eventlog-subscribe-send-path.ts <old tree> [new tree, default this one]   (ROUNDS=8 COMMITS=4000)
 */
import crypto from 'node:crypto';
import { EventEmitter } from 'node:events';
import os from 'node:os';
import path from 'node:path';

const ROUNDS = Number(process.env.ROUNDS ?? 8);
const COMMITS = Number(process.env.COMMITS ?? 4000);
const CONNECTIONS = 100;
const EVENTS_PER_COMMIT = 5;
const STREAM_EVENT_APPEARED = 0xc2;

/** What ClientConnection uses of a net.Socket; every write is taken whole at once. */
class NullSocket extends EventEmitter {
  remoteAddress = '127.0.0.1';
  remotePort = 1;
  writableLength = 0;
  written = 0;
  setNoDelay(): void {}
  cork(): void {}
  uncork(): void {}
  pause(): void {}
  resume(): void {}
  end(): void {}
  destroy(): void {}
  write(chunk: Uint8Array): boolean {
    this.written += chunk.byteLength;
    return true;
  }
}

interface Connection {
  isBacklogged(): boolean;
  send(command: number, correlationId: Uint8Array, body: Uint8Array): boolean;
  destroy(reason: string): void;
}

async function load(tree: string) {
  const { ClientConnection } = await import(path.resolve(tree, 'server/eventlog/tcp/connection.ts'));
  const { DEFAULT_CONNECTION_LIMITS } = await import(path.resolve(tree, 'server/eventlog/tcp/connection-facts.ts'));
  const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };
  const sockets = Array.from({ length: CONNECTIONS }, () => new NullSocket());
  const connections: Connection[] = sockets.map(
    (socket) =>
      new ClientConnection(socket, {
        dispatcher: {},
        logger: silent,
        limits: { ...DEFAULT_CONNECTION_LIMITS, heartbeatIntervalMs: 3_600_000 },
        secure: false,
      }),
  );
  const ids = connections.map(() => crypto.randomBytes(16));
  const bodies = Array.from({ length: EVENTS_PER_COMMIT }, () => crypto.randomBytes(330));
  return {
    async run(): Promise<number> {
      const before = process.cpuUsage();
      for (let c = 0; c < COMMITS; c++) {
        for (const body of bodies)
          for (let i = 0; i < CONNECTIONS; i++) {
            const connection = connections[i];
            if (!connection.isBacklogged()) connection.send(STREAM_EVENT_APPEARED, ids[i], body);
          }
        await new Promise((resolve) => setImmediate(resolve));
      }
      const cpu = process.cpuUsage(before);
      return ((cpu.user + cpu.system) * 1000) / (COMMITS * EVENTS_PER_COMMIT * CONNECTIONS);
    },
    close(): void {
      for (const c of connections) c.destroy('over');
    },
  };
}

const [oldTree, newTree = path.resolve(import.meta.dirname, '..')] = process.argv.slice(2);
if (!oldTree) {
  console.error('usage: node bench/eventlog-subscribe-send-path.ts <old tree> [new tree]');
  process.exit(2);
}
const old = await load(oldTree);
const fresh = await load(newTree);
await old.run();
await fresh.run();
const ratios: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const a = await old.run();
  const b = await fresh.run();
  ratios.push(b / a);
  console.log(
    `round ${r + 1}: old ${a.toFixed(0)} ns, new ${b.toFixed(0)} ns per delivery (${(b / a).toFixed(2)}x); load ${os.loadavg()[0].toFixed(1)}`,
  );
}
ratios.sort((x, y) => x - y);
console.log(
  `median new/old ${ratios[Math.floor(ratios.length / 2)].toFixed(2)}x (${ratios[0].toFixed(2)}–${ratios[ratios.length - 1].toFixed(2)})`,
);
old.close();
fresh.close();

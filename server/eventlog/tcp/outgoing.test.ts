import crypto from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TcpCommand } from './commands.ts';
import { ClientConnection } from './connection.ts';
import { DEFAULT_CONNECTION_LIMITS } from './connection-facts.ts';
import type { CommandDispatcher } from './dispatcher.ts';
import { FrameReader } from './framing.ts';
import { OutgoingPackages, SPARE_BYTES } from './outgoing.ts';
import { encodeFrame, parsePackage } from './package.ts';

const silent = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child() {
    return silent;
  },
} as never;

function queued(bodies: Uint8Array[]): { queue: OutgoingPackages; expected: Buffer } {
  const queue = new OutgoingPackages();
  const frames: Buffer[] = [];
  for (const body of bodies) {
    const id = crypto.randomBytes(16);
    queue.push(TcpCommand.StreamEventAppeared, id, body);
    frames.push(encodeFrame(TcpCommand.StreamEventAppeared, id, body));
  }
  return { queue, expected: Buffer.concat(frames) };
}

describe('OutgoingPackages', () => {
  it('frames byte for byte as encodeFrame, with and without the spare buffer', () => {
    const bodies = [
      Buffer.alloc(0),
      crypto.randomBytes(300),
      crypto.randomBytes(70 * 1024), // written after its own header, not copied
      crypto.randomBytes(1000),
    ];
    for (const mayLend of [false, true, true]) {
      const { queue, expected } = queued(bodies);
      const chunks = queue.take(mayLend);
      expect(Buffer.concat(chunks)).toEqual(expected);
      queue.recycle(mayLend);
      expect(queue.count).toBe(0);
    }
  });

  it('never frames into a chunk a socket may still hold', () => {
    // Both queues take while the spare is free: the first is lent it, and keeps it (its socket held the bytes).
    const first = queued([crypto.randomBytes(400), crypto.randomBytes(400)]);
    first.queue.recycle(true); // makes sure a spare exists
    const held = first.queue.take(true)[0];
    const heldCopy = Buffer.from(held);
    first.queue.recycle(false);
    for (let i = 0; i < 3; i++) {
      const other = queued([crypto.randomBytes(800)]);
      const chunks = other.queue.take(true);
      expect(Buffer.concat(chunks)).toEqual(other.expected);
      other.queue.recycle(true);
    }
    expect(held).toEqual(heldCopy);
    expect(held).toEqual(first.expected);
  });

  it('frames, once reused, only what was queued since the last take, however many were before', () => {
    const queue = new OutgoingPackages();
    for (const count of [300, 3, 1, 40]) {
      const frames: Buffer[] = [];
      for (let i = 0; i < count; i++) {
        const id = crypto.randomBytes(16);
        const body = crypto.randomBytes(i % 3 === 0 ? 0 : 200);
        queue.push(TcpCommand.StreamEventAppeared, id, body);
        frames.push(encodeFrame(TcpCommand.StreamEventAppeared, id, body));
      }
      expect(queue.count).toBe(count);
      expect(Buffer.concat(queue.take())).toEqual(Buffer.concat(frames));
      expect(queue.count).toBe(0);
      expect(queue.bytes).toBe(0);
    }
  });

  it('allocates chunks bigger than the spare on their own', () => {
    const big = queued(Array.from({ length: 60 }, () => crypto.randomBytes(500)));
    big.queue.recycle(true);
    const chunks = big.queue.take(true);
    expect(chunks[0].buffer.byteLength).toBeGreaterThan(SPARE_BYTES);
    expect(Buffer.concat(chunks)).toEqual(big.expected);
  });
});

describe('ClientConnection fan-out writes', () => {
  const connections: ClientConnection[] = [];
  let server: net.Server;
  let port = 0;

  beforeAll(async () => {
    server = net.createServer((socket) =>
      connections.push(
        new ClientConnection(socket, {
          dispatcher: {} as CommandDispatcher,
          logger: silent,
          limits: { ...DEFAULT_CONNECTION_LIMITS, heartbeatIntervalMs: 600_000 },
          secure: false,
        }),
      ),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    for (const c of connections) c.destroy('test over');
    await new Promise((resolve) => server.close(resolve));
  });

  /** A client socket whose frames are collected, and the server's connection for it. */
  async function pair(): Promise<{ socket: net.Socket; frames: Buffer[]; connection: ClientConnection }> {
    const before = connections.length;
    const frames: Buffer[] = [];
    const reader = new FrameReader({ maxFrameBytes: 64 * 1024, minFrameBytes: 18 });
    const socket = net.connect(port, '127.0.0.1');
    socket.on('data', (chunk) => reader.push(chunk, (frame) => frames.push(Buffer.from(frame))));
    await new Promise((resolve) => socket.once('connect', resolve));
    const deadline = Date.now() + 10_000;
    while (connections.length === before) {
      if (Date.now() > deadline) throw new Error('the server never accepted the connection');
      await new Promise((resolve) => setImmediate(resolve));
    }
    return { socket, frames, connection: connections[connections.length - 1] };
  }

  it('a connection whose socket write throws is closed, and the others of the same flush pass still write', async () => {
    const broken = await pair();
    const others = [await pair(), await pair()];
    const serverSocket = (broken.connection as unknown as { socket: net.Socket }).socket;
    serverSocket.write = () => {
      throw new Error('the socket broke');
    };
    const id = crypto.randomBytes(16);
    const body = crypto.randomBytes(100);
    // All three queue in one turn: they are flushed in one pass, the broken one first.
    broken.connection.send(TcpCommand.StreamEventAppeared, id, body);
    for (const other of others) other.connection.send(TcpCommand.StreamEventAppeared, id, body);
    const deadline = Date.now() + 10_000;
    while (others.some((o) => o.frames.length === 0)) {
      if (Date.now() > deadline) throw new Error('the other connections never wrote');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    for (const other of others) expect(parsePackage(other.frames[0]).body.equals(body)).toBe(true);
    expect(broken.connection.closed).toBe(true);
    for (const o of [broken, ...others]) o.socket.destroy();
  });

  it('a reader that stops reading gets every frame intact while a fast one shares the spare buffer', async () => {
    const slow = await pair();
    const fast = await pair();
    slow.socket.pause(); // its kernel buffers fill: the server's socket then keeps what it was handed
    const slowId = crypto.randomBytes(16);
    const fastId = crypto.randomBytes(16);
    const sent: Buffer[] = [];
    // Rounds until the slow socket has held bytes for 50 of them (its kernel buffers take a few MB first).
    let kept = 0;
    for (let round = 0; round < 4000 && kept < 50; round++) {
      const bodies = Array.from({ length: 7 }, () => crypto.randomBytes(2000));
      for (const body of bodies) {
        slow.connection.send(TcpCommand.StreamEventAppeared, slowId, body);
        fast.connection.send(TcpCommand.StreamEventAppeared, fastId, body);
      }
      sent.push(...bodies);
      await new Promise((resolve) => setImmediate(resolve)); // both flush; the fast reader reads
      if (slow.connection.pendingSendBytes > 0) kept++;
    }
    expect(kept).toBe(50); // the slow socket did hold chunks while the fast one wrote
    slow.socket.resume();
    const deadline = Date.now() + 20_000;
    while (slow.frames.length < sent.length || fast.frames.length < sent.length) {
      if (Date.now() > deadline) throw new Error(`frames missing: ${slow.frames.length}, ${fast.frames.length}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    for (const [frames, id] of [
      [slow.frames, slowId],
      [fast.frames, fastId],
    ] as const) {
      for (let i = 0; i < sent.length; i++) {
        const pkg = parsePackage(frames[i]);
        expect(pkg.command).toBe(TcpCommand.StreamEventAppeared);
        expect(Buffer.from(pkg.correlationId)).toEqual(id);
        expect(pkg.body.equals(sent[i])).toBe(true);
      }
    }
    slow.socket.destroy();
    fast.socket.destroy();
  });
});

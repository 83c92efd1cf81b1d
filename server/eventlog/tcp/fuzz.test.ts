import crypto from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, jsonEvent } from './testing/client-connection.ts';
import { TcpCommand } from './commands.ts';
import { guidStringToBytes } from './guid.ts';
import { encodeMessage } from './messages.ts';
import { encodeFrame } from './package.ts';
import { startTcpFixture, type TcpFixture } from './testing/raw-client.ts';

/**
 * Protocol fuzzing: thousands of random and mutated frames from several sockets while a well-formed
 * client keeps appending. The server must stay up, every good operation must succeed, and the log
 * must end up holding exactly the good client's events, complete.
 */

const SEED = Number(process.env.HOMEPORT_FUZZ_SEED ?? crypto.randomInt(2 ** 31));
const FUZZ_SOCKETS = 4;
const FRAMES_PER_SOCKET = Number(process.env.HOMEPORT_FUZZ_FRAMES ?? 2500);

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function templates(): Buffer[] {
  const id = () => crypto.randomBytes(16);
  const newEvent = () => ({
    eventId: guidStringToBytes(crypto.randomUUID()),
    eventType: 'Fuzz',
    dataContentType: 1,
    metadataContentType: 0,
    data: Buffer.from('{"fuzz":1}'),
    metadata: Buffer.from('{}'),
  });
  return [
    encodeFrame(
      TcpCommand.WriteEvents,
      id(),
      encodeMessage('WriteEvents', {
        eventStreamId: 'fuzz-target',
        expectedVersion: -2,
        requireLeader: true,
        events: [newEvent(), newEvent()],
      }),
    ),
    encodeFrame(
      TcpCommand.WriteEvents,
      id(),
      encodeMessage('WriteEvents', {
        eventStreamId: 'good-0',
        expectedVersion: 0,
        requireLeader: false,
        events: [newEvent()],
      }),
    ),
    encodeFrame(
      TcpCommand.DeleteStream,
      id(),
      encodeMessage('DeleteStream', {
        eventStreamId: 'good-1',
        expectedVersion: -2,
        requireLeader: true,
        hardDelete: true,
      }),
    ),
    encodeFrame(
      TcpCommand.TransactionStart,
      id(),
      encodeMessage('TransactionStart', { eventStreamId: 'fuzz-tx', expectedVersion: -2, requireLeader: true }),
    ),
    encodeFrame(
      TcpCommand.TransactionWrite,
      id(),
      encodeMessage('TransactionWrite', { transactionId: 1, requireLeader: true, events: [newEvent()] }),
    ),
    encodeFrame(
      TcpCommand.TransactionCommit,
      id(),
      encodeMessage('TransactionCommit', { transactionId: 1, requireLeader: true }),
    ),
    encodeFrame(
      TcpCommand.ReadEvent,
      id(),
      encodeMessage('ReadEvent', {
        eventStreamId: 'good-0',
        eventNumber: -1,
        resolveLinkTos: true,
        requireLeader: false,
      }),
    ),
    encodeFrame(
      TcpCommand.ReadStreamEventsForward,
      id(),
      encodeMessage('ReadStreamEvents', {
        eventStreamId: 'good-2',
        fromEventNumber: 0,
        maxCount: 20,
        resolveLinkTos: true,
        requireLeader: false,
      }),
    ),
    encodeFrame(
      TcpCommand.ReadStreamEventsBackward,
      id(),
      encodeMessage('ReadStreamEvents', {
        eventStreamId: 'good-1',
        fromEventNumber: -1,
        maxCount: 20,
        resolveLinkTos: false,
        requireLeader: false,
      }),
    ),
    encodeFrame(
      TcpCommand.ReadAllEventsForward,
      id(),
      encodeMessage('ReadAllEvents', {
        commitPosition: 0,
        preparePosition: 0,
        maxCount: 20,
        resolveLinkTos: false,
        requireLeader: false,
      }),
    ),
    encodeFrame(
      TcpCommand.FilteredReadAllEventsBackward,
      id(),
      encodeMessage('FilteredReadAllEvents', {
        commitPosition: -1,
        preparePosition: -1,
        maxCount: 10,
        maxSearchWindow: 50,
        resolveLinkTos: false,
        requireLeader: false,
        filter: { context: 1, type: 0, data: ['^F.*'] },
      }),
    ),
    encodeFrame(
      TcpCommand.IdentifyClient,
      id(),
      encodeMessage('IdentifyClient', { version: 1, connectionName: 'fuzzer' }),
    ),
    encodeFrame(TcpCommand.Authenticate, id(), null, { login: 'admin', password: 'guess' }),
    encodeFrame(TcpCommand.ScavengeDatabase, id(), null),
    encodeFrame(TcpCommand.Ping, id(), Buffer.from('ping')),
    encodeFrame(TcpCommand.HeartbeatRequestCommand, id(), null),
  ];
}

/** One fuzzed frame: random bytes, or a valid template with some damage. */
function fuzzFrame(random: () => number, base: Buffer[]): Buffer {
  const int = (n: number) => Math.floor(random() * n);
  const template = Buffer.from(base[int(base.length)]);
  // Mostly well-framed damage (it reaches decoding and dispatch); now and then a frame that breaks the
  // connection (random framing, lying length, random flags), which costs the fuzzer its socket.
  const roll = random();
  const kind = roll < 0.01 ? 2 : roll < 0.02 ? 7 : roll < 0.03 ? 6 : [0, 1, 3, 4, 5, 8][int(6)];
  switch (kind) {
    case 0: // a known command with a random body
    case 1: {
      const body = crypto.randomBytes(int(120));
      return encodeFrame(kind === 0 ? template[4] : int(256), crypto.randomBytes(16), body);
    }
    case 2: // random bytes, framing included
      return crypto.randomBytes(1 + int(64));
    case 3: {
      // flip bytes after the header
      for (let i = 0, n = 1 + int(4); i < n; i++) template[22 + int(template.length - 22)] ^= 1 + int(255);
      return template;
    }
    case 4: {
      // cut the body short, with a consistent length
      const keep = 22 + int(template.length - 22);
      const cut = template.subarray(0, keep);
      cut.writeInt32LE(keep - 4, 0);
      return cut;
    }
    case 5:
      template[4] = int(256); // another command
      return template;
    case 6:
      template[5] = int(256); // random flags (credentials that are not there, TrustedWrite…)
      return template;
    case 7:
      template.writeInt32LE(template.readInt32LE(0) + int(9) - 4, 0); // lying length
      return template;
    default: {
      // bytes inserted in the middle, consistent length
      const at = 22 + int(template.length - 22);
      const grown = Buffer.concat([template.subarray(0, at), crypto.randomBytes(1 + int(8)), template.subarray(at)]);
      grown.writeInt32LE(grown.length - 4, 0);
      return grown;
    }
  }
}

async function fuzzSocket(
  port: number,
  random: () => number,
  frames: number,
): Promise<{ sent: number; reconnects: number }> {
  const base = templates();
  let sent = 0;
  let reconnects = 0;
  while (sent < frames) {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.on('error', () => {});
    socket.on('data', () => {});
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    await Promise.race([new Promise<void>((resolve) => socket.once('connect', () => resolve())), closed]);
    // A socket lives for a few batches, or until the server closes it for a broken frame.
    for (let batch = 0; batch < 10 && sent < frames && !socket.destroyed; batch++) {
      const chunk: Buffer[] = [];
      for (let i = 0; i < 10 && sent < frames; i++, sent++) chunk.push(fuzzFrame(random, base));
      socket.write(Buffer.concat(chunk));
      await new Promise((r) => setTimeout(r, 1));
    }
    // end(), not destroy(): what was written must reach the server.
    socket.end();
    const timer = setTimeout(() => socket.destroy(), 2000);
    await closed;
    clearTimeout(timer);
    reconnects++;
  }
  return { sent, reconnects };
}

describe(`protocol fuzzing (seed ${SEED})`, () => {
  let fx: TcpFixture;
  let es: any;

  beforeAll(async () => {
    fx = await startTcpFixture();
    es = (await import('node-eventstore-client')).default;
  });

  afterAll(async () => {
    await fx?.close();
  });

  it('stays up, serves the good client and writes nothing but the good client’s events', async () => {
    const admin = new es.UserCredentials('admin', 'changeit');
    const good = await connectClient(
      es,
      `tcp://127.0.0.1:${fx.port}`,
      { defaultUserCredentials: admin },
      'good-client',
    );
    try {
      // Only admins may write user streams from here on, so no fuzzed (anonymous) frame can write anything.
      await good.appendToStream(
        '$settings',
        es.expectedVersion.any,
        es.createJsonEventData(
          crypto.randomUUID(),
          {
            $userStreamAcl: { $r: '$all', $w: '$admins', $d: '$admins', $mr: '$all', $mw: '$admins' },
            $systemStreamAcl: { $r: '$admins', $w: '$admins', $d: '$admins', $mr: '$admins', $mw: '$admins' },
          },
          null,
          '$settings',
        ),
      );
      const before = new Set<string>();
      for (const e of (await good.readAllEventsForward(es.positions.start, 4096, false)).events)
        before.add(e.originalEvent.eventId);

      const written = new Map<string, { stream: string; number: number; data: string }>();
      let fuzzing = true;
      const worker = async (w: number) => {
        const stream = `good-${w}`;
        let version = -1;
        while (fuzzing || version < 5) {
          const batch = Array.from({ length: 1 + (version % 3 === 0 ? 2 : 0) }, (_, i) =>
            jsonEvent(es, 'Good', { w, n: version + 1 + i, pad: 'x'.repeat(i * 50) }),
          );
          const r = await good.appendToStream(stream, version, batch);
          batch.forEach((e: { eventId: string; data: Buffer }, i: number) =>
            written.set(e.eventId, { stream, number: version + 1 + i, data: e.data.toString() }),
          );
          version = r.nextExpectedVersion.toNumber();
          const back = await good.readEvent(stream, version, false);
          expect(back.status).toBe('success');
        }
      };
      const workers = [0, 1, 2].map(worker);
      const random = prng(SEED);
      const fuzzers = Array.from({ length: FUZZ_SOCKETS }, () =>
        fuzzSocket(fx.port, prng(Math.floor(random() * 2 ** 31)), FRAMES_PER_SOCKET),
      );
      const results = await Promise.all(fuzzers);
      fuzzing = false;
      await Promise.all(workers);
      expect(results.reduce((n, r) => n + r.sent, 0)).toBe(FUZZ_SOCKETS * FRAMES_PER_SOCKET);
      // The fuzz reached the protocol: many packages were parsed, rejected, and connections dropped.
      const stats = fx.server.stats;
      const about = `seed ${SEED}, ${JSON.stringify(stats)}`;
      expect(stats.packagesReceived, about).toBeGreaterThan(FUZZ_SOCKETS * FRAMES_PER_SOCKET * 0.2);
      expect(stats.badRequests, about).toBeGreaterThan(100);
      expect(stats.connectionsDropped, about).toBeGreaterThan(10);

      // Every event written after the fuzzing began is one the good client wrote, whole.
      const seen = new Map<string, number>();
      let position = es.positions.start;
      for (;;) {
        const slice = await good.readAllEventsForward(position, 1000, false);
        for (const e of slice.events) {
          const id = e.originalEvent.eventId;
          if (before.has(id)) continue;
          const expected = written.get(id);
          expect(
            expected,
            `unexpected event ${e.originalEvent.eventStreamId}/${e.originalEvent.eventType} (seed ${SEED})`,
          ).toBeDefined();
          expect(e.originalEvent.eventStreamId).toBe(expected!.stream);
          expect(e.originalEvent.eventNumber.toNumber()).toBe(expected!.number);
          expect(e.originalEvent.data.toString()).toBe(expected!.data);
          seen.set(id, (seen.get(id) ?? 0) + 1);
        }
        if (slice.isEndOfStream) break;
        position = slice.nextPosition;
      }
      expect(seen.size).toBe(written.size);
      expect([...seen.values()].every((n) => n === 1)).toBe(true);
      // `npm run bench:fuzz` runs this with a million frames; these are its figures.
      console.log(
        `fuzz: seed ${SEED}, ${FUZZ_SOCKETS * FRAMES_PER_SOCKET} frames sent, ${stats.packagesReceived} packages parsed, ${stats.badRequests} BadRequest replies, ` +
          `${stats.connectionsDropped} connections dropped, good client: ${written.size} events written and read back, all present exactly once`,
      );

      // A fresh client still gets in.
      const fresh = await connectClient(es, `tcp://127.0.0.1:${fx.port}`, {}, 'after-fuzz');
      try {
        expect((await fresh.readEvent('good-0', 0, false)).status).toBe('success');
      } finally {
        fresh.close();
      }
    } finally {
      good.close();
    }
  });
});

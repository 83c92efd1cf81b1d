import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { int64ToNumber } from './codec.ts';
import { TcpCommand } from './commands.ts';
import { decodeMessage, encodeMessage, type Int64 } from './messages.ts';
import { encodeFrame } from './package.ts';
import { newId, RawClient, startTcpFixture, type TcpFixture } from './testing/raw-client.ts';
import { ADMIN, stream, writeEventsBody } from './testing/raw-requests.ts';

/** Heartbeats, a store that is closing or over its write-queue bound, replies larger than a frame and a client that stops reading, over plain sockets. */

describe('event-log TCP heartbeats', () => {
  let fx: TcpFixture;
  // Short interval so the test is quick; a timeout long enough that a busy test machine does not matter.
  beforeAll(async () => {
    fx = await startTcpFixture({ limits: { heartbeatIntervalMs: 50, heartbeatTimeoutMs: 1000 } });
  });
  afterAll(async () => {
    await fx?.close();
  });

  it('sends heartbeat requests, drops a client that never answers and keeps one that does', async () => {
    const silent = await RawClient.connect(fx.port);
    const answering = await RawClient.connect(fx.port, { answerHeartbeats: true });
    try {
      const request = await silent.next((p) => p.command === TcpCommand.HeartbeatRequestCommand);
      expect(request.body.length).toBe(0);
      await silent.closed;
      expect(silent.received.filter((p) => p.command === TcpCommand.HeartbeatRequestCommand)).toHaveLength(1);
      expect(answering.isClosed).toBe(false);
      expect(answering.heartbeatsAnswered).toBeGreaterThanOrEqual(1);
      expect((await answering.request(TcpCommand.Ping)).command).toBe(TcpCommand.Pong);
    } finally {
      answering.destroy();
    }
  });
});

describe('event-log TCP while the store is not ready', () => {
  it('answers NotHandled NotReady once the store is closing', async () => {
    const fx = await startTcpFixture();
    const c = await RawClient.connect(fx.port);
    try {
      await fx.eventLog.close();
      const reply = await c.request(
        TcpCommand.ReadEvent,
        encodeMessage('ReadEvent', { eventStreamId: 's', eventNumber: 0, resolveLinkTos: false, requireLeader: false }),
      );
      expect(reply.command).toBe(TcpCommand.NotHandled);
      expect(decodeMessage<{ reason: number }>('NotHandled', reply.body).reason).toBe(0);
      // Connection-level requests still work.
      expect((await c.request(TcpCommand.Ping)).command).toBe(TcpCommand.Pong);
    } finally {
      c.destroy();
      await fx.server.close();
    }
  });
});

describe('event-log TCP when the store is over its write-queue bound', () => {
  it('answers NotHandled TooBusy for the writes it cannot queue, and serves the rest', async () => {
    const fx = await startTcpFixture({}, { limits: { maxQueuedRequests: 1 } });
    const c = await RawClient.connect(fx.port);
    try {
      const ids = Array.from({ length: 20 }, () => newId());
      const replies = ids.map((id) => c.reply(id));
      const s = stream('busy');
      c.write(
        Buffer.concat(
          ids.map((id) => encodeFrame(TcpCommand.WriteEvents, id, writeEventsBody(s, [{ type: 'A', data: '{}' }]))),
        ),
      );
      const answered = await Promise.all(replies);
      const busy = answered.filter((p) => p.command === TcpCommand.NotHandled);
      const written = answered.filter((p) => p.command === TcpCommand.WriteEventsCompleted);
      expect(busy.length).toBeGreaterThan(0);
      expect(written.length).toBeGreaterThan(0);
      expect(busy.length + written.length).toBe(20);
      for (const p of busy) expect(decodeMessage<{ reason: number }>('NotHandled', p.body).reason).toBe(1);
      // What was refused was not written.
      expect(fx.eventLog.store.lastEventNumber(s)).toBe(written.length - 1);
    } finally {
      c.destroy();
      await fx.close();
    }
  });
});

describe('event-log TCP replies larger than a frame', () => {
  it('returns shorter slices that page on instead of a frame over the limit', async () => {
    const fx = await startTcpFixture({ limits: { maxReplyBytes: 1024 * 1024 } });
    const c = await RawClient.connect(fx.port);
    try {
      const s = stream('huge');
      const payload = 'x'.repeat(100 * 1024);
      for (let i = 0; i < 20; i++) {
        const r = await c.request(
          TcpCommand.WriteEvents,
          writeEventsBody(s, [{ type: 'Big', data: JSON.stringify({ i, payload }) }]),
        );
        expect(r.command).toBe(TcpCommand.WriteEventsCompleted);
      }
      interface Slice {
        events: { event: { eventNumber: Int64 } }[];
        nextEventNumber: Int64;
        isEndOfStream: boolean;
      }
      for (const forward of [true, false]) {
        const numbers: number[] = [];
        let from = forward ? 0 : -1;
        let pages = 0;
        for (;;) {
          const reply = await c.request(
            forward ? TcpCommand.ReadStreamEventsForward : TcpCommand.ReadStreamEventsBackward,
            encodeMessage('ReadStreamEvents', {
              eventStreamId: s,
              fromEventNumber: from,
              maxCount: 20,
              resolveLinkTos: false,
              requireLeader: false,
            }),
          );
          expect(reply.body.length).toBeLessThan(1024 * 1024);
          const slice = decodeMessage<Slice>('ReadStreamEventsCompleted', reply.body);
          numbers.push(...slice.events.map((e) => int64ToNumber(e.event.eventNumber)));
          pages++;
          if (slice.isEndOfStream) break;
          from = int64ToNumber(slice.nextEventNumber);
        }
        expect(pages).toBeGreaterThan(1);
        const all = Array.from({ length: 20 }, (_, i) => i);
        expect(numbers).toEqual(forward ? all : all.reverse());
      }

      interface AllSlice {
        events: { event: { eventStreamId: string } }[];
        nextCommitPosition: Int64;
        nextPreparePosition: Int64;
      }
      let seen = 0;
      let position = { commitPosition: 0 as Int64, preparePosition: 0 as Int64 };
      for (let pages = 0; pages < 100; pages++) {
        const reply = await c.request(
          TcpCommand.ReadAllEventsForward,
          encodeMessage('ReadAllEvents', { ...position, maxCount: 20, resolveLinkTos: false, requireLeader: false }),
          ADMIN,
        );
        expect(reply.body.length).toBeLessThan(1024 * 1024);
        const slice = decodeMessage<AllSlice>('ReadAllEventsCompleted', reply.body);
        if (slice.events.length === 0) break;
        seen += slice.events.filter((e) => e.event.eventStreamId === s).length;
        position = { commitPosition: slice.nextCommitPosition, preparePosition: slice.nextPreparePosition };
      }
      expect(seen).toBe(20);
    } finally {
      c.destroy();
      await fx.close();
    }
  });
});

describe('event-log TCP send-queue bound', () => {
  it('drops a connection whose client stops reading once its queue passes the bound', async () => {
    const fx = await startTcpFixture({ limits: { maxSendQueueBytes: 2 * 1024 * 1024, backlogBytes: 512 * 1024 } });
    const c = await RawClient.connect(fx.port);
    try {
      const s = stream('slow-reader');
      await c.request(
        TcpCommand.WriteEvents,
        writeEventsBody(
          s,
          Array.from({ length: 10 }, () => ({ type: 'Big', data: JSON.stringify('y'.repeat(30_000)) })),
        ),
      );
      const [server] = fx.server.connections.all();
      expect(server.isBacklogged()).toBe(false);
      const closed = server.whenClosed();
      c.socket.pause(); // a client that stops reading
      const read = encodeMessage('ReadStreamEvents', {
        eventStreamId: s,
        fromEventNumber: 0,
        maxCount: 10,
        resolveLinkTos: false,
        requireLeader: false,
      });
      let sent = 0;
      while (!server.closed && sent < 2000) {
        c.send(TcpCommand.ReadStreamEventsForward, newId(), read);
        sent++;
        await new Promise((r) => setImmediate(r));
      }
      await closed;
      expect(fx.server.stats.connectionsDropped).toBe(1);
      expect(fx.server.connections.size).toBe(0);
    } finally {
      c.destroy();
      await fx.close();
    }
  });
});

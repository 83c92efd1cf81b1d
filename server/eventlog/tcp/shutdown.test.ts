import crypto from 'node:crypto';
import { expect, it } from 'vitest';
import { TcpCommand } from './commands.ts';
import { guidStringToBytes } from './guid.ts';
import { decodeMessage, encodeMessage } from './messages.ts';
import { encodeFrame } from './package.ts';
import { newId, RawClient, startTcpFixture } from './testing/raw-client.ts';

/** Closing the TCP listener: the writes already dispatched are committed and answered before connections close. */

it('answers every write in flight when it closes, then closes the connection', async () => {
  // One request per commit, so that most of the writes still wait for their commit when close() starts.
  const fx = await startTcpFixture({}, { limits: { maxBatchRequests: 1 } });
  const c = await RawClient.connect(fx.port);
  try {
    const stream = `closing-${crypto.randomUUID().slice(0, 8)}`;
    const ids = Array.from({ length: 50 }, () => newId());
    const body = (n: number) =>
      encodeMessage('WriteEvents', {
        eventStreamId: stream,
        expectedVersion: n - 1,
        requireLeader: true,
        events: [
          {
            eventId: guidStringToBytes(crypto.randomUUID()),
            eventType: 'A',
            dataContentType: 1,
            metadataContentType: 0,
            data: Buffer.from(`{"n":${n}}`),
          },
        ],
      });
    const replies = ids.map((id) => c.reply(id));
    c.write(Buffer.concat(ids.map((id, n) => encodeFrame(TcpCommand.WriteEvents, id, body(n)))));
    await replies[0];
    const answeredBeforeClose = c.received.length;
    const closing = fx.server.close();
    const answered = await Promise.race([
      Promise.all(replies),
      c.closed.then(() => {
        throw new Error(`the connection closed after ${c.received.length} of ${ids.length} answers`);
      }),
    ]);
    await closing;
    await c.closed;
    // The case this covers: writes were still waiting for their commits when close() began.
    expect(answeredBeforeClose).toBeLessThan(ids.length);
    for (const [n, p] of answered.entries()) {
      expect(p.command).toBe(TcpCommand.WriteEventsCompleted);
      const r = decodeMessage<{ result: number; firstEventNumber: unknown }>('WriteEventsCompleted', p.body);
      expect(r.result).toBe(0);
      expect(Number(r.firstEventNumber)).toBe(n);
    }
    expect(fx.eventLog.store.lastEventNumber(stream)).toBe(ids.length - 1);
  } finally {
    c.destroy();
    await fx.close();
  }
});

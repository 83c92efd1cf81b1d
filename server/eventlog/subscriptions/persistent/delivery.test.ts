import { describe, expect, it } from 'vitest';
import { append, appendMany, jsonEvent, linkEvent, text } from '../testing/event-log.ts';
import { type Received, usePersistentService } from '../testing/persistent-service.ts';

/** Persistent subscription groups delivering: the in-flight window, live and paged events, links, and the consumer strategies. */

const t = usePersistentService();

describe('delivery', () => {
  it('respects the in-flight window and refills it on ack', async () => {
    await appendMany(t.log.store, 's', 8);
    await t.createGroup('s', 'g');
    const c = t.connect('s', 'g', 3);
    expect(c.numbers()).toEqual([0, 1, 2]);
    c.ack(0);
    expect(c.numbers()).toEqual([0, 1, 2, 3]);
    c.ack(1, 2, 3);
    expect(c.numbers()).toEqual([0, 1, 2, 3, 4, 5, 6]);
    await appendMany(t.log.store, 's', 2);
    c.ack(4, 5, 6);
    expect(c.numbers()).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(c.received.every((r) => r.retryCount === 0)).toBe(true);
  });

  it('starts at the end of the stream for startFrom -1, and stays there across a restart', async () => {
    await appendMany(t.log.store, 's', 5);
    await t.createGroup('s', 'g', { startFrom: -1 });
    await t.service.close();
    t.log = await t.log.reopen();
    t.service = t.startService(t.log.store);
    await appendMany(t.log.store, 's', 2);
    const c = t.connect('s', 'g');
    expect(c.numbers()).toEqual([5, 6]);
  });

  it('delivers live events as they are committed', async () => {
    await t.createGroup('s', 'g');
    const c = t.connect('s', 'g', 100);
    for (let i = 0; i < 5; i++) await appendMany(t.log.store, 's', 1);
    expect(c.numbers()).toEqual([0, 1, 2, 3, 4]);
  });

  it('falls back to paging when the live buffer is full, without losing order', async () => {
    await t.createGroup('s', 'g', { liveBufferSize: 1, readBatchSize: 2, historyBufferSize: 3 });
    const c = t.connect('s', 'g', 1);
    for (let i = 0; i < 6; i++) await appendMany(t.log.store, 's', 1);
    expect(c.numbers()).toEqual([0]);
    for (let n = 0; n < 6; n++) c.ack(n);
    expect(c.numbers()).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('resolves links when the group asks for it; acks use the link id', async () => {
    await appendMany(t.log.store, 'src', 2);
    await append(t.log.store, 'idx', [
      linkEvent({ streamId: 'src', eventNumber: 1 }),
      linkEvent({ streamId: 'src', eventNumber: 0 }),
    ]);
    await t.createGroup('idx', 'g', { resolveLinkTos: true });
    const c = t.connect('idx', 'g');
    expect(
      c.received.map((r) => [r.event.event?.streamId, r.event.event?.eventNumber, r.event.link?.eventNumber]),
    ).toEqual([
      ['src', 1, 0],
      ['src', 0, 1],
    ]);
    c.ack(0, 1);
    expect(t.service.get('idx', 'g')?.totalInFlightMessages).toBe(0);
  });
});

describe('competing consumers', () => {
  it('RoundRobin alternates between consumers', async () => {
    await appendMany(t.log.store, 's', 6);
    await t.createGroup('s', 'g', { consumerStrategy: 'RoundRobin' });
    const a = t.connect('s', 'g', 10, { name: 'a' });
    const b = t.connect('s', 'g', 10, { name: 'b' });
    // a connected first and took everything that was waiting; new events alternate.
    a.ackAll();
    await appendMany(t.log.store, 's', 4);
    expect(a.numbers().slice(6)).toEqual([6, 8]);
    expect(b.numbers()).toEqual([7, 9]);
  });

  it('DispatchToSingle fills one consumer before the next', async () => {
    await t.createGroup('s', 'g', { consumerStrategy: 'DispatchToSingle' });
    const a = t.connect('s', 'g', 3, { name: 'a' });
    const b = t.connect('s', 'g', 3, { name: 'b' });
    await appendMany(t.log.store, 's', 5);
    expect(a.numbers()).toEqual([0, 1, 2]);
    expect(b.numbers()).toEqual([3, 4]);
  });

  it('Pinned keeps each source stream on one consumer', async () => {
    const sources = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];
    for (const s of sources) await appendMany(t.log.store, `src-${s}`, 3);
    await t.createGroup('idx', 'g', { consumerStrategy: 'Pinned', resolveLinkTos: true });
    const a = t.connect('idx', 'g', 100, { name: 'a' });
    const b = t.connect('idx', 'g', 100, { name: 'b' });
    for (let n = 0; n < 3; n++)
      for (const s of sources) await append(t.log.store, 'idx', [linkEvent({ streamId: `src-${s}`, eventNumber: n })]);
    ownerOfEach({ a, b }, (r) => r.event.event!.streamId);
    expect(a.received.length + b.received.length).toBe(24);
    expect(a.received.length).toBeGreaterThan(0);
    expect(b.received.length).toBeGreaterThan(0);
  });

  it('PinnedByCorrelation keeps each correlation id on one consumer', async () => {
    await t.createGroup('s', 'g', { consumerStrategy: 'PinnedByCorrelation' });
    const a = t.connect('s', 'g', 100, { name: 'a' });
    const b = t.connect('s', 'g', 100, { name: 'b' });
    const correlations = Array.from({ length: 10 }, (_, i) => `corr-${i}`);
    for (let round = 0; round < 3; round++) {
      await append(
        t.log.store,
        's',
        correlations.map((c) => jsonEvent('E', {}, { $correlationId: c })),
      );
    }
    const owner = ownerOfEach({ a, b }, (r) => JSON.parse(text(r.event.event!.metadata)).$correlationId as string);
    expect(new Set(owner.values()).size).toBe(2);
  });

  it('redistributes a disconnected consumer’s messages', async () => {
    await appendMany(t.log.store, 's', 4);
    await t.createGroup('s', 'g', { consumerStrategy: 'DispatchToSingle' });
    const a = t.connect('s', 'g', 2, { name: 'a' });
    const b = t.connect('s', 'g', 10, { name: 'b' });
    expect(a.numbers()).toEqual([0, 1]);
    expect(b.numbers()).toEqual([2, 3]);
    a.handle.close();
    expect(b.numbers()).toEqual([2, 3, 0, 1]);
    expect(b.received.slice(2).map((r) => r.retryCount)).toEqual([1, 1]);
    expect(a.drops).toEqual([]);
  });

  it('unsubscribe tells the consumer Unsubscribed and retries its messages elsewhere', async () => {
    await appendMany(t.log.store, 's', 1);
    await t.createGroup('s', 'g');
    const a = t.connect('s', 'g', 1, { name: 'a' });
    const b = t.connect('s', 'g', 1, { name: 'b' });
    a.handle.unsubscribe();
    expect(a.drops).toEqual(['Unsubscribed']);
    expect(b.numbers()).toEqual([0]);
  });
});

/** Which consumer received the messages of each key, checking that no key went to two consumers. */
function ownerOfEach(consumers: Record<string, { received: Received[] }>, keyOf: (r: Received) => string) {
  const owner = new Map<string, string>();
  for (const [name, c] of Object.entries(consumers)) {
    for (const r of c.received) {
      const key = keyOf(r);
      expect(owner.get(key) ?? name).toBe(name);
      owner.set(key, name);
    }
  }
  return owner;
}

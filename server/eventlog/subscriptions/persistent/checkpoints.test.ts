import { describe, expect, it } from 'vitest';
import { admin, appendMany, settle } from '../testing/event-log.ts';
import { readCheckpoint, settings, usePersistentService } from '../testing/persistent-service.ts';
import { checkpointStreamOf, parkedStreamOf } from './group-streams.ts';

/** Persistent subscription groups across restarts: checkpoints, resuming, and updates and deletion of a running group. */

const t = usePersistentService();

describe('checkpoints and restarts', () => {
  it('checkpoints after max count, before the lowest unfinished message', async () => {
    await appendMany(t.log.store, 's', 10);
    await t.createGroup('s', 'g', { maxCheckpointCount: 3 });
    const c = t.connect('s', 'g', 10);
    c.ack(0, 1, 3, 4, 5);
    await settle();
    // Only 0 and 1 are below the lowest unfinished message (2): two, less than the max count of 3.
    expect(readCheckpoint(t.log.store, 's', 'g')).toBeNull();
    c.ack(2);
    await settle();
    expect(readCheckpoint(t.log.store, 's', 'g')).toBe(5);
    c.ack(6, 7);
    await settle();
    expect(readCheckpoint(t.log.store, 's', 'g')).toBe(5);
    c.ack(8);
    await settle();
    expect(readCheckpoint(t.log.store, 's', 'g')).toBe(8);
    expect(t.service.get('s', 'g')?.lastCheckpointedEventNumber).toBe(8);
    const meta = t.log.store.getStreamMetadata(checkpointStreamOf('s', 'g'));
    expect(meta.maxCount).toBe(2);
    const r = t.log.store.readStreamBackward(checkpointStreamOf('s', 'g'), -1, 1, false, admin);
    expect(r.events[0].event?.eventType).toBe('SubscriptionCheckpoint');
  });

  it('checkpoints on the timer once min count is reached', async () => {
    await appendMany(t.log.store, 's', 5);
    await t.createGroup('s', 'g', { checkpointAfterMs: 3_000, minCheckpointCount: 2 });
    const c = t.connect('s', 'g');
    c.ack(0);
    t.clock.advance(3_000);
    await settle();
    expect(readCheckpoint(t.log.store, 's', 'g')).toBeNull();
    c.ack(1);
    t.clock.advance(1_000);
    await settle();
    expect(readCheckpoint(t.log.store, 's', 'g')).toBe(1);
  });

  it('persists groups and resumes after the checkpoint on restart, redelivering what was not acked', async () => {
    await appendMany(t.log.store, 's', 10);
    await t.createGroup('s', 'g', { consumerStrategy: 'DispatchToSingle', maxRetryCount: 9 });
    const c = t.connect('s', 'g', 10);
    c.ack(0, 1, 2, 4, 5);
    await t.service.close();
    t.log = await t.log.reopen();
    t.service = t.startService(t.log.store);
    expect(t.service.list().map((g) => g.subscriptionId)).toEqual(['s::g']);
    expect(t.service.get('s', 'g')?.settings.consumerStrategy).toBe('DispatchToSingle');
    const again = t.connect('s', 'g', 10);
    expect(again.numbers()).toEqual([3, 4, 5, 6, 7, 8, 9]);
  });

  it('loses nothing when the process stops without a final checkpoint', async () => {
    await t.createGroup('s', 'g', { maxCheckpointCount: 4 });
    const c = t.connect('s', 'g', 5);
    const acked = new Set<number>();
    for (let i = 0; i < 3; i++) {
      await appendMany(t.log.store, 's', 5);
      const outstanding = c.numbers().filter((n) => !acked.has(n));
      const toAck = outstanding.filter((n) => n % 7 !== 3);
      c.ack(...toAck);
      toAck.forEach((n) => acked.add(n));
    }
    await settle();
    // "Crash": the old service never flushes; a new one starts on the reopened store.
    t.services.splice(t.services.indexOf(t.service), 1);
    t.log = await t.log.reopen();
    t.service = t.startService(t.log.store);
    const again = t.connect('s', 'g', 100);
    const all = new Set([...acked, ...again.numbers()]);
    expect([...all].sort((x, y) => x - y)).toEqual(Array.from({ length: 15 }, (_, i) => i));
    expect(again.numbers()).toContain(3);
  });

  it('update drops consumers with Unsubscribed and keeps the position', async () => {
    await appendMany(t.log.store, 's', 4);
    await t.createGroup('s', 'g');
    const c = t.connect('s', 'g', 10);
    c.ack(0, 1);
    expect((await t.service.update('s', 'g', settings({ maxRetryCount: 1 }), admin)).result).toBe('Success');
    expect(c.drops).toEqual(['Unsubscribed']);
    const again = t.connect('s', 'g', 10);
    expect(again.numbers()).toEqual([2, 3]);
  });

  it('delete drops consumers, removes the group for good and deletes its streams', async () => {
    await appendMany(t.log.store, 's', 3);
    await t.createGroup('s', 'g', { maxCheckpointCount: 1 });
    const c = t.connect('s', 'g', 10);
    c.ack(0);
    c.nak('Park', 1);
    await settle();
    expect((await t.service.delete('s', 'g', admin)).result).toBe('Success');
    expect(c.drops).toEqual(['Unsubscribed']);
    expect(t.log.store.readStreamForward(checkpointStreamOf('s', 'g'), 0, 10, false, admin).result).toBe('NoStream');
    expect(t.log.store.readStreamForward(parkedStreamOf('s', 'g'), 0, 10, false, admin).result).toBe('NoStream');
    await t.service.close();
    t.log = await t.log.reopen();
    t.service = t.startService(t.log.store);
    expect(t.service.list()).toEqual([]);
    // A new group of the same name starts clean.
    await t.createGroup('s', 'g');
    expect(t.service.get('s', 'g')?.parkedMessageCount).toBe(0);
    expect(t.connect('s', 'g', 10).numbers()).toEqual([0, 1, 2]);
  });
});

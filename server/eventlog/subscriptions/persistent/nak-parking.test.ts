import { describe, expect, it } from 'vitest';
import { admin, appendMany, settle, text } from '../testing/event-log.ts';
import { usePersistentService } from '../testing/persistent-service.ts';
import { parkedStreamOf } from './group-streams.ts';

/** Persistent subscription groups retrying: nak actions, timeouts, parking and replaying parked messages. */

const t = usePersistentService();

describe('nak, timeouts, retries and parking', () => {
  it('Retry redelivers with a higher retry count, then parks after max_retry_count', async () => {
    await appendMany(t.log.store, 's', 1);
    await t.createGroup('s', 'g', { maxRetryCount: 2 });
    const c = t.connect('s', 'g');
    c.nak('Retry', 0);
    c.nak('Retry', 0);
    expect(c.received.map((r) => r.retryCount)).toEqual([0, 1, 2]);
    c.nak('Retry', 0);
    await settle();
    expect(c.received).toHaveLength(3);
    expect(t.service.get('s', 'g')?.parkedMessageCount).toBe(1);
    const parked = t.service.listParked('s', 'g')!;
    expect(parked.messages[0].eventNumber).toBe(0);
    expect(parked.messages[0].reason).toMatch(/Max retry count/);
  });

  it('Unknown behaves like Retry', async () => {
    await appendMany(t.log.store, 's', 1);
    await t.createGroup('s', 'g');
    const c = t.connect('s', 'g');
    c.nak('Unknown', 0);
    expect(c.received.map((r) => r.retryCount)).toEqual([0, 1]);
  });

  it('Park writes a $> link with JSON metadata to the parked stream', async () => {
    await appendMany(t.log.store, 's', 2);
    await t.createGroup('s', 'g');
    const c = t.connect('s', 'g');
    c.nak('Park', 1);
    await settle();
    const r = t.log.store.readStreamForward(parkedStreamOf('s', 'g'), 0, 10, false, admin);
    expect(parkedStreamOf('s', 'g')).toBe('$persistentsubscription-s::g-parked');
    expect(r.events).toHaveLength(1);
    const link = r.events[0].event!;
    expect(link.eventType).toBe('$>');
    expect(text(link.data)).toBe('1@s');
    const meta = JSON.parse(text(link.metadata));
    expect(meta.Reason).toContain("Client explicitly NAK'ed message.");
    expect(meta.SubscriptionEventNumber).toBe(1);
    expect(typeof meta.Added).toBe('string');
    expect(c.received).toHaveLength(2); // not redelivered
  });

  it('Skip forgets the message; Stop leaves it in flight until it times out', async () => {
    await appendMany(t.log.store, 's', 2);
    await t.createGroup('s', 'g', { messageTimeoutMs: 5_000 });
    const c = t.connect('s', 'g');
    c.nak('Skip', 0);
    c.nak('Stop', 1);
    expect(c.received).toHaveLength(2);
    expect(t.service.get('s', 'g')?.totalInFlightMessages).toBe(1);
    t.clock.advance(4_000);
    expect(c.received).toHaveLength(2);
    t.clock.advance(1_000);
    expect(c.numbers()).toEqual([0, 1, 1]);
    expect(c.received[2].retryCount).toBe(1);
  });

  it('redelivers timed-out messages and parks them after max retries', async () => {
    await appendMany(t.log.store, 's', 1);
    await t.createGroup('s', 'g', { messageTimeoutMs: 2_000, maxRetryCount: 1 });
    const c = t.connect('s', 'g');
    t.clock.advance(2_000);
    expect(c.received.map((r) => r.retryCount)).toEqual([0, 1]);
    t.clock.advance(2_000);
    await settle();
    expect(c.received).toHaveLength(2);
    expect(t.service.get('s', 'g')?.parkedMessageCount).toBe(1);
  });

  it('never times out when message_timeout is 0', async () => {
    await appendMany(t.log.store, 's', 1);
    await t.createGroup('s', 'g', { messageTimeoutMs: 0 });
    const c = t.connect('s', 'g');
    t.clock.advance(3_600_000);
    expect(c.received).toHaveLength(1);
  });

  it('replays parked messages (all or the first N) and truncates the parked stream once they are done', async () => {
    await appendMany(t.log.store, 's', 4);
    await t.createGroup('s', 'g');
    const c = t.connect('s', 'g');
    c.nak('Park', 0, 1, 2);
    await settle();
    expect(t.service.get('s', 'g')?.parkedMessageCount).toBe(3);
    const page = t.service.listParked('s', 'g', { from: 0, count: 2 })!;
    expect(page.messages.map((m) => m.eventNumber)).toEqual([0, 1]);
    expect(page.nextEventNumber).toBe(2);
    expect(page.total).toBe(3);

    expect(t.service.replayParked('s', 'g', { stopAt: 2 })).toBe(2);
    expect(c.numbers()).toEqual([0, 1, 2, 3, 0, 1]);
    expect(t.service.get('s', 'g')?.parkedMessageCount).toBe(1);
    c.ack(0, 1);
    await settle();
    expect(t.log.store.getStreamMetadata(parkedStreamOf('s', 'g')).truncateBefore).toBe(2);
    expect(t.service.listParked('s', 'g')!.messages.map((m) => m.eventNumber)).toEqual([2]);

    expect(t.service.replayParked('s', 'g')).toBe(1);
    expect(c.numbers().slice(6)).toEqual([2]);
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Position, ResolvedEvent } from '../store/types.ts';
import {
  admin,
  append,
  appendMany,
  jsonEvent,
  linkEvent,
  openTempEventLog,
  removeDir,
  setMetadata,
  silentLogger,
  someone,
  text,
  type TempEventLog,
} from './testing/event-log.ts';
import type { DropReason, SubscriberInfo, VolatileSubscribeRequest } from './types.ts';
import { VolatileSubscriptions } from './volatile.ts';

const subscriber: SubscriberInfo = {
  connectionId: 'c1',
  connectionName: 'test',
  remoteAddress: '127.0.0.1:1',
  caller: admin,
};

interface Recorder {
  events: ResolvedEvent[];
  checkpoints: Position[];
  drops: DropReason[];
  accept: boolean;
}

function recorder(): Recorder & { sink: VolatileSubscribeRequest['sink'] } {
  const r: Recorder = { events: [], checkpoints: [], drops: [], accept: true };
  return Object.assign(r, {
    sink: {
      eventAppeared: (e: ResolvedEvent) => {
        if (!r.accept) return false;
        r.events.push(e);
        return true;
      },
      checkpointReached: (p: Position) => {
        r.checkpoints.push(p);
        return true;
      },
      dropped: (reason: DropReason) => {
        r.drops.push(reason);
      },
    },
  });
}

let log: TempEventLog;
let engine: VolatileSubscriptions;

beforeEach(async () => {
  log = await openTempEventLog();
  engine = new VolatileSubscriptions(log.store, { logger: silentLogger });
});

afterEach(async () => {
  engine.close();
  await log.close();
  removeDir(log.dir);
});

function subscribe(streamId: string, rec: ReturnType<typeof recorder>, extra: Partial<VolatileSubscribeRequest> = {}) {
  const result = engine.subscribe({
    streamId,
    resolveLinkTos: false,
    caller: admin,
    subscriber,
    sink: rec.sink,
    ...extra,
  });
  if (!result.ok) throw new Error(`subscribe failed: ${result.reason}`);
  return result;
}

describe('volatile stream subscriptions', () => {
  it('confirms a missing stream with -1 and then delivers only that stream, in order', async () => {
    const rec = recorder();
    const sub = subscribe('orders-1', rec);
    expect(sub.confirmation.lastEventNumber).toBe(-1);
    expect(sub.confirmation.lastCommitPosition).toBe(log.store.lastCommitPosition());

    await appendMany(log.store, 'orders-1', 3);
    await appendMany(log.store, 'orders-2', 2);
    await appendMany(log.store, 'orders-1', 2);

    expect(rec.events.map((e) => [e.event?.streamId, e.event?.eventNumber])).toEqual([
      ['orders-1', 0],
      ['orders-1', 1],
      ['orders-1', 2],
      ['orders-1', 3],
      ['orders-1', 4],
    ]);
    const positions = rec.events.map((e) => e.commitPosition);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it('confirms at the current end and delivers nothing from before it', async () => {
    await appendMany(log.store, 's', 4);
    const rec = recorder();
    const sub = subscribe('s', rec);
    expect(sub.confirmation.lastEventNumber).toBe(3);
    expect(sub.confirmation.lastCommitPosition).toBe(log.store.lastCommitPosition());
    await appendMany(log.store, 's', 1);
    expect(rec.events.map((e) => e.event?.eventNumber)).toEqual([4]);
    expect(rec.events[0].commitPosition).toBeGreaterThan(sub.confirmation.lastCommitPosition);
  });

  it('stops on unsubscribe with Unsubscribed, and close() forgets silently', async () => {
    const a = recorder();
    const b = recorder();
    const subA = subscribe('s', a);
    const subB = subscribe('s', b);
    await appendMany(log.store, 's', 1);
    subA.subscription.unsubscribe();
    subB.subscription.close();
    await appendMany(log.store, 's', 1);
    expect(a.events).toHaveLength(1);
    expect(a.drops).toEqual(['Unsubscribed']);
    expect(b.events).toHaveLength(1);
    expect(b.drops).toEqual([]);
    expect(engine.count).toBe(0);
  });

  it('resolves links when asked, keeping the link position', async () => {
    await append(log.store, 'target', [jsonEvent('Thing', { v: 1 })]);
    const plain = recorder();
    const resolved = recorder();
    subscribe('links', plain);
    subscribe('links', resolved, { resolveLinkTos: true });
    await append(log.store, 'links', [
      linkEvent({ streamId: 'target', eventNumber: 0 }),
      linkEvent({ streamId: 'target', eventNumber: 9 }),
    ]);

    expect(plain.events.map((e) => e.event?.eventType)).toEqual(['$>', '$>']);
    expect(plain.events[0].link).toBeUndefined();

    const [found, missing] = resolved.events;
    expect(found.event?.streamId).toBe('target');
    expect(text(found.event!.data)).toBe('{"v":1}');
    expect(found.link?.streamId).toBe('links');
    expect(found.commitPosition).toBe(found.link!.commitPosition);
    expect(missing.event).toBeUndefined();
    expect(missing.link?.eventNumber).toBe(1);
  });

  it('refuses a reader without access and drops subscribers when access is revoked', async () => {
    await setMetadata(log.store, 'secret', { $acl: { $r: '$admins' } });
    const denied = engine.subscribe({
      streamId: 'secret',
      resolveLinkTos: false,
      caller: someone,
      subscriber,
      sink: recorder().sink,
    });
    expect(denied).toMatchObject({ ok: false, reason: 'AccessDenied' });
    const anonymousAll = engine.subscribe({
      streamId: '',
      resolveLinkTos: false,
      caller: null,
      subscriber,
      sink: recorder().sink,
    });
    expect(anonymousAll).toMatchObject({ ok: false, reason: 'AccessDenied' });

    const rec = recorder();
    subscribe('open', rec, { caller: someone });
    await appendMany(log.store, 'open', 1);
    await setMetadata(log.store, 'open', { $acl: { $r: '$admins' } });
    await appendMany(log.store, 'open', 1);
    expect(rec.events).toHaveLength(1);
    expect(rec.drops).toEqual(['AccessDenied']);
  });

  it('drops subscribers of a hard-deleted stream but keeps those of a soft-deleted one', async () => {
    await appendMany(log.store, 'hard', 1);
    await appendMany(log.store, 'soft', 1);
    const hard = recorder();
    const soft = recorder();
    subscribe('hard', hard);
    subscribe('soft', soft);
    await log.store.deleteStream('hard', -2, true, admin);
    await log.store.deleteStream('soft', -2, false, admin);
    await appendMany(log.store, 'soft', 1);
    expect(hard.drops).toEqual(['StreamDeleted']);
    expect(soft.drops).toEqual([]);
    expect(soft.events.map((e) => e.event?.eventNumber)).toEqual([1]);
    expect(
      engine.subscribe({ streamId: 'hard', resolveLinkTos: false, caller: admin, subscriber, sink: recorder().sink }),
    ).toMatchObject({
      ok: false,
      reason: 'StreamDeleted',
    });
  });

  it('drops only the subscriber that cannot keep up', async () => {
    const slow = recorder();
    const fast = recorder();
    subscribe('s', slow);
    subscribe('s', fast);
    await appendMany(log.store, 's', 1);
    slow.accept = false;
    await appendMany(log.store, 's', 2);
    expect(slow.events).toHaveLength(1);
    expect(slow.drops).toEqual(['SlowSubscriber']);
    expect(fast.events).toHaveLength(3);
    expect(fast.drops).toEqual([]);
  });
});

describe('volatile $all subscriptions', () => {
  it('delivers every stream in commit order with increasing positions', async () => {
    await appendMany(log.store, 'before', 2);
    const rec = recorder();
    const sub = subscribe('', rec);
    expect(sub.confirmation.lastEventNumber).toBeNull();
    await appendMany(log.store, 'a', 2);
    await appendMany(log.store, 'b', 1);
    await appendMany(log.store, 'a', 1);
    const userEvents = rec.events.filter((e) => !e.event!.streamId.startsWith('$'));
    expect(userEvents.map((e) => `${e.event?.streamId}/${e.event?.eventNumber}`)).toEqual(['a/0', 'a/1', 'b/0', 'a/2']);
    for (let i = 1; i < rec.events.length; i++) {
      const [p, q] = [rec.events[i - 1], rec.events[i]];
      expect(
        q.commitPosition > p.commitPosition ||
          (q.commitPosition === p.commitPosition && q.preparePosition > p.preparePosition),
      ).toBe(true);
    }
    expect(rec.events.every((e) => e.commitPosition > sub.confirmation.lastCommitPosition)).toBe(true);
  });
});

const after = (p: Position) => (e: ResolvedEvent) =>
  e.commitPosition > p.commitPosition ||
  (e.commitPosition === p.commitPosition && e.preparePosition > p.preparePosition);

describe('filtered subscriptions', () => {
  it('filters by event type prefix and by stream regex', async () => {
    const byType = recorder();
    const byStream = recorder();
    subscribe('', byType, {
      filter: { context: 'EventType', type: 'Prefix', data: ['order-', 'invoice-'] },
      checkpointInterval: -1,
    });
    subscribe('', byStream, {
      filter: { context: 'StreamId', type: 'Regex', data: ['^cust-\\d+$'] },
      checkpointInterval: -1,
    });
    await append(log.store, 'cust-1', [jsonEvent('order-placed', {}), jsonEvent('note', {})]);
    await append(log.store, 'cust-x', [jsonEvent('invoice-sent', {})]);
    await append(log.store, 'other', [jsonEvent('order-cancelled', {})]);
    expect(byType.events.map((e) => e.event?.eventType)).toEqual(['order-placed', 'invoice-sent', 'order-cancelled']);
    expect(byStream.events.map((e) => e.event?.eventType)).toEqual(['order-placed', 'note']);
    expect(byType.checkpoints).toEqual([]);
  });

  it('rejects a filter regex that does not compile', () => {
    const result = engine.subscribe({
      streamId: '',
      resolveLinkTos: false,
      caller: admin,
      subscriber,
      sink: recorder().sink,
      filter: { context: 'StreamId', type: 'Regex', data: ['(unclosed'] },
      checkpointInterval: 5,
    });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.invalidRequest).toMatch(/regex/);
  });

  it('checkpoints inside a transaction (events sharing a commit position) resume at the next event of that transaction', async () => {
    const rec = recorder();
    const filter = { context: 'EventType' as const, type: 'Prefix' as const, data: ['tx'] };
    subscribe('', rec, { filter, checkpointInterval: 1 });
    const tx = await log.store.startTransaction('tx-stream', -2, admin);
    await log.store.transactionWrite(
      tx.transactionId,
      [jsonEvent('tx-1', {}), jsonEvent('tx-2', {}), jsonEvent('tx-3', {})],
      admin,
    );
    const committed = await log.store.commitTransaction(tx.transactionId, admin);
    expect(committed.result).toBe('Success');
    expect(rec.events.map((e) => e.event?.eventType)).toEqual(['tx-1', 'tx-2', 'tx-3']);
    expect(new Set(rec.events.map((e) => e.commitPosition)).size).toBe(1);
    expect(rec.checkpoints).toHaveLength(3);
    for (const [i, cp] of rec.checkpoints.entries()) {
      const resumed = log.store.filteredReadAllForward(cp, 100, 100, filter, false, admin).events.filter(after(cp));
      expect(resumed.map((e) => e.event?.eventType)).toEqual(['tx-1', 'tx-2', 'tx-3'].slice(i + 1));
    }
  });

  it('sends a checkpoint every N seen events, at positions a catch-up resumes from without gaps or repeats', async () => {
    const interval = 4;
    const rec = recorder();
    const filter = { context: 'EventType' as const, type: 'Prefix' as const, data: ['wanted'] };
    const sub = subscribe('', rec, { filter, checkpointInterval: interval });
    for (let round = 0; round < 6; round++) {
      await append(log.store, `s-${round % 3}`, [
        jsonEvent(round % 2 ? 'wanted' : 'other', { round }),
        jsonEvent('other', {}),
        jsonEvent('wanted', { round }),
      ]);
    }
    // Everything the subscription saw, in order.
    const confirmed = {
      commitPosition: sub.confirmation.lastCommitPosition,
      preparePosition: sub.confirmation.lastCommitPosition,
    };
    const seen = log.store
      .readAllForward(confirmed, 4096, false, admin)
      .events.filter((e) => e.commitPosition > confirmed.commitPosition);
    expect(seen.length).toBe(18);
    expect(rec.checkpoints).toHaveLength(Math.floor(seen.length / interval));
    rec.checkpoints.forEach((cp, i) => {
      const nth = seen[(i + 1) * interval - 1];
      expect(cp).toEqual({ commitPosition: nth.commitPosition, preparePosition: nth.preparePosition });
    });

    for (const cp of rec.checkpoints) {
      // What a catch-up subscription does from a checkpoint: read forward from it, skip positions <= it.
      const resumed = log.store
        .filteredReadAllForward(cp, 4096, 4096, filter, false, admin)
        .events.filter(after(cp))
        .map((e) => e.event?.eventId);
      const live = rec.events.filter(after(cp)).map((e) => e.event?.eventId);
      expect(resumed).toEqual(live);
    }
  });
});

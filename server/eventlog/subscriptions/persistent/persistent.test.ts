// Over 400 lines on purpose: one subject, persistent subscription groups (management, delivery, nak and parking, competing consumers); its cases share one set-up.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ResolvedIndexedEvent } from '../../store/types.ts';
import type { EventStore } from '../../store/store-contract.ts';
import { ManualClock } from '../clock.ts';
import { SUBSCRIPTIONS_SYSTEM_PRINCIPAL } from '../index.ts';
import {
  admin,
  append,
  appendMany,
  jsonEvent,
  linkEvent,
  openTempEventLog,
  ops,
  removeDir,
  settle,
  silentLogger,
  someone,
  text,
  type TempEventLog,
} from '../testing/event-log.ts';
import type { Caller } from '../../store/types.ts';
import type { DropReason, NakAction, PersistentSubscriptionSettings } from '../types.ts';
import { checkpointStreamOf, parkedStreamOf } from './group-streams.ts';
import { PersistentSubscriptions } from './service.ts';

let log: TempEventLog;
let clock: ManualClock;
let service: PersistentSubscriptions;
const services: PersistentSubscriptions[] = [];

function startService(store: EventStore): PersistentSubscriptions {
  const s = new PersistentSubscriptions({ store, logger: silentLogger, clock, system: SUBSCRIPTIONS_SYSTEM_PRINCIPAL });
  s.start();
  services.push(s);
  return s;
}

beforeEach(async () => {
  log = await openTempEventLog();
  clock = new ManualClock();
  service = startService(log.store);
});

afterEach(async () => {
  for (const s of services.splice(0)) await s.close();
  await log.close();
  removeDir(log.dir);
});

/** Small, test-friendly settings: checkpoints only when a test asks for them. */
function settings(overrides: Partial<PersistentSubscriptionSettings> = {}): Partial<PersistentSubscriptionSettings> {
  return {
    startFrom: 0,
    messageTimeoutMs: 0,
    maxRetryCount: 3,
    checkpointAfterMs: 0,
    maxCheckpointCount: 1_000_000,
    minCheckpointCount: 1,
    ...overrides,
  };
}

async function createGroup(stream: string, group: string, overrides: Partial<PersistentSubscriptionSettings> = {}) {
  const result = await service.create(stream, group, settings(overrides), admin);
  expect(result).toEqual({ result: 'Success' });
}

interface Received {
  event: ResolvedIndexedEvent;
  retryCount: number;
}

function connect(
  stream: string,
  group: string,
  window = 10,
  options: { caller?: Caller; name?: string; on?: PersistentSubscriptions } = {},
) {
  const received: Received[] = [];
  const drops: DropReason[] = [];
  const result = (options.on ?? service).connect({
    streamId: stream,
    groupName: group,
    allowedInFlightMessages: window,
    caller: options.caller ?? admin,
    subscriber: {
      connectionId: options.name ?? 'conn',
      connectionName: options.name ?? 'consumer',
      remoteAddress: '127.0.0.1:5000',
      caller: admin,
    },
    sink: {
      eventAppeared: (event, retryCount) => {
        received.push({ event, retryCount });
        return true;
      },
      dropped: (reason) => {
        drops.push(reason);
      },
    },
  });
  if (!result.ok) throw new Error(`connect failed: ${result.reason}`);
  result.consumer.start();
  const original = (r: Received) => (r.event.link ?? r.event.event)!;
  return {
    received,
    drops,
    handle: result.consumer,
    confirmation: result.confirmation,
    numbers: () => received.map((r) => original(r).eventNumber),
    idOf: (n: number) => original(received.find((r) => original(r).eventNumber === n)!).eventId,
    ack(...numbers: number[]) {
      result.consumer.ack(numbers.map((n) => this.idOf(n)));
    },
    nak(action: NakAction, ...numbers: number[]) {
      result.consumer.nak(
        numbers.map((n) => this.idOf(n)),
        action,
        'test says so',
      );
    },
    ackAll() {
      result.consumer.ack(received.map((r) => original(r).eventId));
    },
  };
}

function readCheckpoint(store: EventStore, stream: string, group: string): number | null {
  const r = store.readStreamBackward(checkpointStreamOf(stream, group), -1, 1, false, admin);
  if (r.result !== 'Success' || r.events.length === 0) return null;
  return Number(JSON.parse(text(r.events[0].event!.data)));
}

describe('managing groups', () => {
  it('answers each result EventStoreDB defines', async () => {
    expect((await service.create('s', 'g', settings(), null)).result).toBe('AccessDenied');
    expect((await service.create('s', 'g', settings(), someone)).result).toBe('AccessDenied');
    expect((await service.create('', 'g', settings(), admin)).result).toBe('Fail');
    expect((await service.create('$all', 'g', settings(), admin)).result).toBe('Fail');
    expect((await service.create('s', 'g', settings({ consumerStrategy: 'Nope' as never }), admin)).result).toBe(
      'Fail',
    );
    expect((await service.create('s', 'g', settings({ readBatchSize: 0 }), admin)).result).toBe('Fail');
    expect(await service.create('s', 'g', settings(), ops)).toEqual({ result: 'Success' });
    expect((await service.create('s', 'g', settings(), admin)).result).toBe('AlreadyExists');

    expect((await service.update('s', 'missing', settings(), admin)).result).toBe('DoesNotExist');
    expect((await service.update('s', 'g', settings(), someone)).result).toBe('AccessDenied');
    expect((await service.update('s', 'g', settings({ maxRetryCount: 7 }), admin)).result).toBe('Success');
    expect(service.get('s', 'g')?.settings.maxRetryCount).toBe(7);

    expect((await service.delete('s', 'missing', admin)).result).toBe('DoesNotExist');
    expect((await service.delete('s', 'g', someone)).result).toBe('AccessDenied');
    expect((await service.delete('s', 'g', admin)).result).toBe('Success');
    expect(service.get('s', 'g')).toBeUndefined();
  });

  it('refuses connections to unknown groups, unreadable streams and full groups', async () => {
    await createGroup('s', 'g', { maxSubscriberCount: 1 });
    const denied = () =>
      service.connect({
        streamId: 's',
        groupName: 'nope',
        allowedInFlightMessages: 1,
        caller: admin,
        subscriber: {} as never,
        sink: {} as never,
      });
    expect(denied()).toMatchObject({ ok: false, reason: 'NotFound' });
    connect('s', 'g');
    expect(
      service.connect({
        streamId: 's',
        groupName: 'g',
        allowedInFlightMessages: 1,
        caller: admin,
        subscriber: {} as never,
        sink: {} as never,
      }),
    ).toMatchObject({
      ok: false,
      reason: 'SubscriberMaxCountReached',
    });
    await append(log.store, '$$locked', [jsonEvent('$metadata', { $acl: { $r: '$admins' } })]);
    await createGroup('locked', 'g');
    expect(
      service.connect({
        streamId: 'locked',
        groupName: 'g',
        allowedInFlightMessages: 1,
        caller: someone,
        subscriber: {} as never,
        sink: {} as never,
      }),
    ).toMatchObject({
      ok: false,
      reason: 'AccessDenied',
    });
  });

  it('confirms with the subscription id "<stream>::<group>" and the stream position', async () => {
    await appendMany(log.store, 'orders', 3);
    await createGroup('orders', 'billing');
    const c = connect('orders', 'billing');
    expect(c.confirmation.subscriptionId).toBe('orders::billing');
    expect(c.confirmation.lastEventNumber).toBe(2);
    expect(c.confirmation.lastCommitPosition).toBe(log.store.lastCommitPosition());
  });
});

describe('delivery', () => {
  it('respects the in-flight window and refills it on ack', async () => {
    await appendMany(log.store, 's', 8);
    await createGroup('s', 'g');
    const c = connect('s', 'g', 3);
    expect(c.numbers()).toEqual([0, 1, 2]);
    c.ack(0);
    expect(c.numbers()).toEqual([0, 1, 2, 3]);
    c.ack(1, 2, 3);
    expect(c.numbers()).toEqual([0, 1, 2, 3, 4, 5, 6]);
    await appendMany(log.store, 's', 2);
    c.ack(4, 5, 6);
    expect(c.numbers()).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(c.received.every((r) => r.retryCount === 0)).toBe(true);
  });

  it('starts at the end of the stream for startFrom -1, and stays there across a restart', async () => {
    await appendMany(log.store, 's', 5);
    await createGroup('s', 'g', { startFrom: -1 });
    await service.close();
    log = await log.reopen();
    service = startService(log.store);
    await appendMany(log.store, 's', 2);
    const c = connect('s', 'g');
    expect(c.numbers()).toEqual([5, 6]);
  });

  it('delivers live events as they are committed', async () => {
    await createGroup('s', 'g');
    const c = connect('s', 'g', 100);
    for (let i = 0; i < 5; i++) await appendMany(log.store, 's', 1);
    expect(c.numbers()).toEqual([0, 1, 2, 3, 4]);
  });

  it('falls back to paging when the live buffer is full, without losing order', async () => {
    await createGroup('s', 'g', { liveBufferSize: 1, readBatchSize: 2, historyBufferSize: 3 });
    const c = connect('s', 'g', 1);
    for (let i = 0; i < 6; i++) await appendMany(log.store, 's', 1);
    expect(c.numbers()).toEqual([0]);
    for (let n = 0; n < 6; n++) c.ack(n);
    expect(c.numbers()).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('resolves links when the group asks for it; acks use the link id', async () => {
    await appendMany(log.store, 'src', 2);
    await append(log.store, 'idx', [
      linkEvent({ streamId: 'src', eventNumber: 1 }),
      linkEvent({ streamId: 'src', eventNumber: 0 }),
    ]);
    await createGroup('idx', 'g', { resolveLinkTos: true });
    const c = connect('idx', 'g');
    expect(
      c.received.map((r) => [r.event.event?.streamId, r.event.event?.eventNumber, r.event.link?.eventNumber]),
    ).toEqual([
      ['src', 1, 0],
      ['src', 0, 1],
    ]);
    c.ack(0, 1);
    expect(service.get('idx', 'g')?.totalInFlightMessages).toBe(0);
  });
});

describe('nak, timeouts, retries and parking', () => {
  it('Retry redelivers with a higher retry count, then parks after max_retry_count', async () => {
    await appendMany(log.store, 's', 1);
    await createGroup('s', 'g', { maxRetryCount: 2 });
    const c = connect('s', 'g');
    c.nak('Retry', 0);
    c.nak('Retry', 0);
    expect(c.received.map((r) => r.retryCount)).toEqual([0, 1, 2]);
    c.nak('Retry', 0);
    await settle();
    expect(c.received).toHaveLength(3);
    expect(service.get('s', 'g')?.parkedMessageCount).toBe(1);
    const parked = service.listParked('s', 'g')!;
    expect(parked.messages[0].eventNumber).toBe(0);
    expect(parked.messages[0].reason).toMatch(/Max retry count/);
  });

  it('Unknown behaves like Retry', async () => {
    await appendMany(log.store, 's', 1);
    await createGroup('s', 'g');
    const c = connect('s', 'g');
    c.nak('Unknown', 0);
    expect(c.received.map((r) => r.retryCount)).toEqual([0, 1]);
  });

  it('Park writes a $> link with JSON metadata to the parked stream', async () => {
    await appendMany(log.store, 's', 2);
    await createGroup('s', 'g');
    const c = connect('s', 'g');
    c.nak('Park', 1);
    await settle();
    const r = log.store.readStreamForward(parkedStreamOf('s', 'g'), 0, 10, false, admin);
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
    await appendMany(log.store, 's', 2);
    await createGroup('s', 'g', { messageTimeoutMs: 5_000 });
    const c = connect('s', 'g');
    c.nak('Skip', 0);
    c.nak('Stop', 1);
    expect(c.received).toHaveLength(2);
    expect(service.get('s', 'g')?.totalInFlightMessages).toBe(1);
    clock.advance(4_000);
    expect(c.received).toHaveLength(2);
    clock.advance(1_000);
    expect(c.numbers()).toEqual([0, 1, 1]);
    expect(c.received[2].retryCount).toBe(1);
  });

  it('redelivers timed-out messages and parks them after max retries', async () => {
    await appendMany(log.store, 's', 1);
    await createGroup('s', 'g', { messageTimeoutMs: 2_000, maxRetryCount: 1 });
    const c = connect('s', 'g');
    clock.advance(2_000);
    expect(c.received.map((r) => r.retryCount)).toEqual([0, 1]);
    clock.advance(2_000);
    await settle();
    expect(c.received).toHaveLength(2);
    expect(service.get('s', 'g')?.parkedMessageCount).toBe(1);
  });

  it('never times out when message_timeout is 0', async () => {
    await appendMany(log.store, 's', 1);
    await createGroup('s', 'g', { messageTimeoutMs: 0 });
    const c = connect('s', 'g');
    clock.advance(3_600_000);
    expect(c.received).toHaveLength(1);
  });

  it('replays parked messages (all or the first N) and truncates the parked stream once they are done', async () => {
    await appendMany(log.store, 's', 4);
    await createGroup('s', 'g');
    const c = connect('s', 'g');
    c.nak('Park', 0, 1, 2);
    await settle();
    expect(service.get('s', 'g')?.parkedMessageCount).toBe(3);
    const page = service.listParked('s', 'g', { from: 0, count: 2 })!;
    expect(page.messages.map((m) => m.eventNumber)).toEqual([0, 1]);
    expect(page.nextEventNumber).toBe(2);
    expect(page.total).toBe(3);

    expect(service.replayParked('s', 'g', { stopAt: 2 })).toBe(2);
    expect(c.numbers()).toEqual([0, 1, 2, 3, 0, 1]);
    expect(service.get('s', 'g')?.parkedMessageCount).toBe(1);
    c.ack(0, 1);
    await settle();
    expect(log.store.getStreamMetadata(parkedStreamOf('s', 'g')).truncateBefore).toBe(2);
    expect(service.listParked('s', 'g')!.messages.map((m) => m.eventNumber)).toEqual([2]);

    expect(service.replayParked('s', 'g')).toBe(1);
    expect(c.numbers().slice(6)).toEqual([2]);
  });
});

describe('competing consumers', () => {
  it('RoundRobin alternates between consumers', async () => {
    await appendMany(log.store, 's', 6);
    await createGroup('s', 'g', { consumerStrategy: 'RoundRobin' });
    const a = connect('s', 'g', 10, { name: 'a' });
    const b = connect('s', 'g', 10, { name: 'b' });
    // a connected first and took everything that was waiting; new events alternate.
    a.ackAll();
    await appendMany(log.store, 's', 4);
    expect(a.numbers().slice(6)).toEqual([6, 8]);
    expect(b.numbers()).toEqual([7, 9]);
  });

  it('DispatchToSingle fills one consumer before the next', async () => {
    await createGroup('s', 'g', { consumerStrategy: 'DispatchToSingle' });
    const a = connect('s', 'g', 3, { name: 'a' });
    const b = connect('s', 'g', 3, { name: 'b' });
    await appendMany(log.store, 's', 5);
    expect(a.numbers()).toEqual([0, 1, 2]);
    expect(b.numbers()).toEqual([3, 4]);
  });

  it('Pinned keeps each source stream on one consumer', async () => {
    const sources = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];
    for (const s of sources) await appendMany(log.store, `src-${s}`, 3);
    await createGroup('idx', 'g', { consumerStrategy: 'Pinned', resolveLinkTos: true });
    const a = connect('idx', 'g', 100, { name: 'a' });
    const b = connect('idx', 'g', 100, { name: 'b' });
    for (let n = 0; n < 3; n++)
      for (const s of sources) await append(log.store, 'idx', [linkEvent({ streamId: `src-${s}`, eventNumber: n })]);
    const owner = new Map<string, string>();
    for (const [name, c] of [
      ['a', a],
      ['b', b],
    ] as const) {
      for (const r of c.received) {
        const source = r.event.event!.streamId;
        expect(owner.get(source) ?? name).toBe(name);
        owner.set(source, name);
      }
    }
    expect(a.received.length + b.received.length).toBe(24);
    expect(a.received.length).toBeGreaterThan(0);
    expect(b.received.length).toBeGreaterThan(0);
  });

  it('PinnedByCorrelation keeps each correlation id on one consumer', async () => {
    await createGroup('s', 'g', { consumerStrategy: 'PinnedByCorrelation' });
    const a = connect('s', 'g', 100, { name: 'a' });
    const b = connect('s', 'g', 100, { name: 'b' });
    const correlations = Array.from({ length: 10 }, (_, i) => `corr-${i}`);
    for (let round = 0; round < 3; round++) {
      await append(
        log.store,
        's',
        correlations.map((c) => jsonEvent('E', {}, { $correlationId: c })),
      );
    }
    const owner = new Map<string, string>();
    for (const [name, c] of [
      ['a', a],
      ['b', b],
    ] as const) {
      for (const r of c.received) {
        const corr = JSON.parse(text(r.event.event!.metadata)).$correlationId as string;
        expect(owner.get(corr) ?? name).toBe(name);
        owner.set(corr, name);
      }
    }
    expect(new Set(owner.values()).size).toBe(2);
  });

  it('redistributes a disconnected consumer’s messages', async () => {
    await appendMany(log.store, 's', 4);
    await createGroup('s', 'g', { consumerStrategy: 'DispatchToSingle' });
    const a = connect('s', 'g', 2, { name: 'a' });
    const b = connect('s', 'g', 10, { name: 'b' });
    expect(a.numbers()).toEqual([0, 1]);
    expect(b.numbers()).toEqual([2, 3]);
    a.handle.close();
    expect(b.numbers()).toEqual([2, 3, 0, 1]);
    expect(b.received.slice(2).map((r) => r.retryCount)).toEqual([1, 1]);
    expect(a.drops).toEqual([]);
  });

  it('unsubscribe tells the consumer Unsubscribed and retries its messages elsewhere', async () => {
    await appendMany(log.store, 's', 1);
    await createGroup('s', 'g');
    const a = connect('s', 'g', 1, { name: 'a' });
    const b = connect('s', 'g', 1, { name: 'b' });
    a.handle.unsubscribe();
    expect(a.drops).toEqual(['Unsubscribed']);
    expect(b.numbers()).toEqual([0]);
  });
});

describe('checkpoints and restarts', () => {
  it('checkpoints after max count, before the lowest unfinished message', async () => {
    await appendMany(log.store, 's', 10);
    await createGroup('s', 'g', { maxCheckpointCount: 3 });
    const c = connect('s', 'g', 10);
    c.ack(0, 1, 3, 4, 5);
    await settle();
    // Only 0 and 1 are below the lowest unfinished message (2): two, less than the max count of 3.
    expect(readCheckpoint(log.store, 's', 'g')).toBeNull();
    c.ack(2);
    await settle();
    expect(readCheckpoint(log.store, 's', 'g')).toBe(5);
    c.ack(6, 7);
    await settle();
    expect(readCheckpoint(log.store, 's', 'g')).toBe(5);
    c.ack(8);
    await settle();
    expect(readCheckpoint(log.store, 's', 'g')).toBe(8);
    expect(service.get('s', 'g')?.lastCheckpointedEventNumber).toBe(8);
    const meta = log.store.getStreamMetadata(checkpointStreamOf('s', 'g'));
    expect(meta.maxCount).toBe(2);
    const r = log.store.readStreamBackward(checkpointStreamOf('s', 'g'), -1, 1, false, admin);
    expect(r.events[0].event?.eventType).toBe('SubscriptionCheckpoint');
  });

  it('checkpoints on the timer once min count is reached', async () => {
    await appendMany(log.store, 's', 5);
    await createGroup('s', 'g', { checkpointAfterMs: 3_000, minCheckpointCount: 2 });
    const c = connect('s', 'g');
    c.ack(0);
    clock.advance(3_000);
    await settle();
    expect(readCheckpoint(log.store, 's', 'g')).toBeNull();
    c.ack(1);
    clock.advance(1_000);
    await settle();
    expect(readCheckpoint(log.store, 's', 'g')).toBe(1);
  });

  it('persists groups and resumes after the checkpoint on restart, redelivering what was not acked', async () => {
    await appendMany(log.store, 's', 10);
    await createGroup('s', 'g', { consumerStrategy: 'DispatchToSingle', maxRetryCount: 9 });
    const c = connect('s', 'g', 10);
    c.ack(0, 1, 2, 4, 5);
    await service.close();
    log = await log.reopen();
    service = startService(log.store);
    expect(service.list().map((g) => g.subscriptionId)).toEqual(['s::g']);
    expect(service.get('s', 'g')?.settings.consumerStrategy).toBe('DispatchToSingle');
    const again = connect('s', 'g', 10);
    expect(again.numbers()).toEqual([3, 4, 5, 6, 7, 8, 9]);
  });

  it('loses nothing when the process stops without a final checkpoint', async () => {
    await createGroup('s', 'g', { maxCheckpointCount: 4 });
    const c = connect('s', 'g', 5);
    const acked = new Set<number>();
    for (let i = 0; i < 3; i++) {
      await appendMany(log.store, 's', 5);
      const outstanding = c.numbers().filter((n) => !acked.has(n));
      const toAck = outstanding.filter((n) => n % 7 !== 3);
      c.ack(...toAck);
      toAck.forEach((n) => acked.add(n));
    }
    await settle();
    // "Crash": the old service never flushes; a new one starts on the reopened store.
    services.splice(services.indexOf(service), 1);
    log = await log.reopen();
    service = startService(log.store);
    const again = connect('s', 'g', 100);
    const all = new Set([...acked, ...again.numbers()]);
    expect([...all].sort((x, y) => x - y)).toEqual(Array.from({ length: 15 }, (_, i) => i));
    expect(again.numbers()).toContain(3);
  });

  it('update drops consumers with Unsubscribed and keeps the position', async () => {
    await appendMany(log.store, 's', 4);
    await createGroup('s', 'g');
    const c = connect('s', 'g', 10);
    c.ack(0, 1);
    expect((await service.update('s', 'g', settings({ maxRetryCount: 1 }), admin)).result).toBe('Success');
    expect(c.drops).toEqual(['Unsubscribed']);
    const again = connect('s', 'g', 10);
    expect(again.numbers()).toEqual([2, 3]);
  });

  it('delete drops consumers, removes the group for good and deletes its streams', async () => {
    await appendMany(log.store, 's', 3);
    await createGroup('s', 'g', { maxCheckpointCount: 1 });
    const c = connect('s', 'g', 10);
    c.ack(0);
    c.nak('Park', 1);
    await settle();
    expect((await service.delete('s', 'g', admin)).result).toBe('Success');
    expect(c.drops).toEqual(['Unsubscribed']);
    expect(log.store.readStreamForward(checkpointStreamOf('s', 'g'), 0, 10, false, admin).result).toBe('NoStream');
    expect(log.store.readStreamForward(parkedStreamOf('s', 'g'), 0, 10, false, admin).result).toBe('NoStream');
    await service.close();
    log = await log.reopen();
    service = startService(log.store);
    expect(service.list()).toEqual([]);
    // A new group of the same name starts clean.
    await createGroup('s', 'g');
    expect(service.get('s', 'g')?.parkedMessageCount).toBe(0);
    expect(connect('s', 'g', 10).numbers()).toEqual([0, 1, 2]);
  });
});

describe('statistics', () => {
  it('reports group and connection figures for the monitor', async () => {
    await appendMany(log.store, 's', 6);
    await createGroup('s', 'g');
    const c = connect('s', 'g', 4, { name: 'worker-1' });
    c.ack(0, 1);
    c.nak('Park', 2);
    await settle();
    clock.advance(1_000);
    const [info] = service.list();
    expect(info).toMatchObject({
      streamId: 's',
      groupName: 'g',
      subscriptionId: 's::g',
      status: 'Live',
      totalItemsProcessed: 3,
      totalItemsDelivered: 6,
      totalInFlightMessages: 3,
      parkedMessageCount: 1,
      lastKnownEventNumber: 5,
      connectionCount: 1,
    });
    expect(info.averageItemsPerSecond).toBeGreaterThan(0);
    expect(info.connections[0]).toMatchObject({
      connectionName: 'worker-1',
      remoteAddress: '127.0.0.1:5000',
      allowedInFlightMessages: 4,
      inFlightMessages: 3,
      availableSlots: 1,
      itemsDelivered: 6,
      itemsAcked: 2,
    });
  });
});

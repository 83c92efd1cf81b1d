import { describe, expect, it } from 'vitest';
import { admin, append, appendMany, jsonEvent, ops, settle, someone } from '../testing/event-log.ts';
import { settings, usePersistentService } from '../testing/persistent-service.ts';

/** Persistent subscription groups: creating, updating and deleting them, connecting to them, and their statistics. */

const t = usePersistentService();

describe('managing groups', () => {
  it('answers each result EventStoreDB defines', async () => {
    expect((await t.service.create('s', 'g', settings(), null)).result).toBe('AccessDenied');
    expect((await t.service.create('s', 'g', settings(), someone)).result).toBe('AccessDenied');
    expect((await t.service.create('', 'g', settings(), admin)).result).toBe('Fail');
    expect((await t.service.create('$all', 'g', settings(), admin)).result).toBe('Fail');
    expect((await t.service.create('s', 'g', settings({ consumerStrategy: 'Nope' as never }), admin)).result).toBe(
      'Fail',
    );
    expect((await t.service.create('s', 'g', settings({ readBatchSize: 0 }), admin)).result).toBe('Fail');
    expect(await t.service.create('s', 'g', settings(), ops)).toEqual({ result: 'Success' });
    expect((await t.service.create('s', 'g', settings(), admin)).result).toBe('AlreadyExists');

    expect((await t.service.update('s', 'missing', settings(), admin)).result).toBe('DoesNotExist');
    expect((await t.service.update('s', 'g', settings(), someone)).result).toBe('AccessDenied');
    expect((await t.service.update('s', 'g', settings({ maxRetryCount: 7 }), admin)).result).toBe('Success');
    expect(t.service.get('s', 'g')?.settings.maxRetryCount).toBe(7);

    expect((await t.service.delete('s', 'missing', admin)).result).toBe('DoesNotExist');
    expect((await t.service.delete('s', 'g', someone)).result).toBe('AccessDenied');
    expect((await t.service.delete('s', 'g', admin)).result).toBe('Success');
    expect(t.service.get('s', 'g')).toBeUndefined();
  });

  it('refuses connections to unknown groups, unreadable streams and full groups', async () => {
    await t.createGroup('s', 'g', { maxSubscriberCount: 1 });
    const denied = () =>
      t.service.connect({
        streamId: 's',
        groupName: 'nope',
        allowedInFlightMessages: 1,
        caller: admin,
        subscriber: {} as never,
        sink: {} as never,
      });
    expect(denied()).toMatchObject({ ok: false, reason: 'NotFound' });
    t.connect('s', 'g');
    expect(
      t.service.connect({
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
    await append(t.log.store, '$$locked', [jsonEvent('$metadata', { $acl: { $r: '$admins' } })]);
    await t.createGroup('locked', 'g');
    expect(
      t.service.connect({
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
    await appendMany(t.log.store, 'orders', 3);
    await t.createGroup('orders', 'billing');
    const c = t.connect('orders', 'billing');
    expect(c.confirmation.subscriptionId).toBe('orders::billing');
    expect(c.confirmation.lastEventNumber).toBe(2);
    expect(c.confirmation.lastCommitPosition).toBe(t.log.store.lastCommitPosition());
  });
});

describe('statistics', () => {
  it('reports group and connection figures for the monitor', async () => {
    await appendMany(t.log.store, 's', 6);
    await t.createGroup('s', 'g');
    const c = t.connect('s', 'g', 4, { name: 'worker-1' });
    c.ack(0, 1);
    c.nak('Park', 2);
    await settle();
    t.clock.advance(1_000);
    const [info] = t.service.list();
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

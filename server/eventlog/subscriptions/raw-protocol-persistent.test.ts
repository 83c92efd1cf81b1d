import { describe, expect, it } from 'vitest';
import { int64ToNumber } from '../tcp/codec.ts';
import { TcpCommand } from '../tcp/commands.ts';
import { decodeMessage, encodeMessage, type Int64 } from '../tcp/messages.ts';
import { newId } from '../tcp/testing/raw-client.ts';
import { stream } from '../tcp/testing/raw-requests.ts';
import { waitFor } from '../testing/wait-for.ts';
import { ADMIN, Drop, persistentGroupBody, useSubscriptionsOverTcp, write } from './testing/raw-subscriptions.ts';

/** Persistent subscription commands over raw sockets: `$all` groups, unknown groups and strategies, acks and naks. */

describe('persistent subscriptions over the raw protocol', () => {
  const t = useSubscriptionsOverTcp();

  it('persistent: $all groups fail, unknown groups are NotFound, acks work over the wire', async () => {
    const all = await t.client.request(
      TcpCommand.CreatePersistentSubscription,
      persistentGroupBody('CreatePersistentSubscription', '$all'),
      ADMIN,
    );
    expect(decodeMessage<{ result: number }>('CreatePersistentSubscriptionCompleted', all.body).result).toBe(2);

    const s = stream('wire');
    const created = await t.client.request(
      TcpCommand.CreatePersistentSubscription,
      persistentGroupBody('CreatePersistentSubscription', s),
      ADMIN,
    );
    expect(decodeMessage<{ result: number }>('CreatePersistentSubscriptionCompleted', created.body).result).toBe(0);
    expect(t.subs.getGroup(s, 'g')?.settings.consumerStrategy).toBe('RoundRobin');
    const unknownStrategy = await t.client.request(
      TcpCommand.UpdatePersistentSubscription,
      persistentGroupBody('UpdatePersistentSubscription', s, 'Fancy'),
      ADMIN,
    );
    const failed = decodeMessage<{ result: number; reason: string }>(
      'UpdatePersistentSubscriptionCompleted',
      unknownStrategy.body,
    );
    expect(failed).toMatchObject({ result: 2, reason: 'Consumer strategy Fancy does not exist.' });

    const missing = await t.client.request(
      TcpCommand.ConnectToPersistentSubscription,
      encodeMessage('ConnectToPersistentSubscription', {
        subscriptionId: 'nope',
        eventStreamId: s,
        allowedInFlightMessages: 5,
      }),
    );
    expect(decodeMessage<{ reason: number }>('SubscriptionDropped', missing.body).reason).toBe(Drop.NotFound);

    const id = newId();
    t.client.send(
      TcpCommand.ConnectToPersistentSubscription,
      id,
      encodeMessage('ConnectToPersistentSubscription', {
        subscriptionId: 'g',
        eventStreamId: s,
        allowedInFlightMessages: 2,
      }),
    );
    const confirmation = await t.client.reply(id);
    expect(confirmation.command).toBe(TcpCommand.PersistentSubscriptionConfirmation);
    expect(
      decodeMessage<{ subscriptionId: string; lastEventNumber: Int64 }>(
        'PersistentSubscriptionConfirmation',
        confirmation.body,
      ),
    ).toMatchObject({ subscriptionId: `${s}::g` });

    await write(t.client, s, [{ type: 'a' }, { type: 'b' }, { type: 'c' }]);
    const appeared = () =>
      t.client.received
        .filter((p) => p.correlationId.equals(id) && p.command === TcpCommand.PersistentSubscriptionStreamEventAppeared)
        .map((p) =>
          decodeMessage<{ event: { event: { eventId: Uint8Array; eventNumber: Int64 } }; retryCount: number }>(
            'PersistentSubscriptionStreamEventAppeared',
            p.body,
          ),
        );
    await waitFor(() => appeared().length === 2, 'the in-flight window to fill');
    expect(appeared().map((a) => [int64ToNumber(a.event.event.eventNumber), a.retryCount])).toEqual([
      [0, 0],
      [1, 0],
    ]);
    t.client.send(
      TcpCommand.PersistentSubscriptionAckEvents,
      id,
      encodeMessage('PersistentSubscriptionAckEvents', {
        subscriptionId: `${s}::g`,
        processedEventIds: [appeared()[0].event.event.eventId],
      }),
    );
    await waitFor(() => appeared().length === 3, 'the third event after the ack');
    t.client.send(
      TcpCommand.PersistentSubscriptionNakEvents,
      id,
      encodeMessage('PersistentSubscriptionNakEvents', {
        subscriptionId: `${s}::g`,
        processedEventIds: [appeared()[1].event.event.eventId],
        message: 'again',
        action: 2,
      }),
    );
    await waitFor(() => appeared().length === 4, 'the retried event');
    expect(appeared()[3].retryCount).toBe(1);
    expect(int64ToNumber(appeared()[3].event.event.eventNumber)).toBe(1);

    const deleted = await t.client.request(
      TcpCommand.DeletePersistentSubscription,
      encodeMessage('DeletePersistentSubscription', { subscriptionGroupName: 'g', eventStreamId: s }),
      ADMIN,
    );
    expect(decodeMessage<{ result: number }>('DeletePersistentSubscriptionCompleted', deleted.body).result).toBe(0);
    const dropped = await t.client.next(
      (p) => p.correlationId.equals(id) && p.command === TcpCommand.SubscriptionDropped,
    );
    expect(decodeMessage<{ reason: number }>('SubscriptionDropped', dropped.body).reason).toBe(Drop.Unsubscribed);
  });
});

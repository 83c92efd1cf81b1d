import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { int64ToNumber } from '../tcp/codec.ts';
import { TcpCommand } from '../tcp/commands.ts';
import { decodeMessage, encodeMessage, type Int64 } from '../tcp/messages.ts';
import type { TcpPackage } from '../tcp/package.ts';
import { newId, RawClient } from '../tcp/testing/raw-client.ts';
import { stream } from '../tcp/testing/raw-requests.ts';
import { waitFor } from '../testing/wait-for.ts';
import {
  ADMIN,
  after,
  collect,
  Drop,
  EventTypePrefix,
  filteredSubscribeBody,
  posOf,
  StreamRegex,
  useSubscriptionsOverTcp,
  type WireResolvedEvent,
  write,
} from './testing/raw-subscriptions.ts';

/**
 * Subscription commands over raw sockets: what node-eventstore-client cannot do (filtered subscriptions and
 * CheckpointReached) and the edges of the protocol (drops, bad input, slow readers).
 */

describe('subscriptions over the raw protocol', () => {
  const t = useSubscriptionsOverTcp();

  it('filters by event type and sends CheckpointReached every N seen events, resumable without gaps or repeats', async () => {
    const filter = EventTypePrefix(['wanted']);
    const interval = 5;
    const id = newId();
    const confirmation = t.client.reply(id);
    t.client.send(TcpCommand.FilteredSubscribeToStream, id, filteredSubscribeBody(filter, interval), ADMIN);
    const confirmed = await confirmation;
    expect(confirmed.command).toBe(TcpCommand.SubscriptionConfirmation);
    const lastCommit = int64ToNumber(
      decodeMessage<{ lastCommitPosition: Int64 }>('SubscriptionConfirmation', confirmed.body).lastCommitPosition,
    );

    for (let round = 0; round < 8; round++) {
      await write(t.client, stream('f'), [
        { type: round % 3 ? 'other' : 'wanted-a' },
        { type: 'wanted-b' },
        { type: 'noise' },
      ]);
    }
    const sub = collect(t.client, id);
    await waitFor(() => sub.checkpoints().length === Math.floor(24 / interval), 'the checkpoints');
    expect(sub.events().map((e) => e.event!.eventType)).toEqual(
      Array.from({ length: 8 }, (_, round) => (round % 3 ? ['wanted-b'] : ['wanted-a', 'wanted-b'])).flat(),
    );

    // Every event the subscription saw, from a plain $all read after the confirmed position.
    const read = await t.client.request(
      TcpCommand.ReadAllEventsForward,
      encodeMessage('ReadAllEvents', {
        commitPosition: lastCommit,
        preparePosition: lastCommit,
        maxCount: 4096,
        resolveLinkTos: false,
        requireLeader: true,
      }),
      ADMIN,
    );
    const seen = decodeMessage<{ events: WireResolvedEvent[] }>('ReadAllEventsCompleted', read.body)
      .events.map(posOf)
      .filter(after({ commit: lastCommit, prepare: lastCommit }));
    expect(seen).toHaveLength(24);
    expect(sub.checkpoints()).toEqual([4, 9, 14, 19].map((i) => seen[i]));

    // A catch-up subscription resumes from a checkpoint: filtered read from it, skipping positions <= it.
    const live = sub.events();
    for (const cp of sub.checkpoints()) {
      const reply = await t.client.request(
        TcpCommand.FilteredReadAllEventsForward,
        encodeMessage('FilteredReadAllEvents', {
          commitPosition: cp.commit,
          preparePosition: cp.prepare,
          maxCount: 4096,
          maxSearchWindow: 4096,
          resolveLinkTos: false,
          requireLeader: true,
          filter,
        }),
        ADMIN,
      );
      const resumed = decodeMessage<{ events: WireResolvedEvent[] }>(
        'FilteredReadAllEventsCompleted',
        reply.body,
      ).events.filter((e) => after(cp)(posOf(e)));
      const expected = live.filter((e) => after(cp)(posOf(e)));
      expect(resumed.map((e) => Buffer.from(e.event!.eventId).toString('hex'))).toEqual(
        expected.map((e) => Buffer.from(e.event!.eventId).toString('hex')),
      );
    }

    t.client.send(TcpCommand.UnsubscribeFromStream, id, encodeMessage('UnsubscribeFromStream', {}));
    const dropped = await t.client.next(
      (p) => p.correlationId.equals(id) && p.command === TcpCommand.SubscriptionDropped,
    );
    expect(decodeMessage<{ reason: number }>('SubscriptionDropped', dropped.body).reason).toBe(Drop.Unsubscribed);
  });

  it('filters by stream id regex, and a filtered stream subscription sees only its stream', async () => {
    const prefix = `rx${crypto.randomUUID().slice(0, 6)}`;
    const id = newId();
    t.client.send(
      TcpCommand.FilteredSubscribeToStream,
      id,
      filteredSubscribeBody(StreamRegex([`^${prefix}-\\d+$`]), -1),
      ADMIN,
    );
    expect((await t.client.reply(id)).command).toBe(TcpCommand.SubscriptionConfirmation);
    const own = `${prefix}-own`;
    const ownId = newId();
    t.client.send(
      TcpCommand.FilteredSubscribeToStream,
      ownId,
      filteredSubscribeBody(EventTypePrefix(['keep']), 1, own),
      ADMIN,
    );
    expect((await t.client.reply(ownId)).command).toBe(TcpCommand.SubscriptionConfirmation);

    await write(t.client, `${prefix}-1`, [{ type: 'a' }]);
    await write(t.client, `${prefix}-x`, [{ type: 'b' }]);
    await write(t.client, own, [{ type: 'keep' }, { type: 'drop' }]);
    await write(t.client, `${prefix}-22`, [{ type: 'c' }]);
    const byRegex = collect(t.client, id);
    const byStream = collect(t.client, ownId);
    await waitFor(() => byRegex.events().length === 2 && byStream.checkpoints().length === 2, 'the events');
    expect(byRegex.events().map((e) => e.event!.eventStreamId)).toEqual([`${prefix}-1`, `${prefix}-22`]);
    expect(byRegex.checkpoints()).toEqual([]); // checkpoint_interval -1: never
    expect(byStream.events().map((e) => e.event!.eventType)).toEqual(['keep']);
  });

  it('answers BadRequest for a filter regex that does not compile, AccessDenied for anonymous $all', async () => {
    const bad = await t.client.request(
      TcpCommand.FilteredSubscribeToStream,
      filteredSubscribeBody(StreamRegex(['(']), 1),
      ADMIN,
    );
    expect(bad.command).toBe(TcpCommand.BadRequest);
    const denied = await t.client.request(
      TcpCommand.FilteredSubscribeToStream,
      filteredSubscribeBody(EventTypePrefix(['x']), 1),
    );
    expect(denied.command).toBe(TcpCommand.SubscriptionDropped);
    expect(decodeMessage<{ reason: number }>('SubscriptionDropped', denied.body).reason).toBe(Drop.AccessDenied);
    const plain = await t.client.request(
      TcpCommand.SubscribeToStream,
      encodeMessage('SubscribeToStream', { eventStreamId: '', resolveLinkTos: false }),
    );
    expect(decodeMessage<{ reason: number }>('SubscriptionDropped', plain.body).reason).toBe(Drop.AccessDenied);
  });

  it('drops a subscriber that stops reading, while writers and other subscribers carry on', async () => {
    const slow = await RawClient.connect(t.fx.port, { answerHeartbeats: false });
    const s = stream('flood');
    const slowId = newId();
    slow.send(
      TcpCommand.SubscribeToStream,
      slowId,
      encodeMessage('SubscribeToStream', { eventStreamId: s, resolveLinkTos: false }),
    );
    await slow.reply(slowId);
    const fastId = newId();
    t.client.send(
      TcpCommand.SubscribeToStream,
      fastId,
      encodeMessage('SubscribeToStream', { eventStreamId: s, resolveLinkTos: false }),
    );
    await t.client.reply(fastId);
    slow.socket.pause(); // stops reading: the server's queue for it grows

    const payload = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 30; i++)
      await write(
        t.client,
        s,
        Array.from({ length: 10 }, () => ({ type: 'big', data: JSON.stringify({ payload }) })),
      );

    await waitFor(() => collect(t.client, fastId).events().length === 300, 'the fast subscriber to get everything');
    expect(t.subs.listVolatile().filter((v) => v.streamId === s)).toHaveLength(1);
    slow.socket.resume();
    const dropped = await slow.next(
      (p: TcpPackage) => p.correlationId.equals(slowId) && p.command === TcpCommand.SubscriptionDropped,
    );
    expect(decodeMessage<{ reason: number }>('SubscriptionDropped', dropped.body).reason).toBe(
      Drop.SubscriberMaxCountReached,
    );
    const delivered = collect(slow, slowId)
      .events()
      .map((e) => int64ToNumber(e.event!.eventNumber));
    expect(delivered.length).toBeLessThan(300);
    expect(delivered).toEqual(Array.from({ length: delivered.length }, (_, i) => i)); // what it got has no gaps
    slow.destroy();
  });
});

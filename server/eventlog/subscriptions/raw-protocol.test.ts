// Over 400 lines on purpose: one subject, subscriptions over the raw TCP protocol, package by package; its cases share one set-up.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { int64ToNumber } from '../tcp/codec.ts';
import { TcpCommand, TcpFlags } from '../tcp/commands.ts';
import { guidStringToBytes } from '../tcp/guid.ts';
import { decodeMessage, encodeMessage, enumValue, type Int64 } from '../tcp/messages.ts';
import type { TcpPackage } from '../tcp/package.ts';
import { newId, RawClient, startTcpFixture, type TcpFixture } from '../tcp/testing/raw-client.ts';
import { startSubscriptions, type Subscriptions } from './index.ts';
import { silentLogger } from './testing/event-log.ts';
import { subscriptionTcpHandlers } from './tcp-handlers.ts';

/**
 * Subscription commands over raw sockets: what node-eventstore-client cannot do (filtered
 * subscriptions and CheckpointReached) and the edges of the protocol (drops, bad input, slow readers).
 */

const ADMIN = { flags: TcpFlags.Authenticated, login: 'admin', password: 'changeit' };
const Drop = {
  Unsubscribed: enumValue('SubscriptionDropped.SubscriptionDropReason', 'Unsubscribed'),
  AccessDenied: enumValue('SubscriptionDropped.SubscriptionDropReason', 'AccessDenied'),
  NotFound: enumValue('SubscriptionDropped.SubscriptionDropReason', 'NotFound'),
  SubscriberMaxCountReached: enumValue('SubscriptionDropped.SubscriptionDropReason', 'SubscriberMaxCountReached'),
};

interface WireResolvedEvent {
  event?: { eventStreamId: string; eventNumber: Int64; eventType: string; eventId: Uint8Array };
  commitPosition: Int64;
  preparePosition: Int64;
}
interface Pos {
  commit: number;
  prepare: number;
}

const after = (p: Pos) => (e: Pos) => e.commit > p.commit || (e.commit === p.commit && e.prepare > p.prepare);
const posOf = (e: WireResolvedEvent): Pos => ({
  commit: int64ToNumber(e.commitPosition),
  prepare: int64ToNumber(e.preparePosition),
});

function stream(name: string): string {
  return `${name}-${crypto.randomUUID().slice(0, 8)}`;
}

function writeBody(streamId: string, events: { type: string; data?: string }[]): Uint8Array {
  return encodeMessage('WriteEvents', {
    eventStreamId: streamId,
    expectedVersion: -2,
    requireLeader: true,
    events: events.map((e) => ({
      eventId: guidStringToBytes(crypto.randomUUID()),
      eventType: e.type,
      dataContentType: 1,
      metadataContentType: 0,
      data: Buffer.from(e.data ?? '{}'),
      metadata: Buffer.alloc(0),
    })),
  });
}

async function write(client: RawClient, streamId: string, events: { type: string; data?: string }[]): Promise<void> {
  const reply = await client.request(TcpCommand.WriteEvents, writeBody(streamId, events), ADMIN);
  expect(reply.command).toBe(TcpCommand.WriteEventsCompleted);
  expect(decodeMessage<{ result: number }>('WriteEventsCompleted', reply.body).result).toBe(0);
}

function filteredSubscribeBody(
  filter: { context: number; type: number; data: string[] },
  checkpointInterval: number,
  streamId = '',
): Uint8Array {
  return encodeMessage('FilteredSubscribeToStream', {
    eventStreamId: streamId,
    resolveLinkTos: false,
    filter,
    checkpointInterval,
  });
}

const EventTypePrefix = (data: string[]) => ({ context: 1, type: 1, data });
const StreamRegex = (data: string[]) => ({ context: 0, type: 0, data });

/** Packages for one correlation id, decoded by kind. */
function collect(client: RawClient, correlationId: Buffer) {
  const mine = () => client.received.filter((p) => p.correlationId.equals(correlationId));
  return {
    events: () =>
      mine()
        .filter((p) => p.command === TcpCommand.StreamEventAppeared)
        .map((p) => decodeMessage<{ event: WireResolvedEvent }>('StreamEventAppeared', p.body).event),
    checkpoints: () =>
      mine()
        .filter((p) => p.command === TcpCommand.CheckpointReached)
        .map((p) => {
          const c = decodeMessage<{ commitPosition: Int64; preparePosition: Int64 }>('CheckpointReached', p.body);
          return { commit: int64ToNumber(c.commitPosition), prepare: int64ToNumber(c.preparePosition) };
        }),
    all: mine,
  };
}

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > 20_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('subscriptions over the raw protocol', () => {
  let fx: TcpFixture;
  let subs: Subscriptions;
  let client: RawClient;

  beforeAll(async () => {
    // Small send-queue bounds so the slow-subscriber case needs little traffic.
    fx = await startTcpFixture({ limits: { backlogPackages: 200, backlogBytes: 1024 * 1024 } });
    subs = startSubscriptions(fx.eventLog.store, { logger: silentLogger });
    fx.server.registerHandlers(subscriptionTcpHandlers(subs));
    client = await RawClient.connect(fx.port, { answerHeartbeats: true });
  });

  afterAll(async () => {
    client?.destroy();
    await fx?.server.close();
    await subs?.close();
    await fx?.close();
  });

  it('filters by event type and sends CheckpointReached every N seen events, resumable without gaps or repeats', async () => {
    const filter = EventTypePrefix(['wanted']);
    const interval = 5;
    const id = newId();
    const confirmation = client.reply(id);
    client.send(TcpCommand.FilteredSubscribeToStream, id, filteredSubscribeBody(filter, interval), ADMIN);
    const confirmed = await confirmation;
    expect(confirmed.command).toBe(TcpCommand.SubscriptionConfirmation);
    const lastCommit = int64ToNumber(
      decodeMessage<{ lastCommitPosition: Int64 }>('SubscriptionConfirmation', confirmed.body).lastCommitPosition,
    );

    for (let round = 0; round < 8; round++) {
      await write(client, stream('f'), [
        { type: round % 3 ? 'other' : 'wanted-a' },
        { type: 'wanted-b' },
        { type: 'noise' },
      ]);
    }
    const sub = collect(client, id);
    await waitFor(() => sub.checkpoints().length === Math.floor(24 / interval), 'the checkpoints');
    expect(sub.events().map((e) => e.event!.eventType)).toEqual(
      Array.from({ length: 8 }, (_, round) => (round % 3 ? ['wanted-b'] : ['wanted-a', 'wanted-b'])).flat(),
    );

    // Every event the subscription saw, from a plain $all read after the confirmed position.
    const read = await client.request(
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
      const reply = await client.request(
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

    client.send(TcpCommand.UnsubscribeFromStream, id, encodeMessage('UnsubscribeFromStream', {}));
    const dropped = await client.next(
      (p) => p.correlationId.equals(id) && p.command === TcpCommand.SubscriptionDropped,
    );
    expect(decodeMessage<{ reason: number }>('SubscriptionDropped', dropped.body).reason).toBe(Drop.Unsubscribed);
  });

  it('filters by stream id regex, and a filtered stream subscription sees only its stream', async () => {
    const prefix = `rx${crypto.randomUUID().slice(0, 6)}`;
    const id = newId();
    client.send(
      TcpCommand.FilteredSubscribeToStream,
      id,
      filteredSubscribeBody(StreamRegex([`^${prefix}-\\d+$`]), -1),
      ADMIN,
    );
    expect((await client.reply(id)).command).toBe(TcpCommand.SubscriptionConfirmation);
    const own = `${prefix}-own`;
    const ownId = newId();
    client.send(
      TcpCommand.FilteredSubscribeToStream,
      ownId,
      filteredSubscribeBody(EventTypePrefix(['keep']), 1, own),
      ADMIN,
    );
    expect((await client.reply(ownId)).command).toBe(TcpCommand.SubscriptionConfirmation);

    await write(client, `${prefix}-1`, [{ type: 'a' }]);
    await write(client, `${prefix}-x`, [{ type: 'b' }]);
    await write(client, own, [{ type: 'keep' }, { type: 'drop' }]);
    await write(client, `${prefix}-22`, [{ type: 'c' }]);
    const byRegex = collect(client, id);
    const byStream = collect(client, ownId);
    await waitFor(() => byRegex.events().length === 2 && byStream.checkpoints().length === 2, 'the events');
    expect(byRegex.events().map((e) => e.event!.eventStreamId)).toEqual([`${prefix}-1`, `${prefix}-22`]);
    expect(byRegex.checkpoints()).toEqual([]); // checkpoint_interval -1: never
    expect(byStream.events().map((e) => e.event!.eventType)).toEqual(['keep']);
  });

  it('answers BadRequest for a filter regex that does not compile, AccessDenied for anonymous $all', async () => {
    const bad = await client.request(
      TcpCommand.FilteredSubscribeToStream,
      filteredSubscribeBody(StreamRegex(['(']), 1),
      ADMIN,
    );
    expect(bad.command).toBe(TcpCommand.BadRequest);
    const denied = await client.request(
      TcpCommand.FilteredSubscribeToStream,
      filteredSubscribeBody(EventTypePrefix(['x']), 1),
    );
    expect(denied.command).toBe(TcpCommand.SubscriptionDropped);
    expect(decodeMessage<{ reason: number }>('SubscriptionDropped', denied.body).reason).toBe(Drop.AccessDenied);
    const plain = await client.request(
      TcpCommand.SubscribeToStream,
      encodeMessage('SubscribeToStream', { eventStreamId: '', resolveLinkTos: false }),
    );
    expect(decodeMessage<{ reason: number }>('SubscriptionDropped', plain.body).reason).toBe(Drop.AccessDenied);
  });

  it('drops a subscriber that stops reading, while writers and other subscribers carry on', async () => {
    const slow = await RawClient.connect(fx.port, { answerHeartbeats: false });
    const s = stream('flood');
    const slowId = newId();
    slow.send(
      TcpCommand.SubscribeToStream,
      slowId,
      encodeMessage('SubscribeToStream', { eventStreamId: s, resolveLinkTos: false }),
    );
    await slow.reply(slowId);
    const fastId = newId();
    client.send(
      TcpCommand.SubscribeToStream,
      fastId,
      encodeMessage('SubscribeToStream', { eventStreamId: s, resolveLinkTos: false }),
    );
    await client.reply(fastId);
    slow.socket.pause(); // stops reading: the server's queue for it grows

    const payload = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 30; i++)
      await write(
        client,
        s,
        Array.from({ length: 10 }, () => ({ type: 'big', data: JSON.stringify({ payload }) })),
      );

    await waitFor(() => collect(client, fastId).events().length === 300, 'the fast subscriber to get everything');
    expect(subs.listVolatile().filter((v) => v.streamId === s)).toHaveLength(1);
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

  it('persistent: $all groups fail, unknown groups are NotFound, acks work over the wire', async () => {
    const settings = {
      resolveLinkTos: false,
      startFrom: 0,
      messageTimeoutMilliseconds: 30_000,
      recordStatistics: false,
      liveBufferSize: 500,
      readBatchSize: 20,
      bufferSize: 500,
      maxRetryCount: 10,
      preferRoundRobin: true,
      checkpointAfterTime: 2_000,
      checkpointMaxCount: 1_000,
      checkpointMinCount: 10,
      subscriberMaxCount: 0,
    };
    const all = await client.request(
      TcpCommand.CreatePersistentSubscription,
      encodeMessage('CreatePersistentSubscription', { ...settings, subscriptionGroupName: 'g', eventStreamId: '$all' }),
      ADMIN,
    );
    expect(decodeMessage<{ result: number }>('CreatePersistentSubscriptionCompleted', all.body).result).toBe(2);

    const s = stream('wire');
    const created = await client.request(
      TcpCommand.CreatePersistentSubscription,
      encodeMessage('CreatePersistentSubscription', {
        ...settings,
        subscriptionGroupName: 'g',
        eventStreamId: s,
        namedConsumerStrategy: '',
      }),
      ADMIN,
    );
    expect(decodeMessage<{ result: number }>('CreatePersistentSubscriptionCompleted', created.body).result).toBe(0);
    expect(subs.getGroup(s, 'g')?.settings.consumerStrategy).toBe('RoundRobin');
    const unknownStrategy = await client.request(
      TcpCommand.UpdatePersistentSubscription,
      encodeMessage('UpdatePersistentSubscription', {
        ...settings,
        subscriptionGroupName: 'g',
        eventStreamId: s,
        namedConsumerStrategy: 'Fancy',
      }),
      ADMIN,
    );
    const failed = decodeMessage<{ result: number; reason: string }>(
      'UpdatePersistentSubscriptionCompleted',
      unknownStrategy.body,
    );
    expect(failed).toMatchObject({ result: 2, reason: 'Consumer strategy Fancy does not exist.' });

    const missing = await client.request(
      TcpCommand.ConnectToPersistentSubscription,
      encodeMessage('ConnectToPersistentSubscription', {
        subscriptionId: 'nope',
        eventStreamId: s,
        allowedInFlightMessages: 5,
      }),
    );
    expect(decodeMessage<{ reason: number }>('SubscriptionDropped', missing.body).reason).toBe(Drop.NotFound);

    const id = newId();
    client.send(
      TcpCommand.ConnectToPersistentSubscription,
      id,
      encodeMessage('ConnectToPersistentSubscription', {
        subscriptionId: 'g',
        eventStreamId: s,
        allowedInFlightMessages: 2,
      }),
    );
    const confirmation = await client.reply(id);
    expect(confirmation.command).toBe(TcpCommand.PersistentSubscriptionConfirmation);
    expect(
      decodeMessage<{ subscriptionId: string; lastEventNumber: Int64 }>(
        'PersistentSubscriptionConfirmation',
        confirmation.body,
      ),
    ).toMatchObject({ subscriptionId: `${s}::g` });

    await write(client, s, [{ type: 'a' }, { type: 'b' }, { type: 'c' }]);
    const appeared = () =>
      client.received
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
    client.send(
      TcpCommand.PersistentSubscriptionAckEvents,
      id,
      encodeMessage('PersistentSubscriptionAckEvents', {
        subscriptionId: `${s}::g`,
        processedEventIds: [appeared()[0].event.event.eventId],
      }),
    );
    await waitFor(() => appeared().length === 3, 'the third event after the ack');
    client.send(
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

    const deleted = await client.request(
      TcpCommand.DeletePersistentSubscription,
      encodeMessage('DeletePersistentSubscription', { subscriptionGroupName: 'g', eventStreamId: s }),
      ADMIN,
    );
    expect(decodeMessage<{ result: number }>('DeletePersistentSubscriptionCompleted', deleted.body).result).toBe(0);
    const dropped = await client.next(
      (p) => p.correlationId.equals(id) && p.command === TcpCommand.SubscriptionDropped,
    );
    expect(decodeMessage<{ reason: number }>('SubscriptionDropped', dropped.body).reason).toBe(Drop.Unsubscribed);
  });
});

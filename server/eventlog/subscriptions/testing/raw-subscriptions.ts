/** Subscription commands spoken over raw sockets: request bodies, decoding by correlation id, and a server for a file. */
import { afterAll, beforeAll, expect } from 'vitest';
import { int64ToNumber } from '../../tcp/codec.ts';
import { TcpCommand, TcpFlags } from '../../tcp/commands.ts';
import { decodeMessage, encodeMessage, enumValue, type Int64 } from '../../tcp/messages.ts';
import { RawClient, startTcpFixture, type TcpFixture } from '../../tcp/testing/raw-client.ts';
import { writeEventsBody } from '../../tcp/testing/raw-requests.ts';
import { startSubscriptions, type Subscriptions } from '../index.ts';
import { subscriptionTcpHandlers } from '../tcp-handlers.ts';
import { silentLogger } from './event-log.ts';

export const ADMIN = { flags: TcpFlags.Authenticated, login: 'admin', password: 'changeit' };
export const Drop = {
  Unsubscribed: enumValue('SubscriptionDropped.SubscriptionDropReason', 'Unsubscribed'),
  AccessDenied: enumValue('SubscriptionDropped.SubscriptionDropReason', 'AccessDenied'),
  NotFound: enumValue('SubscriptionDropped.SubscriptionDropReason', 'NotFound'),
  SubscriberMaxCountReached: enumValue('SubscriptionDropped.SubscriptionDropReason', 'SubscriberMaxCountReached'),
};

export interface WireResolvedEvent {
  event?: { eventStreamId: string; eventNumber: Int64; eventType: string; eventId: Uint8Array };
  commitPosition: Int64;
  preparePosition: Int64;
}
export interface Pos {
  commit: number;
  prepare: number;
}

export const after = (p: Pos) => (e: Pos) => e.commit > p.commit || (e.commit === p.commit && e.prepare > p.prepare);
export const posOf = (e: WireResolvedEvent): Pos => ({
  commit: int64ToNumber(e.commitPosition),
  prepare: int64ToNumber(e.preparePosition),
});

export async function write(
  client: RawClient,
  streamId: string,
  events: { type: string; data?: string }[],
): Promise<void> {
  const reply = await client.request(
    TcpCommand.WriteEvents,
    writeEventsBody(
      streamId,
      events.map((e) => ({ type: e.type, data: e.data ?? '{}' })),
    ),
    ADMIN,
  );
  expect(reply.command).toBe(TcpCommand.WriteEventsCompleted);
  expect(decodeMessage<{ result: number }>('WriteEventsCompleted', reply.body).result).toBe(0);
}

export function filteredSubscribeBody(
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

/** A persistent group `g` on `eventStreamId` with the wire's settings spelled out, to create or update. */
export function persistentGroupBody(
  message: 'CreatePersistentSubscription' | 'UpdatePersistentSubscription',
  eventStreamId: string,
  namedConsumerStrategy = '',
): Uint8Array {
  return encodeMessage(message, {
    subscriptionGroupName: 'g',
    eventStreamId,
    namedConsumerStrategy,
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
  });
}

export const EventTypePrefix = (data: string[]) => ({ context: 1, type: 1, data });
export const StreamRegex = (data: string[]) => ({ context: 0, type: 0, data });

/** Packages for one correlation id, decoded by kind. */
export function collect(client: RawClient, correlationId: Buffer) {
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

/** An event-log TCP server with subscriptions and one raw client, for the enclosing block's tests. */
export function useSubscriptionsOverTcp(): {
  readonly fx: TcpFixture;
  readonly subs: Subscriptions;
  readonly client: RawClient;
} {
  const t = {} as { fx: TcpFixture; subs: Subscriptions; client: RawClient };
  beforeAll(async () => {
    // Small send-queue bounds so the slow-subscriber case needs little traffic.
    t.fx = await startTcpFixture({ limits: { backlogPackages: 200, backlogBytes: 1024 * 1024 } });
    t.subs = startSubscriptions(t.fx.eventLog.store, { logger: silentLogger });
    t.fx.server.registerHandlers(subscriptionTcpHandlers(t.subs));
    t.client = await RawClient.connect(t.fx.port, { answerHeartbeats: true });
  });
  afterAll(async () => {
    t.client?.destroy();
    await t.fx?.server.close();
    await t.subs?.close();
    await t.fx?.close();
  });
  return t;
}

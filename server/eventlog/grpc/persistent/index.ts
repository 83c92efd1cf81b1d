import * as grpc from '@grpc/grpc-js';
import type {
  Subscriptions,
  CreateGroupResult,
  DropReason,
  NakAction,
  PersistentConsumerHandle,
  UpdateGroupResult,
} from '../../subscriptions/index.ts';
import type { Caller } from '../../store/index.ts';
import { Outbox, subscriberOf, toGrpcError, unary, wellFormed, type CallContext } from '../call-support.ts';
import { Errors, grpcError, type GrpcError } from '../errors.ts';
import type { GrpcServiceModule } from '../listener.ts';
import { encodeMessage } from '../protos.ts';
import { readEventToWire } from '../streams/events.ts';
import { uuidFromWire, type WireUuid } from '../uuid.ts';
import {
  allSettingsFromWire,
  settingsFromWire,
  subscriptionInfoToWire,
  type WireAllStart,
  type WireSettings,
  type WireStreamStart,
} from './settings.ts';

/**
 * `event_store.client.persistent_subscriptions.PersistentSubscriptions` on the persistent-subscription
 * engine the TCP protocol uses (same groups, checkpoints, parked messages, consumers), to streams and, as
 * KurrentDB 21.10+, to `$all` (with a filter; positions are commit positions).
 */

type StreamName = { stream_name?: Buffer };

/** The engine's name for the global log. */
const ALL = '$all';

function streamOf(identifier: StreamName | undefined, allCase: boolean): string {
  if (allCase) return ALL;
  const name = identifier?.stream_name?.toString('utf8') ?? '';
  if (name === '') throw Errors.invalidArgument('stream_identifier is required');
  return name;
}

function groupOf(name: string | undefined): string {
  if (!name) throw Errors.invalidArgument('group_name is required');
  return name;
}

function mayManage(caller: Caller): boolean {
  return caller !== null && (caller.groups.includes('$admins') || caller.groups.includes('$ops'));
}

function requireUser(caller: Caller): void {
  if (caller === null) throw Errors.accessDenied();
}

interface ManageOptions {
  stream_option?: 'stream' | 'all' | 'stream_identifier';
  stream?: WireStreamStart & { stream_identifier?: StreamName };
  all?: WireAllStart;
  stream_identifier?: StreamName;
  group_name?: string;
  settings?: WireSettings;
}

/** Create/Update address the stream in the new (`stream`) or the deprecated (`stream_identifier`) place. */
function managedStream(options: ManageOptions): string {
  if (options.stream_option === 'all') return ALL;
  return streamOf(options.stream?.stream_identifier ?? options.stream_identifier, false);
}

const NAK_ACTIONS: Record<string, NakAction> = {
  UNKNOWN: 'Unknown',
  PARK: 'Park',
  RETRY: 'Retry',
  SKIP: 'Skip',
  STOP: 'Stop',
};

interface ReadReq {
  content?: 'options' | 'ack' | 'nack';
  options?: {
    stream_option?: 'stream_identifier' | 'all';
    stream_identifier?: StreamName;
    group_name?: string;
    buffer_size?: number;
    uuid_option?: { content?: 'structured' | 'string' };
  };
  ack?: { ids?: WireUuid[] };
  nack?: { ids?: WireUuid[]; action?: string | number; reason?: string };
}

function dropError(reason: DropReason, streamId: string, group: string): GrpcError {
  switch (reason) {
    case 'AccessDenied':
      return Errors.accessDenied();
    case 'NotFound':
      return Errors.persistentSubscriptionDoesNotExist(streamId, group);
    case 'SubscriberMaxCountReached':
      return Errors.maximumSubscribersReached(streamId, group);
    case 'ServerShutdown':
      return grpcError(grpc.status.UNAVAILABLE, 'Server is shutting down.');
    default:
      return Errors.persistentSubscriptionDropped(streamId, group, reason);
  }
}

/** Messages a consumer may have in flight at most (buffer_size), whatever it asks for. */
const MAX_BUFFER_SIZE = 10_000;

function readHandler(ctx: CallContext, subscriptions: Subscriptions): grpc.handleBidiStreamingCall<ReadReq, unknown> {
  return (call) => {
    const out = new Outbox<unknown>(call);
    let consumer: PersistentConsumerHandle | null = null;
    let clientDone = false;
    let chain: Promise<void> = Promise.resolve();
    const fail = (err: unknown) => {
      consumer?.close();
      consumer = null;
      out.fail(toGrpcError(err, ctx.logger));
    };
    out.onEnd(() => {
      consumer?.close();
      consumer = null;
    });
    try {
      ctx.streams.admit(call, out);
    } catch (err) {
      out.fail(toGrpcError(err, ctx.logger));
      return;
    }

    const open = async (options: NonNullable<ReadReq['options']>) => {
      const caller = await ctx.authenticate(call);
      const streamId = streamOf(options.stream_identifier, options.stream_option === 'all');
      const group = groupOf(options.group_name);
      const structured = options.uuid_option?.content === 'structured';
      const bufferSize = options.buffer_size ?? 0;
      if (bufferSize <= 0 || bufferSize > MAX_BUFFER_SIZE)
        throw Errors.invalidArgument(`buffer_size must be from 1 to ${MAX_BUFFER_SIZE}`);
      const result = subscriptions.persistent.connect({
        streamId,
        groupName: group,
        allowedInFlightMessages: bufferSize,
        caller,
        subscriber: subscriberOf(call, caller),
        sink: {
          eventAppeared: (event, retryCount) => {
            return out.push(
              encodeMessage('event_store.client.persistent_subscriptions.ReadResp', {
                event: { ...readEventToWire(event, structured), retry_count: retryCount },
              }),
            );
          },
          dropped: (reason) => {
            consumer = null;
            if (clientDone && reason === 'Unsubscribed') out.end();
            else out.fail(dropError(reason, streamId, group));
          },
        },
      });
      if (!result.ok) throw dropError(result.reason, streamId, group);
      consumer = result.consumer;
      out.push({ subscription_confirmation: { subscription_id: result.confirmation.subscriptionId } });
      result.consumer.start();
    };

    const handle = async (message: ReadReq) => {
      if (message.content === 'options' && message.options) {
        if (consumer) throw Errors.invalidArgument('options were already sent');
        return open(message.options);
      }
      if (!consumer) return; // acks after a drop: nothing left to acknowledge
      if (message.content === 'ack') {
        consumer.ack((message.ack?.ids ?? []).map((id) => uuidFromWire(id)));
      } else if (message.content === 'nack') {
        const action = NAK_ACTIONS[String(message.nack?.action ?? 'UNKNOWN')] ?? 'Unknown';
        consumer.nak(
          (message.nack?.ids ?? []).map((id) => uuidFromWire(id)),
          action,
          message.nack?.reason,
        );
      } else throw Errors.invalidArgument('ReadReq needs options, ack or nack');
    };

    call.on('data', (message: ReadReq) => {
      chain = chain.then(() => handle(wellFormed(message))).catch(fail);
    });
    call.on('end', () => {
      clientDone = true;
      chain = chain.then(() => {
        if (consumer) consumer.unsubscribe();
        else out.end();
      });
    });
    call.on('error', () => {
      consumer?.close();
      consumer = null;
    });
  };
}

/** Any result but Success as KurrentDB's error. */
function check(result: CreateGroupResult | UpdateGroupResult, streamId: string, group: string) {
  if (result.result === 'AlreadyExists') throw Errors.persistentSubscriptionExists(streamId, group);
  if (result.result === 'DoesNotExist') throw Errors.persistentSubscriptionDoesNotExist(streamId, group);
  if (result.result === 'AccessDenied') throw Errors.accessDenied();
  if (result.result === 'Fail') throw Errors.invalidArgument(result.reason ?? 'the request failed');
  return {};
}

/**
 * PersistentSubscriptions.RestartSubsystem and Operations.RestartPersistentSubscriptions. The engine has no
 * restart of its own: each group is re-applied with its own settings, which stops it (consumers are dropped,
 * in-flight messages retried) and starts it again from its checkpoint.
 */
export async function restartPersistentSubscriptions(subscriptions: Subscriptions, caller: Caller): Promise<void> {
  if (!mayManage(caller)) throw Errors.accessDenied();
  for (const group of subscriptions.listGroups()) {
    const detail = subscriptions.getGroup(group.streamId, group.groupName);
    if (!detail) continue; // deleted meanwhile
    const result = await subscriptions.updateGroup(group.streamId, group.groupName, detail.settings, caller);
    if (result.result !== 'DoesNotExist') check(result, group.streamId, group.groupName);
  }
}

export function persistentSubscriptionsService(ctx: CallContext, subscriptions: Subscriptions): GrpcServiceModule {
  const createOrUpdate = (kind: 'create' | 'update') =>
    unary<{ options?: ManageOptions }, unknown>(ctx, async (request, caller) => {
      const options = request.options ?? {};
      const streamId = managedStream(options);
      const group = groupOf(options.group_name);
      const settings =
        streamId === ALL
          ? allSettingsFromWire(options.settings, options.all, kind === 'create')
          : settingsFromWire(options.settings, options.stream);
      const result =
        kind === 'create'
          ? await subscriptions.createGroup(streamId, group, settings, caller, { toAll: streamId === ALL })
          : await subscriptions.updateGroup(streamId, group, settings, caller);
      return check(result, streamId, group);
    });
  type Addressed = { stream_option?: string; stream_identifier?: StreamName; group_name?: string };
  const remove = unary<{ options?: Addressed }, unknown>(ctx, async (request, caller) => {
    const options = request.options ?? {};
    const streamId = streamOf(options.stream_identifier, options.stream_option === 'all');
    const group = groupOf(options.group_name);
    return check(await subscriptions.deleteGroup(streamId, group, caller), streamId, group);
  });
  const getInfo = unary<{ options?: Addressed }, unknown>(ctx, (request, caller) => {
    requireUser(caller);
    const options = request.options ?? {};
    const streamId = streamOf(options.stream_identifier, options.stream_option === 'all');
    const group = groupOf(options.group_name);
    const detail = subscriptions.getGroup(streamId, group);
    if (!detail) throw Errors.persistentSubscriptionDoesNotExist(streamId, group);
    return { subscription_info: subscriptionInfoToWire(detail) };
  });
  const list = unary<
    { options?: { list_option?: string; list_for_stream?: { stream_option?: string; stream?: StreamName } } },
    unknown
  >(ctx, (request, caller) => {
    requireUser(caller);
    const forStream = request.options?.list_option === 'list_for_stream' ? request.options.list_for_stream : undefined;
    const streamId = forStream ? streamOf(forStream.stream, forStream.stream_option === 'all') : null;
    const groups = subscriptions
      .listGroups()
      .filter((g) => streamId === null || g.streamId === streamId)
      .map((g) => subscriptions.getGroup(g.streamId, g.groupName))
      .filter((g) => g !== undefined);
    // KurrentDB answers NOT_FOUND when a stream has no groups at all.
    if (streamId !== null && groups.length === 0) throw Errors.persistentSubscriptionDoesNotExist(streamId, '');
    return { subscriptions: groups.map(subscriptionInfoToWire) };
  });
  const replayParked = unary<{ options?: Addressed & { stop_at_option?: string; stop_at?: string } }, unknown>(
    ctx,
    (request, caller) => {
      if (!mayManage(caller)) throw Errors.accessDenied();
      const options = request.options ?? {};
      const streamId = streamOf(options.stream_identifier, options.stream_option === 'all');
      const group = groupOf(options.group_name);
      const stopAt = options.stop_at_option === 'stop_at' ? Number(options.stop_at) : undefined;
      const replayed = subscriptions.replayParked(streamId, group, stopAt !== undefined ? { stopAt } : {});
      if (replayed === undefined) throw Errors.persistentSubscriptionDoesNotExist(streamId, group);
      return {};
    },
  );
  const restartSubsystem = unary<unknown, unknown>(ctx, async (_request, caller) => {
    await restartPersistentSubscriptions(subscriptions, caller);
    return {};
  });
  const both = ['stream', 'all'];
  return {
    service: 'event_store.client.persistent_subscriptions.PersistentSubscriptions',
    handlers: {
      Create: createOrUpdate('create'),
      Update: createOrUpdate('update'),
      Delete: remove,
      Read: readHandler(ctx, subscriptions),
      GetInfo: getInfo,
      List: list,
      ReplayParked: replayParked,
      RestartSubsystem: restartSubsystem,
    },
    methods: {
      Create: both,
      Update: both,
      Delete: both,
      Read: both,
      GetInfo: both,
      List: both,
      ReplayParked: both,
      RestartSubsystem: [],
    },
  };
}

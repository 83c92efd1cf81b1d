import type { ResolvedEvent } from '../store/types.ts';
import {
  BadRequestError,
  eventNumberToWire,
  filterFromWire,
  int64ToNumber,
  resolvedIndexedEventToWire,
} from '../tcp/codec.ts';
import { TcpCommand } from '../tcp/commands.ts';
import type { CommandHandlerMap, PeerConnection, RequestContext } from '../tcp/dispatcher.ts';
import { GUID_BYTES, guidBytesToString } from '../tcp/guid.ts';
import { encodeStreamEventAppeared } from '../tcp/event-encoder.ts';
import { encodeMessage, enumTable, type FilterMessage, type Int64 } from '../tcp/messages.ts';
import type { Subscriptions } from './index.ts';
import { settingsFromWire, type WirePersistentSettings } from './persistent/settings.ts';
import type {
  CreateGroupResult,
  DropReason,
  NakAction,
  PersistentConsumerHandle,
  SubscriberInfo,
  UpdateGroupResult,
  VolatileSubscriptionHandle,
} from './types.ts';

/**
 * The subscription commands of the TCP protocol, wired to the engines: volatile (0xC0, 0xD2 → 0xC1,
 * 0xC2, 0xD3; 0xC3 → 0xC4) and persistent (0xC5 → 0xC6, 0xC7; 0xC8/0xCE/0xCA management; 0xCC/0xCD).
 * A subscription is identified by the correlation id of the request that opened it, per connection.
 */

type WireDropReason =
  | 'Unsubscribed'
  | 'AccessDenied'
  | 'NotFound'
  | 'PersistentSubscriptionDeleted'
  | 'SubscriberMaxCountReached';
const DropReasonWire = enumTable<WireDropReason>('SubscriptionDropped.SubscriptionDropReason');
const CreateResultWire = enumTable<CreateGroupResult['result']>(
  'CreatePersistentSubscriptionCompleted.CreatePersistentSubscriptionResult',
);
const UpdateResultWire = enumTable<UpdateGroupResult['result']>(
  'UpdatePersistentSubscriptionCompleted.UpdatePersistentSubscriptionResult',
);
const DeleteResultWire = enumTable<UpdateGroupResult['result']>(
  'DeletePersistentSubscriptionCompleted.DeletePersistentSubscriptionResult',
);
const NAK_ACTIONS: readonly NakAction[] = ['Unknown', 'Park', 'Retry', 'Skip', 'Stop'];

/**
 * Homeport's own drop causes have no wire value; each goes out as the value that makes clients do the
 * sensible thing. A slow volatile subscriber gets SubscriberMaxCountReached (4): both the node and the
 * .NET client surface it as an error (not as "you unsubscribed"), so catch-up code resubscribes from its
 * last position. A slow persistent consumer gets Unsubscribed, as for a group update: its messages are
 * redelivered and clients reconnect. A hard-deleted stream is NotFound.
 */
export function wireDropReason(reason: DropReason, persistent: boolean): number {
  switch (reason) {
    case 'StreamDeleted':
      return DropReasonWire.NotFound;
    case 'SlowSubscriber':
      return persistent ? DropReasonWire.Unsubscribed : DropReasonWire.SubscriberMaxCountReached;
    case 'ServerShutdown':
      return DropReasonWire.Unsubscribed;
    default:
      return DropReasonWire[reason];
  }
}

type Open =
  | { kind: 'volatile'; handle: VolatileSubscriptionHandle }
  | { kind: 'persistent'; handle: PersistentConsumerHandle };

/** Per connection: open subscriptions by the hex of their correlation id. */
class ConnectionSubscriptions {
  readonly byCorrelation = new Map<string, Open>();
  warnedOverLimit = false;
  constructor(connection: PeerConnection, onGone: () => void) {
    connection.onClose(() => {
      onGone();
      for (const open of this.byCorrelation.values()) open.handle.close();
      this.byCorrelation.clear();
    });
  }
}

interface SubscribeToStreamMessage {
  eventStreamId: string;
  resolveLinkTos: boolean;
}
interface FilteredSubscribeToStreamMessage extends SubscribeToStreamMessage {
  filter: FilterMessage;
  checkpointInterval: number;
}
/** Create/UpdatePersistentSubscription as decoded: the wire settings plus the group's address. */
interface PersistentSettingsMessage extends Omit<WirePersistentSettings, 'startFrom'> {
  subscriptionGroupName: string;
  eventStreamId: string;
  startFrom: Int64;
}
interface DeletePersistentSubscriptionMessage {
  subscriptionGroupName: string;
  eventStreamId: string;
}
interface ConnectToPersistentSubscriptionMessage {
  subscriptionId: string;
  eventStreamId: string;
  allowedInFlightMessages: number;
}
interface AckMessage {
  subscriptionId: string;
  processedEventIds: Uint8Array[];
}
interface NakMessage extends AckMessage {
  message?: string;
  action: number;
}

function subscriberOf(connection: PeerConnection, caller: RequestContext['caller']): SubscriberInfo {
  return {
    connectionId: connection.id,
    // A getter: the client may name itself (IdentifyClient) only after it subscribed.
    get connectionName() {
      return connection.name;
    },
    remoteAddress: `${connection.remoteAddress}:${connection.remotePort}`,
    caller,
  };
}

function eventIdsOf(raw: readonly Uint8Array[]): string[] {
  const ids: string[] = [];
  for (const bytes of raw) if (bytes.length === GUID_BYTES) ids.push(guidBytesToString(bytes));
  return ids;
}

/** Subscriptions one connection may hold open (volatile and persistent together). */
export const DEFAULT_MAX_SUBSCRIPTIONS_PER_CONNECTION = 1000;

/** Command handlers to pass to startEventLogTcp (`handlers`) or `registerHandlers`. */
export function subscriptionTcpHandlers(
  subscriptions: Subscriptions,
  options: { maxPerConnection?: number } = {},
): CommandHandlerMap {
  const maxPerConnection = options.maxPerConnection ?? DEFAULT_MAX_SUBSCRIPTIONS_PER_CONNECTION;
  const perConnection = new Map<string, ConnectionSubscriptions>();
  // StreamEventAppeared bodies are identical for every subscriber of one event: encode them once.
  const encodedEvents = new WeakMap<ResolvedEvent, Uint8Array>();

  const stateOf = (connection: PeerConnection): ConnectionSubscriptions => {
    let state = perConnection.get(connection.id);
    if (!state) {
      state = new ConnectionSubscriptions(connection, () => perConnection.delete(connection.id));
      perConnection.set(connection.id, state);
    }
    return state;
  };

  const encodeEventAppeared = (event: ResolvedEvent): Uint8Array => {
    let body = encodedEvents.get(event);
    if (!body) {
      body = encodeStreamEventAppeared(event);
      encodedEvents.set(event, body);
    }
    return body;
  };

  const sendDropped = (
    connection: PeerConnection,
    correlationId: Uint8Array,
    reason: DropReason,
    persistent: boolean,
  ) => {
    connection.send(
      TcpCommand.SubscriptionDropped,
      correlationId,
      encodeMessage('SubscriptionDropped', { reason: wireDropReason(reason, persistent) }),
    );
  };

  /** Each connection's subscriptions are bounded: one more than allowed is dropped at once (it would hold memory forever). */
  const overLimit = (ctx: RequestContext, state: ConnectionSubscriptions, key: string): boolean => {
    if (state.byCorrelation.has(key) || state.byCorrelation.size < maxPerConnection) return false;
    ctx.connection.send(
      TcpCommand.SubscriptionDropped,
      ctx.correlationId,
      encodeMessage('SubscriptionDropped', { reason: DropReasonWire.SubscriberMaxCountReached }),
    );
    if (!state.warnedOverLimit) {
      state.warnedOverLimit = true;
      ctx.logger.warn(
        { connection: ctx.connection.id, limit: maxPerConnection },
        'connection reached its subscription limit; further subscriptions are dropped',
      );
    }
    return true;
  };

  const subscribeVolatile = (
    ctx: RequestContext,
    message: SubscribeToStreamMessage,
    filtered: FilteredSubscribeToStreamMessage | null,
  ) => {
    const { connection, correlationId } = ctx;
    if (connection.closed) return;
    const state = stateOf(connection);
    const key = correlationId.toString('hex');
    if (overLimit(ctx, state, key)) return;
    state.byCorrelation.get(key)?.handle.close(); // a re-used correlation id replaces the old subscription
    state.byCorrelation.delete(key);

    const result = subscriptions.volatile.subscribe({
      streamId: message.eventStreamId,
      resolveLinkTos: message.resolveLinkTos,
      caller: ctx.caller,
      subscriber: subscriberOf(connection, ctx.caller),
      filter: filtered ? filterFromWire(filtered.filter) : undefined,
      checkpointInterval: filtered ? filtered.checkpointInterval : undefined,
      sink: {
        eventAppeared: (event) => {
          if (connection.isBacklogged()) return false;
          return connection.send(TcpCommand.StreamEventAppeared, correlationId, encodeEventAppeared(event));
        },
        checkpointReached: (position) => {
          if (connection.isBacklogged()) return false;
          return connection.send(
            TcpCommand.CheckpointReached,
            correlationId,
            encodeMessage('CheckpointReached', {
              commitPosition: position.commitPosition,
              preparePosition: position.preparePosition,
            }),
          );
        },
        dropped: (reason) => {
          state.byCorrelation.delete(key);
          sendDropped(connection, correlationId, reason, false);
        },
      },
    });
    if (!result.ok) {
      if (result.invalidRequest) throw new BadRequestError(result.invalidRequest);
      sendDropped(connection, correlationId, result.reason, false);
      return;
    }
    state.byCorrelation.set(key, { kind: 'volatile', handle: result.subscription });
    const confirmation: Record<string, number> = { lastCommitPosition: result.confirmation.lastCommitPosition };
    if (result.confirmation.lastEventNumber !== null)
      confirmation.lastEventNumber = result.confirmation.lastEventNumber;
    ctx.replyMessage(TcpCommand.SubscriptionConfirmation, 'SubscriptionConfirmation', confirmation);
  };

  const settingsOf = (m: PersistentSettingsMessage) =>
    settingsFromWire({ ...m, startFrom: int64ToNumber(m.startFrom) });

  const consumerFor = (ctx: RequestContext): PersistentConsumerHandle | undefined => {
    const open = perConnection.get(ctx.connection.id)?.byCorrelation.get(ctx.correlationId.toString('hex'));
    return open?.kind === 'persistent' ? open.handle : undefined;
  };

  return {
    [TcpCommand.SubscribeToStream]: {
      request: 'SubscribeToStream',
      handle(ctx, message: SubscribeToStreamMessage) {
        subscribeVolatile(ctx, message, null);
      },
    },

    [TcpCommand.FilteredSubscribeToStream]: {
      request: 'FilteredSubscribeToStream',
      handle(ctx, message: FilteredSubscribeToStreamMessage) {
        subscribeVolatile(ctx, message, message);
      },
    },

    [TcpCommand.UnsubscribeFromStream]: {
      // Clients send it without credentials, for volatile and persistent subscriptions alike.
      authenticate: false,
      needsStore: false,
      handle(ctx) {
        const open = perConnection.get(ctx.connection.id)?.byCorrelation.get(ctx.correlationId.toString('hex'));
        open?.handle.unsubscribe();
      },
    },

    [TcpCommand.ConnectToPersistentSubscription]: {
      request: 'ConnectToPersistentSubscription',
      handle(ctx, message: ConnectToPersistentSubscriptionMessage) {
        const { connection, correlationId } = ctx;
        if (connection.closed) return;
        const state = stateOf(connection);
        const key = correlationId.toString('hex');
        if (overLimit(ctx, state, key)) return;
        state.byCorrelation.get(key)?.handle.close();
        state.byCorrelation.delete(key);

        const result = subscriptions.persistent.connect({
          streamId: message.eventStreamId,
          groupName: message.subscriptionId,
          allowedInFlightMessages: message.allowedInFlightMessages,
          caller: ctx.caller,
          subscriber: subscriberOf(connection, ctx.caller),
          sink: {
            eventAppeared: (event, retryCount) => {
              if (connection.isBacklogged()) return false;
              return connection.send(
                TcpCommand.PersistentSubscriptionStreamEventAppeared,
                correlationId,
                encodeMessage('PersistentSubscriptionStreamEventAppeared', {
                  event: resolvedIndexedEventToWire(event),
                  retryCount,
                }),
              );
            },
            dropped: (reason) => {
              state.byCorrelation.delete(key);
              sendDropped(connection, correlationId, reason, true);
            },
          },
        });
        if (!result.ok) {
          sendDropped(connection, correlationId, result.reason, true);
          return;
        }
        state.byCorrelation.set(key, { kind: 'persistent', handle: result.consumer });
        ctx.replyMessage(TcpCommand.PersistentSubscriptionConfirmation, 'PersistentSubscriptionConfirmation', {
          ...result.confirmation,
          lastEventNumber: eventNumberToWire(result.confirmation.lastEventNumber),
        });
        result.consumer.start();
      },
    },

    [TcpCommand.PersistentSubscriptionAckEvents]: {
      request: 'PersistentSubscriptionAckEvents',
      authenticate: false,
      // Never answer an ack with NotHandled (clients treat that as fatal once subscribed).
      needsStore: false,
      handle(ctx, message: AckMessage) {
        consumerFor(ctx)?.ack(eventIdsOf(message.processedEventIds ?? []));
      },
    },

    [TcpCommand.PersistentSubscriptionNakEvents]: {
      request: 'PersistentSubscriptionNakEvents',
      authenticate: false,
      // Never answer an ack with NotHandled (clients treat that as fatal once subscribed).
      needsStore: false,
      handle(ctx, message: NakMessage) {
        const action = NAK_ACTIONS[message.action] ?? 'Unknown';
        consumerFor(ctx)?.nak(eventIdsOf(message.processedEventIds ?? []), action, message.message ?? '');
      },
    },

    [TcpCommand.CreatePersistentSubscription]: {
      request: 'CreatePersistentSubscription',
      async handle(ctx, m: PersistentSettingsMessage) {
        const settings = settingsOf(m);
        const outcome: CreateGroupResult =
          typeof settings === 'string'
            ? { result: 'Fail', reason: settings }
            : await subscriptions.persistent.create(m.eventStreamId, m.subscriptionGroupName, settings, ctx.caller);
        ctx.replyMessage(TcpCommand.CreatePersistentSubscriptionCompleted, 'CreatePersistentSubscriptionCompleted', {
          result: CreateResultWire[outcome.result],
          ...(outcome.reason ? { reason: outcome.reason } : {}),
        });
      },
    },

    [TcpCommand.UpdatePersistentSubscription]: {
      request: 'UpdatePersistentSubscription',
      async handle(ctx, m: PersistentSettingsMessage) {
        const settings = settingsOf(m);
        const outcome: UpdateGroupResult =
          typeof settings === 'string'
            ? { result: 'Fail', reason: settings }
            : await subscriptions.persistent.update(m.eventStreamId, m.subscriptionGroupName, settings, ctx.caller);
        ctx.replyMessage(TcpCommand.UpdatePersistentSubscriptionCompleted, 'UpdatePersistentSubscriptionCompleted', {
          result: UpdateResultWire[outcome.result],
          ...(outcome.reason ? { reason: outcome.reason } : {}),
        });
      },
    },

    [TcpCommand.DeletePersistentSubscription]: {
      request: 'DeletePersistentSubscription',
      async handle(ctx, m: DeletePersistentSubscriptionMessage) {
        const outcome = await subscriptions.persistent.delete(m.eventStreamId, m.subscriptionGroupName, ctx.caller);
        ctx.replyMessage(TcpCommand.DeletePersistentSubscriptionCompleted, 'DeletePersistentSubscriptionCompleted', {
          result: DeleteResultWire[outcome.result],
          ...(outcome.reason ? { reason: outcome.reason } : {}),
        });
      },
    },
  };
}

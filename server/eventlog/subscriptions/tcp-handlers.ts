import type { Position, ResolvedEvent, ResolvedIndexedEvent } from '../store/index.ts';
import {
  BadRequestError,
  eventNumberToWire,
  filterFromWire,
  int64ToNumber,
  resolvedIndexedEventToWire,
  TcpCommand,
  type CommandHandlerMap,
  type PeerConnection,
  type RequestContext,
  GUID_BYTES,
  guidBytesToString,
  encodeStreamEventAppeared,
  encodeMessage,
  enumTable,
  type FilterMessage,
  type Int64,
} from '../tcp/index.ts';
import type { Subscriptions } from './subscriptions.ts';
import { settingsFromWire, type WirePersistentSettings } from './persistent/settings.ts';
import type {
  CreateGroupResult,
  DropReason,
  NakAction,
  PersistentConsumerHandle,
  PersistentSink,
  UpdateGroupResult,
  VolatileSink,
  VolatileSubscriptionHandle,
} from './types.ts';
import { OpenSubscriptions, Subscriber, type OpenSubscription, type SubscriptionTcpOptions } from './tcp-registry.ts';

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

function eventIdsOf(raw: readonly Uint8Array[]): string[] {
  const ids: string[] = [];
  for (const bytes of raw) if (bytes.length === GUID_BYTES) ids.push(guidBytesToString(bytes));
  return ids;
}

function sendDropped(connection: PeerConnection, correlationId: Uint8Array, reason: DropReason, persistent: boolean) {
  connection.send(
    TcpCommand.SubscriptionDropped,
    correlationId,
    encodeMessage('SubscriptionDropped', { reason: wireDropReason(reason, persistent) }),
  );
}

/** What every sink of one server shares. */
interface SinkContext {
  readonly open: OpenSubscriptions;
  encodeEventAppeared(event: ResolvedEvent): Uint8Array;
}

/**
 * Delivery to one subscription over its connection. An object per subscription rather than a set of
 * closures: thousands may be open at once. A sink past its connection's backlog refuses (the engine then
 * drops the subscription as a slow subscriber).
 */
abstract class TcpSink<Handle extends OpenSubscription['handle']> {
  handle: Handle | undefined;
  protected readonly shared: SinkContext;
  protected readonly connection: PeerConnection;
  protected readonly correlationId: Uint8Array;
  private readonly key: string;

  constructor(shared: SinkContext, connection: PeerConnection, correlationId: Uint8Array, key: string) {
    this.shared = shared;
    this.connection = connection;
    this.correlationId = correlationId;
    this.key = key;
  }

  protected abstract readonly persistent: boolean;

  dropped(reason: DropReason): void {
    this.shared.open.remove(this.connection, this.key, this.handle);
    sendDropped(this.connection, this.correlationId, reason, this.persistent);
  }

  protected deliver(command: number, body: Uint8Array): boolean {
    if (this.connection.isBacklogged()) return false;
    return this.connection.send(command, this.correlationId, body);
  }
}

class VolatileTcpSink extends TcpSink<VolatileSubscriptionHandle> implements VolatileSink {
  protected readonly persistent = false;

  eventAppeared(event: ResolvedEvent): boolean {
    return this.deliver(TcpCommand.StreamEventAppeared, this.shared.encodeEventAppeared(event));
  }

  checkpointReached(position: Position): boolean {
    return this.deliver(
      TcpCommand.CheckpointReached,
      encodeMessage('CheckpointReached', {
        commitPosition: position.commitPosition,
        preparePosition: position.preparePosition,
      }),
    );
  }
}

class PersistentTcpSink extends TcpSink<PersistentConsumerHandle> implements PersistentSink {
  protected readonly persistent = true;

  eventAppeared(event: ResolvedIndexedEvent, retryCount: number): boolean {
    return this.deliver(
      TcpCommand.PersistentSubscriptionStreamEventAppeared,
      encodeMessage('PersistentSubscriptionStreamEventAppeared', {
        event: resolvedIndexedEventToWire(event),
        retryCount,
      }),
    );
  }
}

/** How many encoded forms of recent events are kept (an event's forms: plain, and its link resolved per caller). */
const RECENT_FORMS = 8;
const EMPTY: Uint8Array = new Uint8Array(0);

/** Command handlers to pass to startEventLogTcp (`handlers`) or `registerHandlers`. */
export function subscriptionTcpHandlers(
  subscriptions: Subscriptions,
  options: SubscriptionTcpOptions = {},
): CommandHandlerMap {
  const open = new OpenSubscriptions(options);
  // StreamEventAppeared bodies are identical for every subscriber of one event: encode them once. The engines
  // deliver an event to all its subscribers before the next, so the last one asked for answers nearly every
  // delivery; a few slots more serve forms that alternate (links resolved per caller). Slots, not a WeakMap: a
  // WeakMap entry per event was 2-3 % of the server's CPU at one subscriber (perf: the set and its GC barrier).
  const recentForms = Array.from({ length: RECENT_FORMS }, () => ({
    event: null as ResolvedEvent | null,
    body: EMPTY,
  }));
  let nextSlot = 0;
  let lastEvent: ResolvedEvent | null = null;
  let lastBody: Uint8Array = EMPTY;
  const shared: SinkContext = {
    open,
    encodeEventAppeared(event) {
      if (event === lastEvent) return lastBody;
      let body: Uint8Array | null = null;
      for (const slot of recentForms) {
        if (slot.event === event) {
          body = slot.body;
          break;
        }
      }
      if (!body) {
        body = encodeStreamEventAppeared(event);
        const slot = recentForms[nextSlot];
        slot.event = event;
        slot.body = body;
        nextSlot = (nextSlot + 1) % RECENT_FORMS;
      }
      lastEvent = event;
      lastBody = body;
      return body;
    },
  };

  /**
   * Room for one more subscription under this request's correlation id (one in use is replaced). Past a
   * bound it is dropped at once with SubscriberMaxCountReached, which clients report as an error.
   */
  const makeRoom = (ctx: RequestContext, key: string): boolean => {
    if (!open.admits(ctx.connection, key, ctx.logger)) {
      sendDropped(ctx.connection, ctx.correlationId, 'SubscriberMaxCountReached', false);
      return false;
    }
    open.get(ctx.connection, key)?.handle.close(); // a re-used correlation id replaces the old subscription
    open.remove(ctx.connection, key);
    return true;
  };

  const subscribeVolatile = (
    ctx: RequestContext,
    message: SubscribeToStreamMessage,
    filtered: FilteredSubscribeToStreamMessage | null,
  ) => {
    const { connection, correlationId } = ctx;
    if (connection.closed) return;
    const key = correlationId.toString('hex');
    if (!makeRoom(ctx, key)) return;
    const sink = new VolatileTcpSink(shared, connection, correlationId, key);
    const result = subscriptions.volatile.subscribe({
      streamId: message.eventStreamId,
      resolveLinkTos: message.resolveLinkTos,
      caller: ctx.caller,
      subscriber: new Subscriber(connection, ctx.caller),
      filter: filtered ? filterFromWire(filtered.filter) : undefined,
      checkpointInterval: filtered ? filtered.checkpointInterval : undefined,
      sink,
    });
    if (!result.ok) {
      if (result.invalidRequest) throw new BadRequestError(result.invalidRequest);
      sendDropped(connection, correlationId, result.reason, false);
      return;
    }
    sink.handle = result.subscription;
    open.add(connection, key, { kind: 'volatile', handle: result.subscription });
    const confirmation: Record<string, number> = { lastCommitPosition: result.confirmation.lastCommitPosition };
    if (result.confirmation.lastEventNumber !== null)
      confirmation.lastEventNumber = result.confirmation.lastEventNumber;
    ctx.replyMessage(TcpCommand.SubscriptionConfirmation, 'SubscriptionConfirmation', confirmation);
  };

  const settingsOf = (m: PersistentSettingsMessage) =>
    settingsFromWire({ ...m, startFrom: int64ToNumber(m.startFrom) });

  const consumerFor = (ctx: RequestContext): PersistentConsumerHandle | undefined => {
    const held = open.get(ctx.connection, ctx.correlationId.toString('hex'));
    return held?.kind === 'persistent' ? held.handle : undefined;
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
        open.get(ctx.connection, ctx.correlationId.toString('hex'))?.handle.unsubscribe();
      },
    },

    [TcpCommand.ConnectToPersistentSubscription]: {
      request: 'ConnectToPersistentSubscription',
      handle(ctx, message: ConnectToPersistentSubscriptionMessage) {
        const { connection, correlationId } = ctx;
        if (connection.closed) return;
        const key = correlationId.toString('hex');
        if (!makeRoom(ctx, key)) return;
        const sink = new PersistentTcpSink(shared, connection, correlationId, key);
        const result = subscriptions.persistent.connect({
          streamId: message.eventStreamId,
          groupName: message.subscriptionId,
          allowedInFlightMessages: message.allowedInFlightMessages,
          caller: ctx.caller,
          subscriber: new Subscriber(connection, ctx.caller),
          sink,
        });
        if (!result.ok) {
          sendDropped(connection, correlationId, result.reason, true);
          return;
        }
        sink.handle = result.consumer;
        open.add(connection, key, { kind: 'persistent', handle: result.consumer });
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

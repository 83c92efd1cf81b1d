import type {
  ConsumerStrategyName,
  PersistentGroupDetail,
  PersistentSubscriptionSettings,
} from '../../subscriptions/index.ts';
import { Errors } from '../errors.ts';

/** Create/Update settings as decoded: both the old shape (Settings.revision) and the new (StreamOptions). */
export interface WireSettings {
  resolve_links?: boolean;
  revision?: string;
  extra_statistics?: boolean;
  max_retry_count?: number;
  min_checkpoint_count?: number;
  max_checkpoint_count?: number;
  max_subscriber_count?: number;
  live_buffer_size?: number;
  read_batch_size?: number;
  history_buffer_size?: number;
  named_consumer_strategy?: string | number;
  message_timeout?: 'message_timeout_ticks' | 'message_timeout_ms';
  message_timeout_ticks?: string;
  message_timeout_ms?: number;
  checkpoint_after?: 'checkpoint_after_ticks' | 'checkpoint_after_ms';
  checkpoint_after_ticks?: string;
  checkpoint_after_ms?: number;
  consumer_strategy?: string;
}

export interface WireStreamStart {
  revision_option?: 'revision' | 'start' | 'end';
  revision?: string;
}

const NAMED_STRATEGIES: Record<string, ConsumerStrategyName> = {
  DISPATCHTOSINGLE: 'DispatchToSingle',
  ROUNDROBIN: 'RoundRobin',
  PINNED: 'Pinned',
};
/** uint64 max: the Node client's "from the end" in the deprecated Settings.revision. */
const END_REVISION = '18446744073709551615';

function startFromOf(settings: WireSettings, stream: WireStreamStart | undefined): number {
  if (stream?.revision_option === 'start') return 0;
  if (stream?.revision_option === 'end') return -1;
  const text = stream?.revision_option === 'revision' ? stream.revision : settings.revision;
  if (text === undefined || text === END_REVISION) return text === undefined ? 0 : -1;
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw Errors.invalidArgument('start revision is out of range');
  return n;
}

/** proto3 sends 0 for a field left out: where 0 is no valid setting, the default applies. */
const orDefault = (n: number | undefined) => (n ? n : undefined);

function ticksToMs(ticks: string | undefined): number {
  return Math.floor(Number(ticks ?? '0') / 10_000);
}

export function settingsFromWire(
  settings: WireSettings | undefined,
  stream: WireStreamStart | undefined,
): Partial<PersistentSubscriptionSettings> {
  const s = settings ?? {};
  const strategy =
    s.consumer_strategy && s.consumer_strategy !== ''
      ? s.consumer_strategy
      : NAMED_STRATEGIES[String(s.named_consumer_strategy ?? 'ROUNDROBIN')];
  if (!strategy) throw Errors.invalidArgument('unknown consumer strategy');
  return {
    resolveLinkTos: s.resolve_links ?? false,
    startFrom: startFromOf(s, stream),
    extraStatistics: s.extra_statistics ?? false,
    maxRetryCount: s.max_retry_count ?? 0,
    minCheckpointCount: s.min_checkpoint_count ?? 0,
    maxCheckpointCount: orDefault(s.max_checkpoint_count),
    maxSubscriberCount: s.max_subscriber_count ?? 0,
    liveBufferSize: orDefault(s.live_buffer_size),
    readBatchSize: orDefault(s.read_batch_size),
    historyBufferSize: orDefault(s.history_buffer_size),
    messageTimeoutMs:
      s.message_timeout === 'message_timeout_ticks' ? ticksToMs(s.message_timeout_ticks) : (s.message_timeout_ms ?? 0),
    checkpointAfterMs:
      s.checkpoint_after === 'checkpoint_after_ticks'
        ? ticksToMs(s.checkpoint_after_ticks)
        : (s.checkpoint_after_ms ?? 0),
    consumerStrategy: strategy as ConsumerStrategyName,
  };
}

const revisionText = (n: number) => (n < 0 ? '' : String(n));

/** `SubscriptionInfo` as KurrentDB reports it for a stream group. */
export function subscriptionInfoToWire(group: PersistentGroupDetail) {
  const s = group.settings;
  return {
    event_source: group.streamId,
    group_name: group.groupName,
    status: group.status,
    connections: group.connections.map((c) => ({
      from: c.remoteAddress,
      username: c.user ?? '',
      average_items_per_second: Math.round(c.averageItemsPerSecond),
      total_items: String(c.itemsDelivered),
      count_since_last_measurement: '0',
      observed_measurements: [],
      available_slots: c.availableSlots,
      in_flight_messages: c.inFlightMessages,
      connection_name: c.connectionName ?? '',
    })),
    average_per_second: Math.round(group.averageItemsPerSecond),
    total_items: String(group.totalItemsProcessed),
    count_since_last_measurement: '0',
    last_checkpointed_event_position: revisionText(group.lastCheckpointedEventNumber),
    last_known_event_position: revisionText(group.lastKnownEventNumber),
    resolve_link_tos: s.resolveLinkTos,
    start_from: String(s.startFrom),
    message_timeout_milliseconds: s.messageTimeoutMs,
    extra_statistics: s.extraStatistics,
    max_retry_count: s.maxRetryCount,
    live_buffer_size: s.liveBufferSize,
    buffer_size: s.historyBufferSize,
    read_batch_size: s.readBatchSize,
    check_point_after_milliseconds: s.checkpointAfterMs,
    min_check_point_count: s.minCheckpointCount,
    max_check_point_count: s.maxCheckpointCount,
    read_buffer_count: group.readBufferCount,
    live_buffer_count: String(group.liveBufferCount),
    retry_buffer_count: group.retryBufferCount,
    total_in_flight_messages: group.totalInFlightMessages,
    outstanding_messages_count: group.outstandingMessagesCount,
    named_consumer_strategy: s.consumerStrategy,
    max_subscriber_count: s.maxSubscriberCount,
    parked_message_count: String(group.parkedMessageCount),
  };
}

import type {
  ConsumerStrategyName,
  PersistentGroupDetail,
  PersistentGroupSettings,
  PersistentSubscriptionSettings,
} from '../../subscriptions/index.ts';
import { Errors } from '../errors.ts';
import { parseFilter, type WireFilterOptions } from '../streams/read-request.ts';

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

/** AllOptions of Create (with a filter) and Update (without). */
export interface WireAllStart {
  all_option?: 'position' | 'start' | 'end';
  position?: { commit_position?: string; prepare_position?: string };
  filter_option?: 'filter' | 'no_filter';
  filter?: WireFilterOptions;
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
      : // Absent on the wire is proto3's 0, DispatchToSingle (what the Node client sends for it).
        NAMED_STRATEGIES[String(s.named_consumer_strategy ?? 'DISPATCHTOSINGLE')];
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

/**
 * Settings of a group on `$all`: the start is a commit position (0 = the start, -1 = the end; Homeport's
 * positions have prepare = commit outside transactions) and Create may carry a filter.
 */
export function allSettingsFromWire(
  settings: WireSettings | undefined,
  all: WireAllStart | undefined,
  withFilter: boolean,
): Partial<PersistentGroupSettings> {
  const base = settingsFromWire(settings, { revision_option: 'start' });
  let startFrom = 0;
  if (all?.all_option === 'end') startFrom = -1;
  else if (all?.all_option === 'position') {
    startFrom = Number(all.position?.commit_position ?? '0');
    if (!Number.isSafeInteger(startFrom)) throw Errors.invalidArgument('start position is out of range');
  }
  const filter = withFilter && all?.filter_option === 'filter' && all.filter ? parseFilter(all.filter).filter : null;
  return { ...base, startFrom, ...(withFilter ? { filter } : {}) };
}

const positionText = (n: number) => `C:${n}/P:${n}`;

/** `SubscriptionInfo` as KurrentDB reports it: revisions for a stream group, `C:…/P:…` positions on `$all`. */
export function subscriptionInfoToWire(group: PersistentGroupDetail) {
  const s = group.settings;
  const toAll = group.streamId === '$all';
  const at = (n: number) => (n < 0 ? '' : toAll ? positionText(n) : String(n));
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
      observed_measurements: Object.entries(c.ackLatencyMs ?? {}).map(([key, value]) => ({
        key,
        value: String(value),
      })),
      available_slots: c.availableSlots,
      in_flight_messages: c.inFlightMessages,
      connection_name: c.connectionName ?? '',
    })),
    average_per_second: Math.round(group.averageItemsPerSecond),
    total_items: String(group.totalItemsProcessed),
    count_since_last_measurement: '0',
    last_checkpointed_event_position: at(group.lastCheckpointedEventNumber),
    last_known_event_position: at(group.lastKnownEventNumber),
    resolve_link_tos: s.resolveLinkTos,
    start_from: toAll ? positionText(s.startFrom) : String(s.startFrom),
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

import type { EventFilter } from '../../store/index.ts';
import { compileEventFilter } from '../filter.ts';
import {
  CONSUMER_STRATEGIES,
  type ConsumerStrategyName,
  type PersistentGroupSettings,
  type PersistentSubscriptionSettings,
} from '../types.ts';

/** What EventStoreDB's HTTP API and admin UI give a group created without settings; the UI's create form starts from these. */
export const DEFAULT_PERSISTENT_SETTINGS: Readonly<PersistentSubscriptionSettings> = Object.freeze({
  resolveLinkTos: false,
  startFrom: -1,
  messageTimeoutMs: 30_000,
  extraStatistics: false,
  liveBufferSize: 500,
  readBatchSize: 20,
  historyBufferSize: 500,
  maxRetryCount: 10,
  checkpointAfterMs: 2_000,
  minCheckpointCount: 10,
  maxCheckpointCount: 1_000,
  maxSubscriberCount: 0,
  consumerStrategy: 'RoundRobin',
});

/** The body of Create/UpdatePersistentSubscription as the wire carries it. */
export interface WirePersistentSettings {
  resolveLinkTos: boolean;
  startFrom: number;
  messageTimeoutMilliseconds: number;
  recordStatistics: boolean;
  liveBufferSize: number;
  readBatchSize: number;
  bufferSize: number;
  maxRetryCount: number;
  preferRoundRobin: boolean;
  checkpointAfterTime: number;
  checkpointMaxCount: number;
  checkpointMinCount: number;
  subscriberMaxCount: number;
  namedConsumerStrategy?: string | null;
}

export function isConsumerStrategy(name: string): name is ConsumerStrategyName {
  return (CONSUMER_STRATEGIES as readonly string[]).includes(name);
}

/**
 * Converts wire settings. An empty strategy name means `prefer_round_robin ? RoundRobin : DispatchToSingle`,
 * as EventStoreDB decides it. Returns an error text for an unknown strategy.
 */
export function settingsFromWire(wire: WirePersistentSettings): PersistentSubscriptionSettings | string {
  const named = wire.namedConsumerStrategy ?? '';
  const strategy = named === '' ? (wire.preferRoundRobin ? 'RoundRobin' : 'DispatchToSingle') : named;
  if (!isConsumerStrategy(strategy)) return `Consumer strategy ${strategy} does not exist.`;
  return {
    resolveLinkTos: wire.resolveLinkTos,
    startFrom: wire.startFrom,
    messageTimeoutMs: wire.messageTimeoutMilliseconds,
    extraStatistics: wire.recordStatistics,
    liveBufferSize: wire.liveBufferSize,
    readBatchSize: wire.readBatchSize,
    historyBufferSize: wire.bufferSize,
    maxRetryCount: wire.maxRetryCount,
    checkpointAfterMs: wire.checkpointAfterTime,
    minCheckpointCount: wire.checkpointMinCount,
    maxCheckpointCount: wire.checkpointMaxCount,
    maxSubscriberCount: wire.subscriberMaxCount,
    consumerStrategy: strategy,
  };
}

/** Fills gaps from the defaults and checks every field; returns the settings or an error text. */
export function normalizeSettings(partial: Partial<PersistentGroupSettings>): PersistentGroupSettings | string {
  const s: PersistentGroupSettings = { ...DEFAULT_PERSISTENT_SETTINGS, ...stripUndefined(partial) };
  if (typeof s.resolveLinkTos !== 'boolean') return 'resolveLinkTos must be a boolean';
  if (typeof s.extraStatistics !== 'boolean') return 'extraStatistics must be a boolean';
  if (!isConsumerStrategy(String(s.consumerStrategy)))
    return `Consumer strategy ${String(s.consumerStrategy)} does not exist.`;
  const integers: [keyof PersistentSubscriptionSettings, number][] = [
    ['startFrom', -1],
    ['messageTimeoutMs', 0],
    ['liveBufferSize', 1],
    ['readBatchSize', 1],
    ['historyBufferSize', 1],
    ['maxRetryCount', 0],
    ['checkpointAfterMs', 0],
    ['minCheckpointCount', 0],
    ['maxCheckpointCount', 1],
    ['maxSubscriberCount', 0],
  ];
  for (const [key, min] of integers) {
    const value = s[key];
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) return `${key} must be an integer`;
    if (value < min) return `${key} must be at least ${min}`;
  }
  if (s.filter) {
    try {
      compileEventFilter(s.filter);
    } catch (err) {
      return (err as Error).message;
    }
  } else delete s.filter;
  return s;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The stored form: the JSON shape EventStoreDB keeps in `$persistentSubscriptionConfig` entries. */
export interface StoredGroupEntry {
  stream: string;
  group: string;
  resolveLinkTos: boolean;
  startFrom: number;
  messageTimeout: number;
  extraStatistics: boolean;
  maxRetryCount: number;
  liveBufferSize: number;
  bufferSize: number;
  readBatchSize: number;
  checkPointAfter: number;
  minCheckPointCount: number;
  maxCheckPointCount: number;
  maxSubscriberCount: number;
  namedConsumerStrategy: string;
  /** Groups on `$all`: the filter (KurrentDB keeps one per `$all` group too). */
  filter?: EventFilter;
}

export function toStoredEntry(stream: string, group: string, s: PersistentGroupSettings): StoredGroupEntry {
  return {
    stream,
    group,
    resolveLinkTos: s.resolveLinkTos,
    startFrom: s.startFrom,
    messageTimeout: s.messageTimeoutMs,
    extraStatistics: s.extraStatistics,
    maxRetryCount: s.maxRetryCount,
    liveBufferSize: s.liveBufferSize,
    bufferSize: s.historyBufferSize,
    readBatchSize: s.readBatchSize,
    checkPointAfter: s.checkpointAfterMs,
    minCheckPointCount: s.minCheckpointCount,
    maxCheckPointCount: s.maxCheckpointCount,
    maxSubscriberCount: s.maxSubscriberCount,
    namedConsumerStrategy: s.consumerStrategy,
    ...(s.filter ? { filter: s.filter } : {}),
  };
}

export function fromStoredEntry(entry: StoredGroupEntry): PersistentGroupSettings | string {
  return normalizeSettings({
    resolveLinkTos: entry.resolveLinkTos,
    startFrom: entry.startFrom,
    messageTimeoutMs: entry.messageTimeout,
    extraStatistics: entry.extraStatistics,
    maxRetryCount: entry.maxRetryCount,
    liveBufferSize: entry.liveBufferSize,
    historyBufferSize: entry.bufferSize,
    readBatchSize: entry.readBatchSize,
    checkpointAfterMs: entry.checkPointAfter,
    minCheckpointCount: entry.minCheckPointCount,
    maxCheckpointCount: entry.maxCheckPointCount,
    maxSubscriberCount: entry.maxSubscriberCount,
    consumerStrategy: entry.namedConsumerStrategy as PersistentSubscriptionSettings['consumerStrategy'],
    filter: entry.filter ?? null,
  });
}

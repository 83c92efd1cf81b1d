import { describe, expect, it } from 'vitest';
import {
  fromStoredEntry,
  normalizeSettings,
  settingsFromWire,
  toStoredEntry,
  type WirePersistentSettings,
} from './settings.ts';

const wire: WirePersistentSettings = {
  resolveLinkTos: true,
  startFrom: 5,
  messageTimeoutMilliseconds: 10_000,
  recordStatistics: true,
  liveBufferSize: 100,
  readBatchSize: 10,
  bufferSize: 20,
  maxRetryCount: 3,
  preferRoundRobin: false,
  checkpointAfterTime: 1_000,
  checkpointMaxCount: 50,
  checkpointMinCount: 5,
  subscriberMaxCount: 2,
};

describe('persistent subscription settings', () => {
  it('maps every wire field; an empty strategy follows prefer_round_robin', () => {
    expect(settingsFromWire(wire)).toEqual({
      resolveLinkTos: true,
      startFrom: 5,
      messageTimeoutMs: 10_000,
      extraStatistics: true,
      liveBufferSize: 100,
      readBatchSize: 10,
      historyBufferSize: 20,
      maxRetryCount: 3,
      checkpointAfterMs: 1_000,
      minCheckpointCount: 5,
      maxCheckpointCount: 50,
      maxSubscriberCount: 2,
      consumerStrategy: 'DispatchToSingle',
    });
    expect(settingsFromWire({ ...wire, preferRoundRobin: true, namedConsumerStrategy: '' })).toMatchObject({
      consumerStrategy: 'RoundRobin',
    });
    expect(settingsFromWire({ ...wire, namedConsumerStrategy: 'PinnedByCorrelation' })).toMatchObject({
      consumerStrategy: 'PinnedByCorrelation',
    });
    expect(settingsFromWire({ ...wire, namedConsumerStrategy: 'Random' })).toBe(
      'Consumer strategy Random does not exist.',
    );
  });

  it('fills gaps with EventStoreDB’s own defaults for groups created without settings, and rejects nonsense', () => {
    // EventStoreDB's HTTP API and admin UI defaults (what a group made in its UI gets), written out, not copied from our constant.
    expect(normalizeSettings({})).toEqual({
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
    expect(normalizeSettings({ startFrom: -2 })).toMatch(/startFrom/);
    expect(normalizeSettings({ messageTimeoutMs: 1.5 })).toMatch(/messageTimeoutMs/);
    expect(normalizeSettings({ historyBufferSize: 0 })).toMatch(/historyBufferSize/);
    expect(normalizeSettings({ resolveLinkTos: 'yes' as never })).toMatch(/resolveLinkTos/);
  });

  it('takes the client’s own defaults as sent (node-eventstore-client, the port of the .NET ClientAPI)', async () => {
    const es = (await import('node-eventstore-client')).default;
    // The client's typings declare the settings opaque; its object carries the .NET-named fields.
    const c = es.PersistentSubscriptionSettings.create() as unknown as Record<string, never>;
    const fromClient = settingsFromWire({
      ...wire,
      resolveLinkTos: c.resolveLinkTos,
      startFrom: -1,
      messageTimeoutMilliseconds: c.messageTimeout,
      recordStatistics: c.extraStatistics,
      liveBufferSize: c.liveBufferSize,
      readBatchSize: c.readBatchSize,
      bufferSize: c.historyBufferSize,
      maxRetryCount: c.maxRetryCount,
      preferRoundRobin: false,
      checkpointAfterTime: c.checkPointAfter,
      checkpointMinCount: c.minCheckPointCount,
      checkpointMaxCount: c.maxCheckPointCount,
      subscriberMaxCount: c.maxSubscriberCount,
      namedConsumerStrategy: c.namedConsumerStrategy,
    });
    // The client's published defaults: 500 retries, batches of 10, a history buffer of 20.
    expect(fromClient).toMatchObject({
      maxRetryCount: 500,
      readBatchSize: 10,
      historyBufferSize: 20,
      liveBufferSize: 500,
      messageTimeoutMs: 30_000,
      consumerStrategy: 'RoundRobin',
    });
  });

  it('round-trips through the stored form', () => {
    const s = settingsFromWire(wire);
    if (typeof s === 'string') throw new Error(s);
    expect(fromStoredEntry(toStoredEntry('orders', 'billing', s))).toEqual(s);
  });
});

import { describe, expect, it } from 'vitest';
import { DEFAULT_PERSISTENT_SETTINGS, fromStoredEntry, normalizeSettings, settingsFromWire, toStoredEntry, type WirePersistentSettings } from './settings.ts';

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
    expect(settingsFromWire({ ...wire, preferRoundRobin: true, namedConsumerStrategy: '' })).toMatchObject({ consumerStrategy: 'RoundRobin' });
    expect(settingsFromWire({ ...wire, namedConsumerStrategy: 'PinnedByCorrelation' })).toMatchObject({ consumerStrategy: 'PinnedByCorrelation' });
    expect(settingsFromWire({ ...wire, namedConsumerStrategy: 'Random' })).toBe('Consumer strategy Random does not exist.');
  });

  it('fills gaps with the .NET client defaults and rejects nonsense', () => {
    expect(normalizeSettings({})).toEqual(DEFAULT_PERSISTENT_SETTINGS);
    expect(normalizeSettings({ startFrom: -2 })).toMatch(/startFrom/);
    expect(normalizeSettings({ messageTimeoutMs: 1.5 })).toMatch(/messageTimeoutMs/);
    expect(normalizeSettings({ historyBufferSize: 0 })).toMatch(/historyBufferSize/);
    expect(normalizeSettings({ resolveLinkTos: 'yes' as never })).toMatch(/resolveLinkTos/);
  });

  it('round-trips through the stored form', () => {
    const s = settingsFromWire(wire);
    if (typeof s === 'string') throw new Error(s);
    expect(fromStoredEntry(toStoredEntry('orders', 'billing', s))).toEqual(s);
  });
});

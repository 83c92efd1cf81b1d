import { MemoryKvStore, type KvKey, type KvStoreSetOptions } from '@fedify/fedify';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TOMBSTONE_LIMITS, InboundTombstones } from './inbound-tombstones.ts';

/** Fedify's in-memory store, recording what is written with which lifetime. */
class RecordingKv extends MemoryKvStore {
  readonly ttls: number[] = [];
  override async set(key: KvKey, value: unknown, options?: KvStoreSetOptions): Promise<void> {
    this.ttls.push(options?.ttl?.total({ unit: 'millisecond' }) ?? Number.POSITIVE_INFINITY);
    await super.set(key, value, options);
  }
}

describe('deletions remembered for posts not seen yet', () => {
  it('are kept 6 hours in the key-value store, as Mastodon keeps delete_upon_arrival', async () => {
    const kv = new RecordingKv();
    let now = 1_000_000;
    const tombstones = new InboundTombstones(kv, () => now);
    await tombstones.remember('7', 'https://b.test/users/bob/statuses/1');
    expect(kv.ttls).toEqual([6 * 60 * 60 * 1000]);
    expect(await tombstones.deletedFirst('7', 'https://b.test/users/bob/statuses/1')).toBe(true);
    // Only its author's deletion counts.
    expect(await tombstones.deletedFirst('8', 'https://b.test/users/bob/statuses/1')).toBe(false);
    // A restart keeps it: a new process reads the store.
    expect(await new InboundTombstones(kv, () => now).deletedFirst('7', 'https://b.test/users/bob/statuses/1')).toBe(
      true,
    );
    now += DEFAULT_TOMBSTONE_LIMITS.ttlMs;
    expect(await tombstones.deletedFirst('7', 'https://b.test/users/bob/statuses/1')).toBe(false);
  });

  it('are bounded in count: past the bound the oldest is forgotten, in the store too', async () => {
    const kv = new RecordingKv();
    const tombstones = new InboundTombstones(kv, () => 0, { max: 3 });
    const uri = (n: number) => `https://b.test/users/bob/statuses/${n}`;
    for (let n = 1; n <= 5; n++) await tombstones.remember('7', uri(n));
    const kept = [];
    for (let n = 1; n <= 5; n++) kept.push(await tombstones.deletedFirst('7', uri(n)));
    expect(kept).toEqual([false, false, true, true, true]);
    let stored = 0;
    for await (const _ of kv.list(['homeport'])) stored++;
    expect(stored).toBe(3);
  });
});

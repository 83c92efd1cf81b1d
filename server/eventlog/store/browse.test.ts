import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN, events, manualClock, openTestStore, type TestStore } from './testing/store.ts';
import { ExpectedVersion } from './types.ts';

const { Any } = ExpectedVersion;
let t: TestStore;
const clock = manualClock();

beforeEach(async () => {
  t = openTestStore({ clock: clock.now });
  for (const [stream, n] of [
    ['order-1', 2],
    ['order-2', 1],
    ['customer-9', 3],
    ['order-10', 1],
    ['plain', 1],
  ] as const) {
    clock.advance(1000);
    await t.store.appendToStream(stream, Any, events(n), null);
  }
  clock.advance(1000);
  await t.store.appendToStream('$stats-1', Any, events(1), ADMIN);
  clock.advance(1000);
  await t.store.appendToStream('order-1', Any, events(1), null);
});
afterEach(async () => {
  await t.close();
});

const ids = (rows: { streamId: string }[]) => rows.map((r) => r.streamId);

describe('stream browsing', () => {
  it('lists streams by name, recently created or recently changed, with counts', () => {
    expect(ids(t.store.listStreams({ orderBy: 'name', limit: 10, includeSystem: false }))).toEqual([
      'customer-9',
      'order-1',
      'order-10',
      'order-2',
      'plain',
    ]);
    expect(ids(t.store.listStreams({ orderBy: 'created', limit: 2, includeSystem: false }))).toEqual([
      'plain',
      'order-10',
    ]);
    expect(ids(t.store.listStreams({ orderBy: 'updated', limit: 2, includeSystem: true }))).toEqual([
      'order-1',
      '$stats-1',
    ]);
    const [order1] = t.store.listStreams({ orderBy: 'updated', limit: 1, includeSystem: false });
    expect(order1).toEqual({
      streamId: 'order-1',
      lastEventNumber: 2,
      eventCount: 3,
      createdAt: order1.createdAt,
      updatedAt: order1.createdAt + 6000,
      deleted: 'no',
    });
  });

  it('filters by prefix, exact name or wildcard pattern', () => {
    expect(ids(t.store.listStreams({ prefix: 'order-1', orderBy: 'name', limit: 10, includeSystem: false }))).toEqual([
      'order-1',
      'order-10',
    ]);
    expect(ids(t.store.listStreams({ pattern: 'order-1', orderBy: 'name', limit: 10, includeSystem: false }))).toEqual([
      'order-1',
    ]);
    expect(ids(t.store.listStreams({ pattern: '*-1*', orderBy: 'name', limit: 10, includeSystem: true }))).toEqual([
      '$stats-1',
      'order-1',
      'order-10',
    ]);
    expect(ids(t.store.listStreams({ pattern: 'order-?', orderBy: 'name', limit: 10, includeSystem: false }))).toEqual([
      'order-1',
      'order-2',
    ]);
    expect(t.store.listStreams({ prefix: 'zzz', orderBy: 'name', limit: 10, includeSystem: false })).toEqual([]);
  });

  it('counts streams per category (the part before the first "-"), user streams only', () => {
    expect(t.store.streamCategories(10)).toEqual([
      { category: 'order', streams: 3 },
      { category: 'customer', streams: 1 },
    ]);
    expect(t.store.streamCategories(1)).toEqual([{ category: 'order', streams: 3 }]);
  });

  it('uses indexes for the listings (the plans of the store’s own queries)', () => {
    const plan = (options: Partial<Parameters<typeof t.store.explainListStreams>[0]>) =>
      t.store.explainListStreams({ orderBy: 'name', limit: 10, includeSystem: false, ...options });
    expect(plan({ orderBy: 'created' })).toMatch(/streams_by_created/);
    expect(plan({ orderBy: 'updated' })).toMatch(/streams_by_updated/);
    expect(plan({ prefix: 'order-' })).toMatch(/USING (COVERING )?INDEX|PRIMARY KEY/);
    expect(plan({ prefix: 'order-' })).not.toMatch(/USE TEMP B-TREE/);
  });
});

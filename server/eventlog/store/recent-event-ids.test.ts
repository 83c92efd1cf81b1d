import crypto from 'node:crypto';
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { eventIdKey, RecentEventIds } from './recent-event-ids.ts';

const ids = (count: number) => {
  const bytes = crypto.randomBytes(count * 16);
  return (i: number) => eventIdKey(bytes.subarray(i * 16, i * 16 + 16));
};

describe('RecentEventIds (the idempotency window)', () => {
  it('finds the first occurrence of each of its newest ids and forgets the older ones', () => {
    const capacity = 1000;
    const window = new RecentEventIds(capacity);
    const key = ids(30_000);
    // The model: first occurrences in the order they entered, the newest `capacity` of them remembered (an id
    // written again after it fell out enters again).
    const firsts = new Map<string, { streamKey: number; eventNumber: number }>();
    const order: string[] = [];
    const entered: number[] = [];
    let fresh = 0;
    for (let step = 0; step < 30_000; step++) {
      // One write in four repeats an id seen lately (in the window or just fallen out of it).
      const repeat = step % 4 === 3 && order.length > 0;
      const k = repeat ? order[Math.max(0, order.length - 1 - ((step * 7919) % (capacity + 200)))] : key(fresh++);
      window.add(k, step % 13, step);
      if (!firsts.has(k)) {
        firsts.set(k, { streamKey: step % 13, eventNumber: step });
        order.push(k);
        entered.push(step);
        const out = order.length - 1 - capacity;
        if (out >= 0 && firsts.get(order[out])?.eventNumber === entered[out]) firsts.delete(order[out]);
      }
      if (step % 97 === 0) {
        for (let back = 0; back < Math.min(order.length, capacity + 50); back += 17) {
          const k2 = order[order.length - 1 - back];
          expect(window.get(k2)).toEqual(firsts.get(k2));
        }
      }
    }
    expect(window.size).toBe(capacity);
    for (const k of order.slice(-capacity)) expect(window.get(k)).toEqual(firsts.get(k));
    const forgotten = order.slice(0, -capacity).filter((k) => !firsts.has(k));
    expect(forgotten.length).toBeGreaterThan(15_000);
    for (const k of forgotten) expect(window.get(k)).toBeUndefined();
  });

  it('takes all of its memory when made: filling it past its capacity grows neither heap nor buffers', () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const used = () => {
      gc();
      const m = process.memoryUsage();
      return m.heapUsed + m.arrayBuffers;
    };
    const capacity = 200_000;
    const key = ids(capacity + 50_000);
    const before = used();
    const window = new RecentEventIds(capacity);
    const made = used();
    for (let i = 0; i < capacity + 50_000; i++) window.add(key(i), i % 50, i);
    const filled = used();
    expect(window.size).toBe(capacity);
    expect(window.get(key(capacity + 49_999))).toEqual({ streamKey: 49_999 % 50, eventNumber: capacity + 49_999 });
    expect(window.get(key(0))).toBeUndefined();
    // 32 bytes of ring and 4 to 8 of index per id (the README's figure: 8.5 MB for 200,000).
    expect(made - before).toBeLessThan(capacity * 45);
    expect(window.bytes).toBeLessThan(capacity * 45);
    // The Map of strings it replaces grew about 210 bytes per id (42 MB here).
    expect(filled - made).toBeLessThan(2 * 1024 * 1024);
  });
});

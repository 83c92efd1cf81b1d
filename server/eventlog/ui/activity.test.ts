import { describe, expect, it } from 'vitest';
import { ACTIVITY_SAMPLES, ActivityHistory, type ActivityReading } from './activity.ts';

const reading = (at: number, over: Partial<ActivityReading> = {}): ActivityReading => ({
  at,
  written: 0,
  volatile: [],
  groups: [],
  ...over,
});

describe('ActivityHistory', () => {
  it('gives rates per second between readings', () => {
    const h = new ActivityHistory();
    expect(h.record(reading(1000, { written: 10 }))).toBeNull();
    const s = h.record(reading(3000, { written: 30, volatile: [{ id: 'a', delivered: 0, subscribedAt: 0 }] }))!;
    expect(s.writtenPerSecond).toBe(10);
    expect(s.deliveredPerSecond).toBe(0);
  });

  it('keeps deliveries true when a subscription ends (no false 0/s)', () => {
    const h = new ActivityHistory();
    const a = { id: 'a', subscribedAt: 0 };
    const b = { id: 'b', subscribedAt: 0 };
    h.record(
      reading(1000, {
        volatile: [
          { ...a, delivered: 100 },
          { ...b, delivered: 500 },
        ],
      }),
    );
    // b ended; a delivered 20 more: 20/s, not (120 - 600) clamped to 0.
    expect(h.record(reading(2000, { volatile: [{ ...a, delivered: 120 }] }))!.deliveredPerSecond).toBe(20);
    // A subscription begun within the second counts what it delivered; one seen late for the first time does not.
    const s = h.record(
      reading(3000, {
        volatile: [
          { ...a, delivered: 130 },
          { id: 'c', subscribedAt: 2500, delivered: 5 },
          { id: 'd', subscribedAt: 10, delivered: 999 },
        ],
      }),
    )!;
    expect(s.deliveredPerSecond).toBe(15);
  });

  it('counts the deliveries of a subscription that began and ended between two readings (engine total)', () => {
    const h = new ActivityHistory();
    h.record(reading(1000, { volatileDelivered: 7 }));
    // Nothing is subscribed at either reading, yet 40 events were delivered in between.
    expect(h.record(reading(2000, { volatileDelivered: 47 }))!.deliveredPerSecond).toBe(40);
  });

  it('counts persistent group deliveries and lag, a re-made group from zero', () => {
    const h = new ActivityHistory();
    const g = { stream: 'orders', group: 'billing', lastKnownEventNumber: 99, lastProcessedEventNumber: 49 };
    h.record(reading(1000, { groups: [{ ...g, totalItemsDelivered: 50 }] }));
    const s = h.record(reading(2000, { groups: [{ ...g, totalItemsDelivered: 70 }] }))!;
    expect(s.deliveredPerSecond).toBe(20);
    expect(s.lag).toEqual({ 'orders/billing': 50 });
    expect(h.record(reading(3000, { groups: [{ ...g, totalItemsDelivered: 3 }] }))!.deliveredPerSecond).toBe(3);
  });

  it('keeps the last hour only and answers what came after a time', () => {
    const h = new ActivityHistory();
    for (let i = 0; i <= ACTIVITY_SAMPLES + 10; i++) h.record(reading(i * 1000, { written: i }));
    const all = h.since();
    expect(all).toHaveLength(ACTIVITY_SAMPLES);
    expect(all[0].at).toBe(11_000);
    expect(h.since((ACTIVITY_SAMPLES + 8) * 1000).map((s) => s.at)).toEqual([
      (ACTIVITY_SAMPLES + 9) * 1000,
      (ACTIVITY_SAMPLES + 10) * 1000,
    ]);
  });
});

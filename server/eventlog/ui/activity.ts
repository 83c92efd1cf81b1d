import type { UiGroupSummary, UiVolatileSubscription } from './eventlog-context.ts';

/*
 * The activity the charts plot, kept on the server so a chart is full the moment a page opens: one sample
 * a second for the last hour of events written and delivered per second and each persistent group's lag.
 * Deliveries are counted per subscription from one sample to the next, so a subscription that ends takes
 * nothing away (summing the live subscriptions' totals dropped to a false 0/s when one ended).
 */

export interface ActivitySample {
  /** End of the second the sample covers (ms since the epoch). */
  at: number;
  writtenPerSecond: number;
  deliveredPerSecond: number;
  /** Events behind, by "stream/group" (at most MAX_LAG_GROUPS groups, in name order). */
  lag: Record<string, number>;
}

export const ACTIVITY_INTERVAL_MS = 1000;
/** One hour of samples at one a second. */
export const ACTIVITY_SAMPLES = 3600;
/** Groups whose lag is kept per sample: bounds a sample's size however many groups there are. */
export const MAX_LAG_GROUPS = 32;

export interface ActivityReading {
  at: number;
  /** Events written since the server started (system streams left out). */
  written: number;
  volatile: Pick<UiVolatileSubscription, 'id' | 'delivered' | 'subscribedAt'>[];
  /**
   * Events delivered to volatile subscriptions since start, ended ones included: when given, the deliveries
   * between readings are its difference, so a subscription that begins and ends between two readings counts too.
   */
  volatileDelivered?: number;
  groups: Pick<
    UiGroupSummary,
    'stream' | 'group' | 'totalItemsDelivered' | 'lastKnownEventNumber' | 'lastProcessedEventNumber'
  >[];
}

export class ActivityHistory {
  readonly #samples: ActivitySample[] = [];
  #previous: {
    at: number;
    written: number;
    volatile: Map<string, number>;
    volatileDelivered?: number;
    groups: Map<string, number>;
  } | null = null;

  /** Takes a reading of the counters; from the second one on, adds a sample of the rates between the two. */
  record(reading: ActivityReading): ActivitySample | null {
    const volatile = new Map(reading.volatile.map((v) => [v.id, v.delivered]));
    const groups = new Map(reading.groups.map((g) => [`${g.stream}/${g.group}`, g.totalItemsDelivered]));
    const previous = this.#previous;
    this.#previous = {
      at: reading.at,
      written: reading.written,
      volatile,
      volatileDelivered: reading.volatileDelivered,
      groups,
    };
    if (!previous || reading.at <= previous.at) return null;
    let delivered = 0;
    if (reading.volatileDelivered !== undefined && previous.volatileDelivered !== undefined)
      delivered += Math.max(0, reading.volatileDelivered - previous.volatileDelivered);
    else
      for (const v of reading.volatile) {
        const before = previous.volatile.get(v.id);
        // A subscription new since the last reading counts what it delivered if it began in between.
        if (before !== undefined) delivered += Math.max(0, v.delivered - before);
        else if (v.subscribedAt > previous.at) delivered += v.delivered;
      }
    for (const [key, total] of groups) {
      const before = previous.groups.get(key);
      // A group made (or re-made) in between starts from zero.
      delivered += before === undefined || total < before ? total : total - before;
    }
    const seconds = (reading.at - previous.at) / 1000;
    const lag: Record<string, number> = {};
    for (const g of [...reading.groups]
      .sort((a, b) => a.stream.localeCompare(b.stream) || a.group.localeCompare(b.group))
      .slice(0, MAX_LAG_GROUPS)) {
      lag[`${g.stream}/${g.group}`] =
        g.lastKnownEventNumber === null ? 0 : Math.max(0, g.lastKnownEventNumber - (g.lastProcessedEventNumber ?? -1));
    }
    const sample: ActivitySample = {
      at: reading.at,
      writtenPerSecond: Math.max(0, reading.written - previous.written) / seconds,
      deliveredPerSecond: delivered / seconds,
      lag,
    };
    this.#samples.push(sample);
    if (this.#samples.length > ACTIVITY_SAMPLES) this.#samples.splice(0, this.#samples.length - ACTIVITY_SAMPLES);
    return sample;
  }

  /** The samples after `since` (all of the last hour when omitted), oldest first. */
  since(since = 0): ActivitySample[] {
    const samples = this.#samples;
    let lo = 0;
    let hi = samples.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (samples[mid].at <= since) lo = mid + 1;
      else hi = mid;
    }
    return samples.slice(lo);
  }
}

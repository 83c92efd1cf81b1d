/**
 * A group's consumers, the strategy choosing among them, and the messages they hold: in flight until acked,
 * nak'ed or timed out.
 */
import { randomUUID } from 'node:crypto';
import type { ConsumerStrategyName, PersistentConnectionInfo, PersistentSink, SubscriberInfo } from '../types.ts';
import type { Message, PinKeying } from './messages.ts';
import { type ConsumerStrategy, createStrategy, type StrategyClient } from './strategies.ts';

export interface Outstanding {
  message: Message;
  consumer: Consumer;
  sentAt: number;
  seq: number;
  /** Next outstanding message with the same event id (ids are not unique in a stream). */
  sameId: Outstanding | undefined;
}

/** Acks whose latency a consumer keeps for extra statistics (the most recent ones). */
const LATENCY_SAMPLES = 1_024;
const PERCENTILES: [string, number][] = [
  ['90%', 0.9],
  ['95%', 0.95],
  ['99%', 0.99],
  ['99.5%', 0.995],
  ['99.9%', 0.999],
];

export class Consumer implements StrategyClient {
  readonly id = randomUUID();
  readonly subscriber: SubscriberInfo;
  readonly sink: PersistentSink;
  readonly maxInFlight: number;
  readonly connectedAt: number;
  readonly inFlight = new Set<Outstanding>();
  delivered = 0;
  acked = 0;
  rate = 0;
  private deliveredAtLastTick = 0;
  /** Ring of recent ack latencies (ms), kept only with extra statistics. */
  private readonly latencies: number[] | null;
  private latencyCount = 0;

  constructor(
    subscriber: SubscriberInfo,
    sink: PersistentSink,
    maxInFlight: number,
    now: number,
    extraStatistics = false,
  ) {
    this.subscriber = subscriber;
    this.sink = sink;
    this.maxInFlight = maxInFlight;
    this.connectedAt = now;
    this.latencies = extraStatistics ? [] : null;
  }

  acknowledged(o: Outstanding, now: number): void {
    this.acked++;
    if (!this.latencies) return;
    this.latencies[this.latencyCount++ % LATENCY_SAMPLES] = Math.max(0, now - o.sentAt);
  }

  private latencyStatistics(): Record<string, number> | undefined {
    if (!this.latencies) return undefined;
    const sorted = [...this.latencies].sort((a, b) => a - b);
    const at = (q: number) =>
      sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
    const mean = sorted.length === 0 ? 0 : sorted.reduce((sum, n) => sum + n, 0) / sorted.length;
    const stats: Record<string, number> = { Mean: Math.round(mean), Median: at(0.5), Fastest: sorted[0] ?? 0 };
    for (let q = 1; q <= 5; q++) stats[`Quintile ${q}`] = at(q / 5);
    for (const [name, q] of PERCENTILES) stats[name] = at(q);
    stats.Highest = sorted[sorted.length - 1] ?? 0;
    return stats;
  }

  hasCapacity(): boolean {
    return this.inFlight.size < this.maxInFlight;
  }

  tickStats(seconds: number): void {
    this.rate = seconds > 0 ? (this.delivered - this.deliveredAtLastTick) / seconds : 0;
    this.deliveredAtLastTick = this.delivered;
  }

  info(): PersistentConnectionInfo {
    return {
      id: this.id,
      connectionId: this.subscriber.connectionId,
      connectionName: this.subscriber.connectionName,
      remoteAddress: this.subscriber.remoteAddress,
      user: this.subscriber.caller?.name ?? null,
      connectedAt: this.connectedAt,
      allowedInFlightMessages: this.maxInFlight,
      inFlightMessages: this.inFlight.size,
      availableSlots: this.maxInFlight - this.inFlight.size,
      itemsDelivered: this.delivered,
      itemsAcked: this.acked,
      averageItemsPerSecond: Math.round(this.rate * 100) / 100,
      ...(this.latencies ? { ackLatencyMs: this.latencyStatistics() } : {}),
    };
  }
}

/**
 * The group's connected consumers, the strategy that picks one for each message, and the messages they can
 * take now in all (each one's window less what it holds).
 */
export class ConsumerRoster {
  private readonly byId = new Map<string, Consumer>();
  private readonly strategy: ConsumerStrategy<Consumer>;
  /** What the strategy picks by: nothing, or each message's stream or correlation id (the pinned ones). */
  readonly keying: PinKeying;
  /** Messages the consumers can take now in all. */
  freeSlots = 0;

  constructor(strategy: ConsumerStrategyName) {
    this.strategy = createStrategy<Consumer>(strategy);
    this.keying = !this.strategy.keyed
      ? 'none'
      : this.strategy.name === 'PinnedByCorrelation'
        ? 'correlation'
        : 'stream';
  }

  get size(): number {
    return this.byId.size;
  }

  /** True when a message waiting for its consumer must not hold back messages for the others. */
  get keyed(): boolean {
    return this.strategy.keyed;
  }

  get(id: string): Consumer | undefined {
    return this.byId.get(id);
  }

  values(): IterableIterator<Consumer> {
    return this.byId.values();
  }

  add(consumer: Consumer): void {
    this.byId.set(consumer.id, consumer);
    this.strategy.add(consumer);
    this.freeSlots += consumer.maxInFlight;
  }

  /** Takes `consumer` out (what it holds is the caller's to send again); its free slots go with it. */
  remove(consumer: Consumer): void {
    this.byId.delete(consumer.id);
    this.strategy.remove(consumer);
    this.freeSlots -= consumer.maxInFlight - consumer.inFlight.size;
  }

  /** Takes every consumer out (the group stopping) and returns them. */
  removeAll(): Consumer[] {
    const all = [...this.byId.values()];
    for (const consumer of all) this.remove(consumer);
    this.freeSlots = 0;
    return all;
  }

  /** The consumer for a message with this key, or null when it has to wait. */
  pick(key: string): Consumer | null {
    return this.strategy.pick(key);
  }

  /** A message `consumer` held is done with: its slot is free again while it is still connected. */
  released(consumer: Consumer): void {
    if (this.byId.has(consumer.id)) this.freeSlots++;
  }
}

/** Every message sent and not yet finished, in send order and by event id. */
export class InFlightMessages {
  private readonly bySeq = new Map<number, Outstanding>();
  private readonly byId = new Map<string, Outstanding>();
  private seq = 0;

  get size(): number {
    return this.bySeq.size;
  }

  /** Oldest first: a timeout scan can stop at the first message not yet due. */
  inSendOrder(): IterableIterator<Outstanding> {
    return this.bySeq.values();
  }

  add(message: Message, consumer: Consumer, now: number): Outstanding {
    const o: Outstanding = { message, consumer, sentAt: now, seq: ++this.seq, sameId: undefined };
    this.bySeq.set(o.seq, o);
    const first = this.byId.get(message.id);
    if (first) {
      let last = first;
      while (last.sameId) last = last.sameId;
      last.sameId = o;
    } else this.byId.set(message.id, o);
    consumer.inFlight.add(o);
    return o;
  }

  /** The outstanding message with this id, preferring the given consumer's. */
  find(id: string, consumer: Consumer | undefined): Outstanding | undefined {
    let o = this.byId.get(id);
    if (!o) return undefined;
    if (consumer && o.consumer !== consumer) {
      for (let c: Outstanding | undefined = o; c; c = c.sameId) {
        if (c.consumer === consumer) {
          o = c;
          break;
        }
      }
    }
    return o;
  }

  /** Forgets a message; true when it still held a slot of its consumer's window. */
  forget(o: Outstanding): boolean {
    this.bySeq.delete(o.seq);
    const first = this.byId.get(o.message.id);
    if (first === o) {
      if (o.sameId) this.byId.set(o.message.id, o.sameId);
      else this.byId.delete(o.message.id);
    } else {
      for (let c = first; c; c = c.sameId) {
        if (c.sameId === o) {
          c.sameId = o.sameId;
          break;
        }
      }
    }
    o.sameId = undefined;
    return o.consumer.inFlight.delete(o);
  }
}

import type { ConsumerStrategyName } from '../types.ts';

/** What a strategy needs to know about a connected consumer. */
export interface StrategyClient {
  readonly id: string;
  hasCapacity(): boolean;
}

/** Picks the consumer for the next message; null when the message has to wait. */
export interface ConsumerStrategy<C extends StrategyClient> {
  readonly name: ConsumerStrategyName;
  /** True when `pick` depends on the message's key (so a blocked message must not block later ones). */
  readonly keyed: boolean;
  add(client: C): void;
  remove(client: C): void;
  pick(key: string): C | null;
}

/** Rotate through consumers, skipping any whose in-flight window is full. */
class RoundRobin<C extends StrategyClient> implements ConsumerStrategy<C> {
  readonly name = 'RoundRobin' as const;
  readonly keyed = false;
  private clients: C[] = [];
  private cursor = 0;

  add(client: C): void {
    this.clients.push(client);
  }
  remove(client: C): void {
    const i = this.clients.indexOf(client);
    if (i < 0) return;
    this.clients.splice(i, 1);
    if (this.cursor > i) this.cursor--;
    if (this.cursor >= this.clients.length) this.cursor = 0;
  }
  pick(): C | null {
    const n = this.clients.length;
    for (let tried = 0; tried < n; tried++) {
      const client = this.clients[this.cursor];
      this.cursor = (this.cursor + 1) % n;
      if (client.hasCapacity()) return client;
    }
    return null;
  }
}

/** Fill the first consumer's window, then the next one's. */
class DispatchToSingle<C extends StrategyClient> implements ConsumerStrategy<C> {
  readonly name = 'DispatchToSingle' as const;
  readonly keyed = false;
  private clients: C[] = [];

  add(client: C): void {
    this.clients.push(client);
  }
  remove(client: C): void {
    const i = this.clients.indexOf(client);
    if (i >= 0) this.clients.splice(i, 1);
  }
  pick(): C | null {
    for (const client of this.clients) if (client.hasCapacity()) return client;
    return null;
  }
}

export const PINNED_BUCKET_COUNT = 1024;

/** FNV-1a over UTF-16 code units: stable across restarts, cheap, and spreads stream names well. */
export function bucketOf(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % PINNED_BUCKET_COUNT;
}

/** Every key hashes to one of 1024 buckets; each bucket belongs to one consumer, rebalanced on (dis)connect. */
class Pinned<C extends StrategyClient> implements ConsumerStrategy<C> {
  readonly name: 'Pinned' | 'PinnedByCorrelation';
  readonly keyed = true;
  private clients: C[] = [];
  private owners: (C | undefined)[] = new Array(PINNED_BUCKET_COUNT);

  constructor(name: 'Pinned' | 'PinnedByCorrelation') {
    this.name = name;
  }

  add(client: C): void {
    this.clients.push(client);
    this.rebalance();
  }
  remove(client: C): void {
    const i = this.clients.indexOf(client);
    if (i < 0) return;
    this.clients.splice(i, 1);
    this.rebalance();
  }
  pick(key: string): C | null {
    const owner = this.owners[bucketOf(key)];
    return owner?.hasCapacity() ? owner : null;
  }

  private rebalance(): void {
    const n = this.clients.length;
    for (let b = 0; b < PINNED_BUCKET_COUNT; b++) this.owners[b] = n === 0 ? undefined : this.clients[b % n];
  }
}

export function createStrategy<C extends StrategyClient>(name: ConsumerStrategyName): ConsumerStrategy<C> {
  switch (name) {
    case 'RoundRobin':
      return new RoundRobin<C>();
    case 'DispatchToSingle':
      return new DispatchToSingle<C>();
    case 'Pinned':
    case 'PinnedByCorrelation':
      return new Pinned<C>(name);
  }
}

/**
 * The subscriptions TCP clients hold open, per connection and in total, with both bounds: a client can
 * open subscriptions with one small package each, and each one holds memory until its connection ends.
 */
import type { Logger } from '../../logger.ts';
import type { Caller } from '../store/index.ts';
import type { PeerConnection } from '../tcp/index.ts';
import type { PersistentConsumerHandle, SubscriberInfo, VolatileSubscriptionHandle } from './types.ts';

export interface SubscriptionTcpOptions {
  /** Subscriptions one connection may hold open (volatile and persistent together). */
  maxPerConnection?: number;
  /** Subscriptions all connections together may hold open. */
  maxTotal?: number;
}

/** Subscriptions one connection may hold open (volatile and persistent together). */
export const DEFAULT_MAX_SUBSCRIPTIONS_PER_CONNECTION = 1000;
/** Subscriptions all connections together may hold open (about 1.5 KB each, sockets apart). */
export const DEFAULT_MAX_SUBSCRIPTIONS = 10_000;

export type OpenSubscription =
  | { kind: 'volatile'; handle: VolatileSubscriptionHandle }
  | { kind: 'persistent'; handle: PersistentConsumerHandle };

/** Who holds a subscription, as the engines and the UI see it; read from the connection when asked. */
export class Subscriber implements SubscriberInfo {
  readonly caller: Caller;
  private readonly connection: PeerConnection;

  constructor(connection: PeerConnection, caller: Caller) {
    this.connection = connection;
    this.caller = caller;
  }

  get connectionId(): string {
    return this.connection.id;
  }

  // The client may name itself (IdentifyClient) only after it subscribed.
  get connectionName(): string | null {
    return this.connection.name;
  }

  get remoteAddress(): string {
    return `${this.connection.remoteAddress}:${this.connection.remotePort}`;
  }
}

/** One connection's subscriptions by the hex of the correlation id that opened each. */
class ConnectionSubscriptions {
  readonly byCorrelation = new Map<string, OpenSubscription>();
}

export class OpenSubscriptions {
  private readonly perConnection = new Map<string, ConnectionSubscriptions>();
  private readonly maxPerConnection: number;
  private readonly maxTotal: number;
  private total = 0;
  /** Set while the server-wide limit is reached and already logged; cleared once below it again. */
  private warnedFull = false;
  private readonly warnedConnections = new Set<string>();

  constructor(options: SubscriptionTcpOptions = {}) {
    this.maxPerConnection = options.maxPerConnection ?? DEFAULT_MAX_SUBSCRIPTIONS_PER_CONNECTION;
    this.maxTotal = options.maxTotal ?? DEFAULT_MAX_SUBSCRIPTIONS;
  }

  /** Subscriptions open over every connection. */
  get count(): number {
    return this.total;
  }

  get(connection: PeerConnection, key: string): OpenSubscription | undefined {
    return this.perConnection.get(connection.id)?.byCorrelation.get(key);
  }

  /**
   * Whether one more subscription may open on this connection under `key` (a key in use is replaced, so
   * it takes no new place). Logs the first refusal per connection, and once while the server is full.
   */
  admits(connection: PeerConnection, key: string, logger: Logger): boolean {
    const own = this.perConnection.get(connection.id);
    if (own?.byCorrelation.has(key)) return true;
    if ((own?.byCorrelation.size ?? 0) >= this.maxPerConnection) {
      if (!this.warnedConnections.has(connection.id)) {
        this.warnedConnections.add(connection.id);
        logger.warn(
          { connection: connection.id, limit: this.maxPerConnection },
          'connection reached its subscription limit; further subscriptions are dropped',
        );
      }
      return false;
    }
    if (this.total >= this.maxTotal) {
      if (!this.warnedFull) {
        this.warnedFull = true;
        logger.warn(
          { limit: this.maxTotal, connection: connection.id, remote: connection.remoteAddress },
          'the server holds as many subscriptions as it allows; new ones are dropped until some end',
        );
      }
      return false;
    }
    return true;
  }

  /** Records an opened subscription (close and remove one under the same key first). */
  add(connection: PeerConnection, key: string, open: OpenSubscription): void {
    let own = this.perConnection.get(connection.id);
    if (!own) {
      own = new ConnectionSubscriptions();
      this.perConnection.set(connection.id, own);
      const state = own;
      connection.onClose(() => {
        this.perConnection.delete(connection.id);
        this.warnedConnections.delete(connection.id);
        this.total -= state.byCorrelation.size;
        this.noteBelowLimit();
        for (const held of state.byCorrelation.values()) held.handle.close();
        state.byCorrelation.clear();
      });
    }
    if (!own.byCorrelation.has(key)) this.total++;
    own.byCorrelation.set(key, open);
  }

  /** Forgets the subscription under `key` if it is still `handle` (a replaced one may report late). */
  remove(connection: PeerConnection, key: string, handle?: OpenSubscription['handle']): void {
    const own = this.perConnection.get(connection.id);
    const held = own?.byCorrelation.get(key);
    if (!own || !held || (handle && held.handle !== handle)) return;
    own.byCorrelation.delete(key);
    this.total--;
    this.noteBelowLimit();
  }

  private noteBelowLimit(): void {
    if (this.total < this.maxTotal) this.warnedFull = false;
  }
}

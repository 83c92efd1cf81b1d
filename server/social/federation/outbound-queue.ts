import type dns from 'node:dns';
import { promisify } from 'node:util';
import type { KvStore, MessageQueue, MessageQueueListenOptions } from '@fedify/fedify';
import { privateLiteralRefusal, publicOnlyLookup } from '../../security/index.ts';
import { DelegatingQueue } from './delegating-queue.ts';
import { DeliveryWorker } from './delivery-worker.ts';

/** The part of Fedify's queued outbox message a delivery needs (Fedify's OutboxMessage, version 2). */
interface OutboxMessage {
  type: 'outbox';
  keys: { keyId: string; privateKey: JsonWebKey }[];
  activity: unknown;
  inbox: string;
  headers?: Record<string, string>;
  circuitHeld?: boolean;
}

/** The signature the worker makes (Fedify's first knock, see setup.ts). */
const CAVAGE = 'draft-cavage-http-signatures-12';
/** Fedify's key-value prefixes (FederationKvPrefixes' defaults) for a host's signature spec and circuit state. */
const SPEC_PREFIX = ['_fedify', 'httpMessageSignaturesSpec'] as const;
const CIRCUIT_PREFIX = ['_fedify', 'circuit'] as const;

const lookupPublic = promisify(publicOnlyLookup) as unknown as (
  hostname: string,
  options: dns.LookupAllOptions,
) => Promise<dns.LookupAddress[]>;

function isOutboxMessage(message: unknown): message is OutboxMessage {
  const m = message as Partial<OutboxMessage> | null;
  return m?.type === 'outbox' && typeof m.inbox === 'string' && Array.isArray(m.keys);
}

/**
 * Fedify's queue with its outbox messages (one per inbox) sent by the delivery worker. The common case — an
 * RSA key, a host with no circuit-breaker state that takes draft-cavage signatures (or is new), a 2xx
 * answer — costs the main thread the queue's bookkeeping, one JSON serialization and a message to the worker.
 * Everything else goes to Fedify's own handler, as before: a held message, a host whose circuit is not
 * closed, one Fedify found wants RFC 9421, and every delivery the worker could not make (no 2xx, refused
 * address, deadline), which Fedify then sends itself with its double knock (the other signature spec),
 * retries with back-off, 410 handling and failure accounting. So a peer that fails gets that delivery attempt
 * twice: once from the worker, once from Fedify's handler.
 */
export class OutboundQueue extends DelegatingQueue {
  private readonly kv: KvStore;
  private readonly worker: DeliveryWorker;
  private readonly anyAddress: boolean;

  constructor(inner: MessageQueue, kv: KvStore, options: { allowPrivateAddress?: boolean; timeoutMs?: number } = {}) {
    super(inner);
    this.kv = kv;
    this.anyAddress = options.allowPrivateAddress ?? false;
    this.worker = new DeliveryWorker({ anyAddress: this.anyAddress, timeoutMs: options.timeoutMs });
  }

  override async listen(
    handler: (message: unknown) => Promise<void> | void,
    options?: MessageQueueListenOptions,
  ): Promise<void> {
    try {
      await this.inner.listen(async (message) => {
        if (isOutboxMessage(message) && (await this.delivered(message))) return;
        await handler(message);
      }, options);
    } finally {
      await this.worker.close();
    }
  }

  /** Whether the worker delivered `message` (false: Fedify's handler is to do it). */
  private async delivered(message: OutboxMessage): Promise<boolean> {
    if (message.circuitHeld) return false;
    const key = message.keys.find((k) => k.privateKey?.kty === 'RSA');
    let inbox: URL;
    try {
      inbox = new URL(message.inbox);
    } catch {
      return false;
    }
    if (!key || (inbox.protocol !== 'https:' && inbox.protocol !== 'http:')) return false;
    if ((await this.kv.get([...CIRCUIT_PREFIX, inbox.host])) != null) return false;
    const known = await this.kv.get<string>([...SPEC_PREFIX, inbox.origin]);
    if (known != null && known !== CAVAGE) return false;
    const addresses = this.anyAddress ? undefined : await this.checkedAddresses(inbox.hostname);
    if (addresses === null) return false;
    const result = await this.worker.deliver({
      inbox: inbox.href,
      body: JSON.stringify(message.activity),
      headers: { ...message.headers, 'content-type': 'application/activity+json' },
      keyId: key.keyId,
      jwk: key.privateKey,
      addresses,
    });
    if (result.status < 200 || result.status > 299) return false;
    // As Fedify's double knock: the spec a host accepted is remembered.
    if (known !== CAVAGE) await this.kv.set([...SPEC_PREFIX, inbox.origin], CAVAGE);
    return true;
  }

  /** The public addresses of `hostname` (a literal: itself), or null when any is private or it does not resolve. */
  private async checkedAddresses(hostname: string): Promise<dns.LookupAddress[] | null> {
    const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
    if (privateLiteralRefusal(bare)) return null;
    try {
      return await lookupPublic(bare, { all: true });
    } catch {
      return null;
    }
  }
}

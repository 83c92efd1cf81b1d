import { PRIVATE_ADDRESS_CODE, privateLiteralRefusal, publicOnlyAgent } from '../../security/index.ts';
import type { SocialContext } from '../context.ts';
import type { PushSubscriptionRow } from '../store/index.ts';
import { startDrainLoop } from '../drain-loop.ts';
import { policyAllows } from './alerts.ts';
import { pushPayload } from './payload.ts';

export { ALERT_TYPES, POLICIES, alertsFrom } from './alerts.ts';

/**
 * Why an endpoint cannot be subscribed (answered 422), or null: https only, and never a literal private
 * address. A name is judged each time a push is sent, on the addresses it then resolves to.
 */
export function pushEndpointProblem(endpoint: URL): string | null {
  if (endpoint.protocol !== 'https:') return 'must be an https URL';
  if (privateLiteralRefusal(endpoint.hostname)) return 'must not be a loopback or private address';
  return null;
}

export interface WebPushOptions {
  /** Tests only: endpoints whose names resolve to loopback and private addresses are reached. */
  allowPrivateAddress?: boolean;
  /** Tests only: a certificate authority to trust for push endpoints (a receiver with a test certificate). */
  ca?: string;
  /** Waits before each retry (Mastodon's worker retries for about a day); the last one given up. */
  retryDelaysMs?: readonly number[];
}

const DEFAULT_RETRIES = [30_000, 120_000, 600_000, 1_800_000, 3_600_000, 3 * 3_600_000, 6 * 3_600_000, 12 * 3_600_000];
/** Pushes live 48 hours in the push service (Mastodon's TTL). */
const TTL_SECONDS = 48 * 3600;
const BATCH = 50;
const SEND_TIMEOUT_MS = 15_000;

export interface WebPush {
  /** Resolves when nothing is being sent and nothing is due. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Web Push: `notification.created` (after commit) queues one delivery per subscription whose alerts and
 * policy let it through; a worker sends them with the `web-push` library (VAPID, aes128gcm or aesgcm),
 * deletes a subscription its push service calls gone (404/410, or any other 4xx but 408/429, as Mastodon),
 * and retries the rest with growing waits. The queue is in SQLite, so a restart resumes it.
 */
export function startWebPush(ctx: SocialContext, options: WebPushOptions = {}): WebPush {
  const { store, logger } = ctx;
  const log = logger.child({ component: 'web-push' });
  const retries = options.retryDelaysMs ?? DEFAULT_RETRIES;
  // Push services speak https only (the web-push library makes https requests); each connection is checked.
  const agent = publicOnlyAgent('https:', {
    keepAlive: true,
    allowPrivateAddress: options.allowPrivateAddress,
    ...(options.ca ? { ca: options.ca } : {}),
  });
  const vapid = () => {
    const publicKey = store.settings.get('vapid_public_key')!;
    const privateKey = store.settings.get('vapid_private_key')!;
    const contact =
      store.settings.owner('contact_email') || store.users.staffContact()?.email || `nobody@${ctx.urls.hostname}`;
    return { subject: `mailto:${contact}`, publicKey, privateKey };
  };

  const queueFor = (e: {
    notificationId: string;
    accountId: string;
    fromAccountId: string;
    notificationType: string;
  }) => {
    const subscriptions = store.push.ofAccount(e.accountId).filter((s) => s.alerts[e.notificationType] === true);
    if (subscriptions.length === 0) return;
    const relation = {
      recipientFollowsSender: store.relationships.follow(e.accountId, e.fromAccountId) !== null,
      senderFollowsRecipient: store.relationships.follow(e.fromAccountId, e.accountId) !== null,
    };
    const allowed = subscriptions.filter((s) => policyAllows(s.policy, relation));
    if (allowed.length === 0) return;
    store.push.enqueue(
      allowed.map((s) => s.id),
      e.notificationId,
    );
    loop.kick();
  };
  const off = ctx.events.on('notification.created', (e) => {
    try {
      queueFor(e);
    } catch (err) {
      log.error({ err }, 'a push could not be queued');
    }
  });

  const send = async (
    subscription: PushSubscriptionRow,
    payload: string,
  ): Promise<{ ok: true } | { ok: false; gone: boolean; error: string }> => {
    // Subscriptions made before the endpoint was checked when subscribing are dropped here.
    const problem = pushEndpointProblem(new URL(subscription.endpoint));
    if (problem) return { ok: false, gone: true, error: `the push endpoint ${problem}` };
    try {
      // web-push loads with the first notification sent, not with every start of the server.
      const { default: webpush } = await import('web-push');
      await webpush.sendNotification(
        { endpoint: subscription.endpoint, keys: { p256dh: subscription.p256dh, auth: subscription.auth } },
        payload,
        {
          vapidDetails: vapid(),
          TTL: TTL_SECONDS,
          urgency: 'normal',
          contentEncoding: subscription.standard ? 'aes128gcm' : 'aesgcm',
          agent,
          timeout: SEND_TIMEOUT_MS,
        },
      );
      return { ok: true };
    } catch (err) {
      const status = (err as { statusCode?: number }).statusCode;
      const gone = status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429;
      const code = (err as { code?: string }).code;
      return {
        ok: false,
        gone: gone || code === PRIVATE_ADDRESS_CODE,
        error: status ? `HTTP ${status}` : (err as Error).message,
      };
    }
  };

  const drain = async (signal: AbortSignal): Promise<void> => {
    for (;;) {
      const due = store.push.due(BATCH);
      if (due.length === 0 || signal.aborted) return;
      await Promise.all(
        due.map(async (delivery) => {
          const subscription = store.push.byId(delivery.subscriptionId);
          const notification = subscription
            ? store.notifications.byId(subscription.accountId, delivery.notificationId)
            : null;
          const payload = subscription && notification ? pushPayload(ctx, subscription, notification) : null;
          if (!subscription || !payload) {
            store.push.delivered(delivery.id);
            return;
          }
          const result = await send(subscription, payload);
          if (result.ok) store.push.delivered(delivery.id);
          else if (result.gone) {
            log.info(
              { subscriptionId: subscription.id, error: result.error },
              'push subscription removed: its push service no longer takes it',
            );
            store.push.delete(subscription.id);
          } else if (delivery.attempts >= retries.length) {
            log.warn({ subscriptionId: subscription.id, error: result.error }, 'push given up after its retries');
            store.push.delivered(delivery.id);
          } else {
            store.push.retryLater(delivery.id, store.now() + retries[delivery.attempts], result.error);
          }
        }),
      );
    }
  };

  const loop = startDrainLoop({
    drain,
    nextDue: () => store.push.nextDue(),
    now: () => store.now(),
    onError: (err) => log.error({ err }, 'push delivery failed'),
  });
  return {
    idle: () => loop.idle(),
    async close() {
      off();
      await loop.close();
      agent.destroy();
    },
  };
}

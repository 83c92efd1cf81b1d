import type { PushSubscriptionRow } from '../store/index.ts';

/** The WebPushSubscription entity; `server_key` is the instance's VAPID public key. */
export function serializePushSubscription(row: PushSubscriptionRow, serverKey: string): Record<string, unknown> {
  return {
    id: row.id,
    endpoint: row.endpoint,
    standard: row.standard,
    alerts: row.alerts,
    policy: row.policy,
    server_key: serverKey,
  };
}

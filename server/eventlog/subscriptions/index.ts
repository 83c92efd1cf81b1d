/**
 * Event-log subscriptions: volatile (live, optionally filtered) and persistent (competing consumers).
 * Transport-agnostic; the TCP protocol glue lives in tcp-handlers.ts.
 */
import type { Logger } from '../../logger.ts';
import type { EventStore, Principal } from '../store/index.ts';
import type { Subscriptions } from './subscriptions.ts';
import { systemClock, type Clock } from './clock.ts';
import { PersistentSubscriptions } from './persistent/service.ts';
import { VolatileSubscriptions } from './volatile.ts';

export * from './types.ts';
export type { Subscriptions } from './subscriptions.ts';
export { subscriptionTcpHandlers } from './tcp-handlers.ts';
export { parkedStreamOf } from './persistent/group-streams.ts';
export { type Clock } from './clock.ts';
export { VolatileSubscriptions } from './volatile.ts';
export { type SubscriptionTcpOptions } from './tcp-registry.ts';

/** The identity subscriptions use for their own bookkeeping streams (checkpoints, parked, definitions). */
export const SUBSCRIPTIONS_SYSTEM_PRINCIPAL: Principal = Object.freeze({
  name: '$system',
  groups: Object.freeze(['$admins']),
});

export interface SubscriptionsOptions {
  logger: Logger;
  /** Injectable for tests: message timeouts and timed checkpoints run off it. */
  clock?: Clock;
}

/** Starts both engines on a store: loads persistent groups and resumes them from their checkpoints. */
export function startSubscriptions(store: EventStore, options: SubscriptionsOptions): Subscriptions {
  const clock = options.clock ?? systemClock;
  const logger = options.logger;
  const volatile = new VolatileSubscriptions(store, {
    logger: logger.child({ component: 'volatile-subscriptions' }),
    now: () => clock.now(),
  });
  const persistent = new PersistentSubscriptions({
    store,
    logger: logger.child({ component: 'persistent-subscriptions' }),
    clock,
    system: SUBSCRIPTIONS_SYSTEM_PRINCIPAL,
  });
  persistent.start();
  let closing: Promise<void> | null = null;
  const owner = SUBSCRIPTIONS_SYSTEM_PRINCIPAL;
  return {
    volatile,
    persistent,
    listVolatile: () => volatile.list(),
    listGroups: () => persistent.list(),
    getGroup: (s, g) => persistent.get(s, g),
    createGroup: (s, g, settings, caller = owner, options = {}) => persistent.create(s, g, settings, caller, options),
    updateGroup: (s, g, settings, caller = owner) => persistent.update(s, g, settings, caller),
    deleteGroup: (s, g, caller = owner) => persistent.delete(s, g, caller),
    listParked: (s, g, o) => persistent.listParked(s, g, o),
    replayParked: (s, g, o) => persistent.replayParked(s, g, o),
    close() {
      closing ??= (async () => {
        volatile.close();
        await persistent.close();
      })();
      return closing;
    },
  };
}

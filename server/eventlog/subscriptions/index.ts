/**
 * Event-log subscriptions: volatile (live, optionally filtered) and persistent (competing consumers).
 * Transport-agnostic; the TCP protocol glue lives in tcp-handlers.ts.
 */
import type { Logger } from '../../logger.ts';
import type { Caller, EventStore, Principal } from '../store/index.ts';
import { systemClock, type Clock } from './clock.ts';
import { PersistentSubscriptions } from './persistent/service.ts';
import type {
  CreateGroupResult,
  DeleteGroupResult,
  ParkedPage,
  PersistentGroupDetail,
  PersistentGroupInfo,
  PersistentGroupSettings,
  UpdateGroupResult,
  VolatileSubscriptionInfo,
} from './types.ts';
import { VolatileSubscriptions } from './volatile.ts';

export * from './types.ts';
export { DEFAULT_PERSISTENT_SETTINGS } from './persistent/settings.ts';
export { checkpointStreamOf, parkedStreamOf } from './persistent/group-streams.ts';
export { CONFIG_STREAM as PERSISTENT_SUBSCRIPTION_CONFIG_STREAM } from './persistent/service.ts';
export { systemClock, ManualClock, type Clock } from './clock.ts';
export { compileEventFilter, describeFilter, InvalidFilterError } from './filter.ts';
export { VolatileSubscriptions } from './volatile.ts';
export { PersistentSubscriptions } from './persistent/service.ts';
export {
  DEFAULT_MAX_SUBSCRIPTIONS,
  DEFAULT_MAX_SUBSCRIPTIONS_PER_CONNECTION,
  type SubscriptionTcpOptions,
} from './tcp-registry.ts';

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

/**
 * The running subscription engines plus the monitor/management API the UI uses. Management calls take
 * a caller: pass an `$admins`/`$ops` principal (the UI acts as the owner).
 */
export interface Subscriptions {
  readonly volatile: VolatileSubscriptions;
  readonly persistent: PersistentSubscriptions;
  listVolatile(): VolatileSubscriptionInfo[];
  listGroups(): PersistentGroupInfo[];
  getGroup(streamId: string, groupName: string): PersistentGroupDetail | undefined;
  /** `options.toAll`: a group on `$all` (gRPC only). */
  createGroup(
    streamId: string,
    groupName: string,
    settings: Partial<PersistentGroupSettings>,
    caller?: Caller,
    options?: { toAll?: boolean },
  ): Promise<CreateGroupResult>;
  updateGroup(
    streamId: string,
    groupName: string,
    settings: Partial<PersistentGroupSettings>,
    caller?: Caller,
  ): Promise<UpdateGroupResult>;
  deleteGroup(streamId: string, groupName: string, caller?: Caller): Promise<DeleteGroupResult>;
  listParked(streamId: string, groupName: string, options?: { from?: number; count?: number }): ParkedPage | undefined;
  /** Returns how many parked messages were queued for redelivery; undefined for an unknown group. */
  replayParked(streamId: string, groupName: string, options?: { stopAt?: number }): number | undefined;
  /** Drops volatile subscribers, stops groups and writes their final checkpoints. Call before the store closes. */
  close(): Promise<void>;
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

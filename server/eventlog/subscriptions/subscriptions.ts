// The running subscription engines as their users see them: apart from index.ts, which starts them, so that the
// TCP handlers (re-exported by the index) can name the type without a cycle.
import type { Caller } from '../store/index.ts';
import type { PersistentSubscriptions } from './persistent/service.ts';
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
import type { VolatileSubscriptions } from './volatile.ts';

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

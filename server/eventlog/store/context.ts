import type { Database } from '../../db/index.ts';
import type { Logger } from '../../logger.ts';
import type { StoreLimits } from './limits.ts';
import type { LinkTargets } from './link-targets.ts';
import type { RecentEventIds } from './recent-event-ids.ts';
import type { Statements } from './statements.ts';
import type { StreamCache } from './stream-cache.ts';

/** What the store's parts share: the connection, its statements, the stream cache and the log head. */
export interface StoreContext {
  readonly db: Database;
  readonly sql: Statements;
  readonly logger: Logger;
  /** Unix milliseconds. */
  readonly clock: () => number;
  readonly limits: StoreLimits;
  readonly streams: StreamCache;
  /** Where recently written event ids first occurred (idempotency of ExpectedVersion.Any). */
  readonly recentIds: RecentEventIds;
  /** Link targets in use, shared so that many links to one event hold one copy of it. */
  readonly linkTargets: LinkTargets;
  /** Highest position handed out (by this process or another one). */
  lastPosition: number;
}

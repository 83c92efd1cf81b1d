import type { DeletedStatusRoute } from '../events.ts';
import { liveStatusRoutes } from './deleted-status-routes.ts';
import type { StoreCore } from './store.ts';

/** What goes with a deleted local account (its row stays, as a tombstone that keeps the name reserved). */
export class AccountErasureRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  /**
   * Removes a local account's relationships both ways, its domain blocks, notifications to and from it, its home
   * feed and its posts' places in others', its scheduled posts; its posts become tombstones (off their hashtags' listings) and its post count 0.
   * Returns where each post it deleted may have been shown (for streaming's deletions). Runs inside a transaction.
   */
  eraseLocalData(accountId: string): DeletedStatusRoute[] {
    const deleted = liveStatusRoutes(this.core, accountId);
    for (const table of ['follows', 'follow_requests', 'blocks', 'mutes', 'account_notes', 'account_pins'])
      this.core.sql(`DELETE FROM ${table} WHERE account_id = ? OR target_account_id = ?`).run(accountId, accountId);
    this.core.sql('DELETE FROM account_domain_blocks WHERE account_id = ?').run(accountId);
    this.core.sql('DELETE FROM notifications WHERE account_id = ? OR from_account_id = ?').run(accountId, accountId);
    this.core
      .sql('DELETE FROM home_feed WHERE account_id = ? OR status_id IN (SELECT id FROM statuses WHERE account_id = ?)')
      .run(accountId, accountId);
    // Its posts off their hashtags' listings, as StatusRepository.markDeleted takes one post off.
    this.core
      .sql('DELETE FROM statuses_tags WHERE status_id IN (SELECT id FROM statuses WHERE account_id = ?)')
      .run(accountId);
    this.core
      .sql('UPDATE statuses SET deleted_at = ? WHERE account_id = ? AND deleted_at IS NULL')
      .run(this.core.now(), accountId);
    this.core.sql('UPDATE account_stats SET statuses_count = 0 WHERE account_id = ?').run(accountId);
    this.core.sql('DELETE FROM scheduled_statuses WHERE account_id = ?').run(accountId);
    return deleted;
  }
}

import { int, str, type StoreCore } from './store.ts';

export type NotificationType =
  | 'mention'
  | 'status'
  | 'reblog'
  | 'follow'
  | 'follow_request'
  | 'favourite'
  | 'poll'
  | 'update'
  | 'quote'
  | 'quoted_update'
  | 'admin.sign_up'
  | 'admin.report'
  | 'severed_relationships'
  | 'moderation_warning';

export interface NotificationRow {
  id: string;
  accountId: string;
  fromAccountId: string;
  type: NotificationType;
  statusId: string | null;
  createdAt: number;
}

/** Notification rows. Part 1 writes follow, follow_request and admin.sign_up; the listing API comes with part 2. */
export class NotificationRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  insert(input: { accountId: string; fromAccountId: string; type: NotificationType; statusId?: string | null; groupKey?: string | null }): string {
    const id = this.core.ids.next();
    this.core
      .sql('INSERT INTO notifications (id, account_id, from_account_id, type, status_id, group_key, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(id, input.accountId, input.fromAccountId, input.type, input.statusId ?? null, input.groupKey ?? null, this.core.now());
    return id;
  }

  /** Removes notifications of one kind between two accounts (e.g. a follow request that was withdrawn). */
  deleteBetween(accountId: string, fromAccountId: string, type: NotificationType): void {
    this.core.sql('DELETE FROM notifications WHERE account_id = ? AND from_account_id = ? AND type = ?').run(accountId, fromAccountId, type);
  }

  /** Removes what one account caused in another's notifications (after a block). */
  deleteAllFrom(accountId: string, fromAccountId: string): void {
    this.core.sql('DELETE FROM notifications WHERE account_id = ? AND from_account_id = ?').run(accountId, fromAccountId);
  }

  forAccount(accountId: string, limit = 40): NotificationRow[] {
    const rows = this.core.sql('SELECT * FROM notifications WHERE account_id = ? ORDER BY id DESC LIMIT ?').all(accountId, limit) as Record<string, unknown>[];
    return rows.map((r) => ({
      id: str(r.id),
      accountId: str(r.account_id),
      fromAccountId: str(r.from_account_id),
      type: r.type as NotificationType,
      statusId: r.status_id === null ? null : str(r.status_id),
      createdAt: int(r.created_at),
    }));
  }
}

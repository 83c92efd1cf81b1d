import type { Migration } from '../../db/index.ts';

export const migration: Migration = {
  version: 13,
  name: 'notification policies and requests',
  up(db) {
    // notifications.filtered (first schema) marks those a policy holds back; a request gathers them per sender.
    db.exec(`
        CREATE TABLE notification_policies (
          account_id INTEGER PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
          for_not_following TEXT NOT NULL DEFAULT 'accept' CHECK (for_not_following IN ('accept', 'filter', 'drop')),
          for_not_followers TEXT NOT NULL DEFAULT 'accept' CHECK (for_not_followers IN ('accept', 'filter', 'drop')),
          for_new_accounts TEXT NOT NULL DEFAULT 'accept' CHECK (for_new_accounts IN ('accept', 'filter', 'drop')),
          for_private_mentions TEXT NOT NULL DEFAULT 'filter' CHECK (for_private_mentions IN ('accept', 'filter', 'drop')),
          for_limited_accounts TEXT NOT NULL DEFAULT 'filter' CHECK (for_limited_accounts IN ('accept', 'filter', 'drop')),
          updated_at INTEGER NOT NULL
        );
        CREATE TABLE notification_requests (
          id INTEGER PRIMARY KEY,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          from_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          last_status_id INTEGER REFERENCES statuses(id) ON DELETE SET NULL,
          notifications_count INTEGER NOT NULL DEFAULT 0,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL,
          UNIQUE (account_id, from_account_id)
        );
        CREATE TABLE notification_permissions (
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          from_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          created_at INTEGER NOT NULL,
          PRIMARY KEY (account_id, from_account_id)
        ) WITHOUT ROWID;
        CREATE INDEX notifications_filtered ON notifications (account_id, from_account_id) WHERE filtered = 1;
      `);
  },
};

import type { Migration } from '../../db/index.ts';

export const migration: Migration = {
  version: 17,
  name: 'moderation warnings',
  up(db) {
    db.exec(`
        CREATE TABLE account_warnings (
          id INTEGER PRIMARY KEY,
          account_id INTEGER REFERENCES accounts(id) ON DELETE SET NULL,
          target_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          action TEXT NOT NULL,
          text TEXT NOT NULL DEFAULT '',
          status_ids TEXT NOT NULL DEFAULT '[]',
          created_at INTEGER NOT NULL
        );
        ALTER TABLE notifications ADD COLUMN account_warning_id INTEGER REFERENCES account_warnings(id) ON DELETE CASCADE;
      `);
  },
};

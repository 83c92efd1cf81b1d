import type { Migration } from '../../db/index.ts';

export const migration: Migration = {
  version: 15,
  name: 'moderation: sensitized accounts, report handling, e-mail and IP blocks',
  up(db) {
    db.exec(`
        ALTER TABLE accounts ADD COLUMN sensitized_at INTEGER;
        ALTER TABLE reports ADD COLUMN assigned_account_id INTEGER REFERENCES accounts(id) ON DELETE SET NULL;
        ALTER TABLE reports ADD COLUMN action_taken_by_account_id INTEGER REFERENCES accounts(id) ON DELETE SET NULL;
        CREATE INDEX reports_open ON reports (action_taken_at, id);
        CREATE TABLE email_domain_blocks (
          id INTEGER PRIMARY KEY,
          domain TEXT NOT NULL UNIQUE,
          created_at INTEGER NOT NULL
        );
        CREATE TABLE canonical_email_blocks (
          id INTEGER PRIMARY KEY,
          canonical_email_hash TEXT NOT NULL UNIQUE,
          created_at INTEGER NOT NULL
        );
        CREATE TABLE ip_blocks (
          id INTEGER PRIMARY KEY,
          ip TEXT NOT NULL UNIQUE,
          severity TEXT NOT NULL CHECK (severity IN ('sign_up_requires_approval', 'sign_up_block', 'no_access')),
          comment TEXT NOT NULL DEFAULT '',
          expires_at INTEGER,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );
      `);
  },
};

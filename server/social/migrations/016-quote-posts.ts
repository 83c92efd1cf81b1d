import type { Migration } from '../../db/index.ts';

export const migration: Migration = {
  version: 16,
  name: 'quote posts',
  up(db) {
    db.exec(`
        CREATE TABLE quotes (
          id INTEGER PRIMARY KEY,
          status_id INTEGER NOT NULL UNIQUE REFERENCES statuses(id) ON DELETE CASCADE,
          quoted_status_id INTEGER REFERENCES statuses(id) ON DELETE SET NULL,
          quoted_account_id INTEGER REFERENCES accounts(id) ON DELETE SET NULL,
          state TEXT NOT NULL CHECK (state IN ('pending', 'accepted', 'rejected', 'revoked')),
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );
        CREATE INDEX quotes_quoted ON quotes (quoted_status_id, id);
      `);
  },
};

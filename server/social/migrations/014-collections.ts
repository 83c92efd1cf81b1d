import type { Migration } from '../../db/index.ts';

export const migration: Migration = {
  version: 14,
  name: 'collections of accounts',
  up(db) {
    db.exec(`
        CREATE TABLE collections (
          id INTEGER PRIMARY KEY,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          name TEXT NOT NULL,
          description TEXT NOT NULL DEFAULT '',
          language TEXT,
          sensitive INTEGER NOT NULL DEFAULT 0,
          discoverable INTEGER NOT NULL DEFAULT 1,
          tag_id INTEGER REFERENCES tags(id) ON DELETE SET NULL,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );
        CREATE INDEX collections_account ON collections (account_id, id);
        CREATE TABLE collection_items (
          id INTEGER PRIMARY KEY,
          collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          state TEXT NOT NULL CHECK (state IN ('pending', 'accepted', 'rejected', 'revoked')),
          position INTEGER NOT NULL,
          created_at INTEGER NOT NULL,
          UNIQUE (collection_id, account_id)
        );
        CREATE INDEX collection_items_account ON collection_items (account_id);
      `);
  },
};

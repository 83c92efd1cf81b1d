import type { Migration } from '../../db/index.ts';

export const migration: Migration = {
  version: 23,
  name: 'csv imports in the background',
  up(db) {
    // Mastodon's BulkImport and BulkImportRow: an import stored whole when it is made, its rows worked off in
    // the background. A row leaves the table once imported; failed rows stay with their reason. One import of
    // a type per account is unfinished at a time.
    db.exec(`
        CREATE TABLE bulk_imports (
          id INTEGER PRIMARY KEY,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          type TEXT NOT NULL,
          overwrite INTEGER NOT NULL DEFAULT 0,
          state TEXT NOT NULL CHECK (state IN ('scheduled', 'in_progress', 'finished')),
          total_items INTEGER NOT NULL,
          processed_items INTEGER NOT NULL DEFAULT 0,
          imported_items INTEGER NOT NULL DEFAULT 0,
          created_at INTEGER NOT NULL,
          finished_at INTEGER
        );
        CREATE INDEX bulk_imports_account ON bulk_imports (account_id, id);
        CREATE UNIQUE INDEX bulk_imports_unfinished ON bulk_imports (account_id, type) WHERE state <> 'finished';
        CREATE TABLE bulk_import_rows (
          id INTEGER PRIMARY KEY,
          bulk_import_id INTEGER NOT NULL REFERENCES bulk_imports(id) ON DELETE CASCADE,
          position INTEGER NOT NULL,                    -- 0-based, among the file's rows
          data TEXT NOT NULL,                           -- JSON, Mastodon's row keys (acct, show_reblogs, uri, list_name…)
          error TEXT                                    -- null: waiting; else why it failed
        );
        CREATE INDEX bulk_import_rows_pending ON bulk_import_rows (position, id) WHERE error IS NULL;
        CREATE INDEX bulk_import_rows_import ON bulk_import_rows (bulk_import_id, position);
      `);
  },
};

import type { Migration } from '../../db/index.ts';

export const migration: Migration = {
  version: 24,
  name: 'import rows count their interrupted lookups',
  up(db) {
    // A row whose lookup was under way when the server stopped (killed by what the lookup read) is looked up
    // again at the next start, but not forever: the worker fails it after a few such starts.
    db.exec('ALTER TABLE bulk_import_rows ADD COLUMN lookups_started INTEGER NOT NULL DEFAULT 0');
  },
};

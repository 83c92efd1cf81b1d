import type { Migration } from '../../db/index.ts';

export const migration: Migration = {
  version: 25,
  name: 'annual reports',
  up(db) {
    // Mastodon's generated_annual_reports: one report per account and year, its figures frozen when generated.
    db.exec(`
      CREATE TABLE annual_reports (
        id INTEGER PRIMARY KEY,
        account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        year INTEGER NOT NULL,
        schema_version INTEGER NOT NULL,
        data TEXT NOT NULL,                           -- JSON, shaped by schema_version
        viewed_at INTEGER,
        created_at INTEGER NOT NULL,
        UNIQUE (account_id, year)
      );
    `);
  },
};

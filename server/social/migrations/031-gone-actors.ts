import type { Migration } from '../../db/index.ts';

export const migration: Migration = {
  version: 31,
  name: 'gone actors',
  up(db) {
    // Remote actors and keys known to be gone, kept across a restart so their next activity is refused without
    // fetching them again; bounded in rows by the federation's GoneActors, expired rows pruned by expiry.
    db.exec(`CREATE TABLE gone_actors (
      id TEXT PRIMARY KEY,
      expires_at INTEGER NOT NULL
    ) WITHOUT ROWID`);
    db.exec('CREATE INDEX gone_actors_expiry ON gone_actors (expires_at)');
  },
};

import type { Migration } from '../../db/index.ts';

export const migration: Migration = {
  version: 27,
  name: 'domain events relayed from the admin CLI to the running server',
  up(db) {
    // Written by the admin CLI in the transaction of the change that raised them; the running server reads
    // them as they commit, delivers them to its own listeners (streaming, push, federation) and deletes them.
    db.exec(`
      CREATE TABLE relayed_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        type TEXT NOT NULL,
        payload TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
    `);
  },
};

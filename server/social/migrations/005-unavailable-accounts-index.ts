import type { Migration } from '../../db/index.ts';

export const migration: Migration = {
  version: 5,
  name: 'index of unavailable accounts',
  up(db) {
    // Timelines check every status's author; looking the author up in this (nearly always empty) index is
    // far cheaper than reading account rows, which are large (they hold key pairs).
    db.exec(
      `CREATE INDEX accounts_unavailable ON accounts (id) WHERE suspended_at IS NOT NULL OR deleted_at IS NOT NULL`,
    );
  },
};

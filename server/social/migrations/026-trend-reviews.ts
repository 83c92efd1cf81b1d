import type { Migration } from '../../db/index.ts';

export const migration: Migration = {
  version: 26,
  name: 'trend reviews of posts and link publishers',
  up(db) {
    // Staff's review (Mastodon's statuses.trendable and preview_card_providers): NULL until reviewed, then
    // 1 allowed or 0 refused. A publisher's verdict stands for its links no one reviewed one by one.
    db.exec(`
      ALTER TABLE statuses ADD COLUMN trendable INTEGER;
      CREATE TABLE preview_card_providers (
        id INTEGER PRIMARY KEY,
        domain TEXT NOT NULL UNIQUE,
        trendable INTEGER,
        reviewed_at INTEGER,
        requested_review_at INTEGER,
        created_at INTEGER NOT NULL
      );
    `);
  },
};

import type { Migration } from '../../db/index.ts';

export const migration: Migration = {
  version: 30,
  name: 'public statuses listed from an index',
  up(db) {
    // A hashtag page lists its statuses from the index alone: each of a tag's statuses lies on a table page of
    // its own (a home page's are mostly neighbours), and reading 20-odd scattered rows for their version and
    // filters was most of what made a hashtag page dearer than a home page.
    db.exec(`CREATE INDEX statuses_public_listing ON statuses (id, account_id, updated_at, deleted_at, visibility, reblog_of_id)
      WHERE deleted_at IS NULL AND visibility = 'public' AND reblog_of_id IS NULL`);
  },
};

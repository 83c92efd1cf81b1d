import type { Migration } from '../../db/index.ts';

export const migration: Migration = {
  version: 28,
  name: 'deleted statuses off their hashtags’ listings',
  up(db) {
    // Deletions now take a status off statuses_tags; a database from before still lists its deleted ones there,
    // which every hashtag page walks past.
    db.exec('DELETE FROM statuses_tags WHERE status_id IN (SELECT id FROM statuses WHERE deleted_at IS NOT NULL)');
  },
};

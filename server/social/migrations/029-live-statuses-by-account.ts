import type { Migration } from '../../db/index.ts';

export const migration: Migration = {
  version: 29,
  name: 'live statuses by account',
  up(db) {
    // Profile and list timelines walk an account's posts newest first: statuses_account holds its deleted ones
    // too, which such a page stepped over (Mastodon's account index is partial the same way).
    db.exec('CREATE INDEX statuses_account_live ON statuses (account_id, id) WHERE deleted_at IS NULL');
  },
};

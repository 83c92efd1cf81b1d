import type { Migration } from '../../db/index.ts';

export const migration: Migration = {
  version: 10,
  name: 'notification groups',
  up(db) {
    // A new favourite, reblog, follow or sign-up looks up the newest group of its kind; the grouped API reads groups whole.
    db.exec('CREATE INDEX notifications_group ON notifications (account_id, group_key) WHERE group_key IS NOT NULL');
  },
};

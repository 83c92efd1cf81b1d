import type { Migration } from '../../db/index.ts';

export const migration: Migration = {
  version: 11,
  name: 'the first web push table, never used, gives way to push_subscriptions',
  up(db) {
    db.exec('DROP TABLE IF EXISTS web_push_subscriptions');
  },
};

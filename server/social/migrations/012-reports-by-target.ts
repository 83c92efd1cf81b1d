import type { Migration } from '../../db/index.ts';

export const migration: Migration = {
  version: 12,
  name: 'reports by the account they are about',
  up(db) {
    // (notifications.report_id, which admin.report notifications fill, exists since the first schema.)
    db.exec('CREATE INDEX reports_target ON reports (target_account_id, id)');
  },
};

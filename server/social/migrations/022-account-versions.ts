import type { Migration } from '../../db/index.ts';

export const migration: Migration = {
  version: 22,
  name: 'account versions',
  up(db) {
    // Every change of an account row moves its updated_at, the version its cached row and serialization are kept
    // under: also a write that does not set it, or two writes in one millisecond.
    db.exec(`CREATE TRIGGER account_version AFTER UPDATE ON accounts WHEN NEW.updated_at <= OLD.updated_at
        BEGIN UPDATE accounts SET updated_at = OLD.updated_at + 1 WHERE id = NEW.id; END;`);
  },
};

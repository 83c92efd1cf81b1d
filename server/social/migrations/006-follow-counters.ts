import type { Migration } from '../../db/index.ts';

export const migration: Migration = {
  version: 6,
  name: 'follow counters',
  up(db) {
    // Followers and following of every account, kept by triggers (so every process that writes follows,
    // the admin CLI included, keeps them exact). Serializing an account read them instead of counting
    // its follow rows, which made every status of a popular account cost as much as its follower count.
    db.exec(`
        CREATE TABLE follow_counts (
          account_id INTEGER PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
          followers INTEGER NOT NULL DEFAULT 0,
          following INTEGER NOT NULL DEFAULT 0
        );
        INSERT INTO follow_counts (account_id, followers, following)
          SELECT a.id, (SELECT COUNT(*) FROM follows f WHERE f.target_account_id = a.id), (SELECT COUNT(*) FROM follows f WHERE f.account_id = a.id)
          FROM accounts a WHERE EXISTS (SELECT 1 FROM follows f WHERE f.account_id = a.id OR f.target_account_id = a.id);
        CREATE TRIGGER follows_count_insert AFTER INSERT ON follows BEGIN
          INSERT INTO follow_counts (account_id, following) VALUES (NEW.account_id, 1) ON CONFLICT (account_id) DO UPDATE SET following = following + 1;
          INSERT INTO follow_counts (account_id, followers) VALUES (NEW.target_account_id, 1) ON CONFLICT (account_id) DO UPDATE SET followers = followers + 1;
        END;
        CREATE TRIGGER follows_count_delete AFTER DELETE ON follows BEGIN
          UPDATE follow_counts SET following = following - 1 WHERE account_id = OLD.account_id;
          UPDATE follow_counts SET followers = followers - 1 WHERE account_id = OLD.target_account_id;
        END;
        -- Local users who may not be listed yet (unconfirmed or unapproved): few, so a partial index finds them.
        CREATE INDEX users_pending ON users (account_id) WHERE confirmed_at IS NULL OR approved = 0;
      `);
  },
};

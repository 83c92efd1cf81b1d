import type { Migration } from '../../db/index.ts';

export const migration: Migration = {
  version: 4,
  name: 'home feeds, media order, local status counters, listing indexes',
  up(db) {
    db.exec(`
        -- Each local user's home timeline, filled when statuses are posted (fan-out on write) and when a
        -- follow starts; mutes, blocks and deletions are applied when it is read.
        CREATE TABLE home_feed (
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          status_id INTEGER NOT NULL REFERENCES statuses(id) ON DELETE CASCADE,
          PRIMARY KEY (account_id, status_id)
        ) WITHOUT ROWID;
        CREATE INDEX home_feed_status ON home_feed (status_id);

        -- The order of media_ids as the author gave them, and why processing failed.
        ALTER TABLE media_attachments ADD COLUMN position INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE media_attachments ADD COLUMN processing_error TEXT;
        CREATE INDEX media_attachments_scheduled ON media_attachments (scheduled_status_id) WHERE scheduled_status_id IS NOT NULL;

        -- Local accounts keep their status counters here too (counted rows were too slow for timelines).
        INSERT INTO account_stats (account_id, statuses_count, last_status_at)
          SELECT s.account_id, COUNT(*), MAX(s.created_at) FROM statuses s JOIN accounts a ON a.id = s.account_id
          WHERE a.domain IS NULL AND s.deleted_at IS NULL AND s.visibility != 'direct' GROUP BY s.account_id
          ON CONFLICT (account_id) DO UPDATE SET statuses_count = excluded.statuses_count, last_status_at = excluded.last_status_at;

        CREATE INDEX favourites_account ON favourites (account_id, id);
        CREATE INDEX bookmarks_account ON bookmarks (account_id, id);
        CREATE INDEX status_pins_status ON status_pins (status_id);
        CREATE INDEX poll_votes_account ON poll_votes (account_id, poll_id);
        CREATE INDEX polls_status ON polls (status_id);
        CREATE INDEX scheduled_statuses_account ON scheduled_statuses (account_id, id);
        CREATE INDEX account_conversations_account ON account_conversations (account_id, last_status_id);
        CREATE INDEX notifications_status ON notifications (status_id) WHERE status_id IS NOT NULL;
        CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
        CREATE INDEX statuses_local_public ON statuses (id) WHERE deleted_at IS NULL AND visibility = 'public' AND reblog_of_id IS NULL AND local = 1;
      `);
  },
};

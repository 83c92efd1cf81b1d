import type { Migration } from '../../db/index.ts';
import { categoryOf, isMetastream, originalStreamOf, parseStreamMetadata } from './metadata.ts';
import { EVENT_NUMBER_DELETED } from './types.ts';

/** Bit flags of `events.flags` and `transaction_events.flags`. */
export const EventFlags = { IsJson: 1 } as const;

/**
 * Schema of `<dataDir>/eventlog.db`.
 *
 * `events.position` is the event's prepare position and its `$all` order; `commit_position` equals it
 * except for events committed by an explicit transaction, which share the transaction's commit position
 * (recorded in `committed_transactions` so `$all` cursors inside a transaction can be resolved).
 * `log_state.last_position` is the highest position ever handed out: it never goes back, even when
 * scavenge removes the newest rows.
 */
export const eventlogMigrations: readonly Migration[] = [
  {
    version: 1,
    name: 'events, streams and transactions',
    up(db) {
      db.exec(`
        CREATE TABLE log_state (
          id INTEGER PRIMARY KEY CHECK (id = 1),
          last_position INTEGER NOT NULL
        );
        INSERT INTO log_state (id, last_position) VALUES (1, 0);

        CREATE TABLE streams (
          stream_key INTEGER PRIMARY KEY,
          stream_id TEXT NOT NULL UNIQUE,
          last_event_number INTEGER NOT NULL,
          tombstoned INTEGER NOT NULL DEFAULT 0,
          event_count INTEGER NOT NULL DEFAULT 0,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );

        CREATE TABLE events (
          position INTEGER PRIMARY KEY,
          commit_position INTEGER NOT NULL,
          stream_key INTEGER NOT NULL,
          event_number INTEGER NOT NULL,
          event_id BLOB NOT NULL,
          event_type TEXT NOT NULL,
          flags INTEGER NOT NULL,
          data BLOB NOT NULL,
          metadata BLOB NOT NULL,
          created INTEGER NOT NULL
        );
        CREATE UNIQUE INDEX events_by_stream ON events (stream_key, event_number);
        CREATE INDEX events_by_event_id ON events (event_id);

        CREATE TABLE committed_transactions (
          commit_position INTEGER PRIMARY KEY,
          first_position INTEGER NOT NULL
        );

        CREATE TABLE transactions (
          transaction_id INTEGER PRIMARY KEY AUTOINCREMENT,
          stream_id TEXT NOT NULL,
          expected_version INTEGER NOT NULL,
          created_at INTEGER NOT NULL,
          committed INTEGER NOT NULL DEFAULT 0,
          first_event_number INTEGER,
          last_event_number INTEGER,
          prepare_position INTEGER,
          commit_position INTEGER
        );
        CREATE TABLE transaction_events (
          transaction_id INTEGER NOT NULL REFERENCES transactions (transaction_id) ON DELETE CASCADE,
          seq INTEGER NOT NULL,
          event_id BLOB NOT NULL,
          event_type TEXT NOT NULL,
          flags INTEGER NOT NULL,
          data BLOB NOT NULL,
          metadata BLOB NOT NULL,
          PRIMARY KEY (transaction_id, seq)
        ) WITHOUT ROWID;
      `);
    },
  },
  {
    version: 2,
    name: 'stream browsing: categories, deletion state, recency indexes',
    up(db) {
      db.exec(`
        ALTER TABLE streams ADD COLUMN category TEXT;
        ALTER TABLE streams ADD COLUMN deleted INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX streams_by_created ON streams (created_at);
        CREATE INDEX streams_by_updated ON streams (updated_at);
        CREATE INDEX streams_tombstoned ON streams (stream_key) WHERE tombstoned = 1;
        CREATE TABLE stream_categories (
          category TEXT PRIMARY KEY,
          streams INTEGER NOT NULL
        ) WITHOUT ROWID;
      `);
      // Existing rows: derive the category and the deletion state (soft deletion lives in `$$stream` metadata).
      const setCategory = db.prepare('UPDATE streams SET category = ? WHERE stream_key = ?');
      for (const row of db.prepare('SELECT stream_key, stream_id FROM streams').all() as {
        stream_key: number;
        stream_id: string;
      }[]) {
        const category = categoryOf(row.stream_id);
        if (category) setCategory.run(category, row.stream_key);
      }
      db.exec(`
        INSERT INTO stream_categories (category, streams)
          SELECT category, COUNT(*) FROM streams WHERE category IS NOT NULL GROUP BY category;
        UPDATE streams SET deleted = 2 WHERE tombstoned = 1;
      `);
      const lastMetadataEvent = db.prepare('SELECT flags, data FROM events WHERE stream_key = ? AND event_number = ?');
      const markSoftDeleted = db.prepare('UPDATE streams SET deleted = 1 WHERE stream_id = ? AND tombstoned = 0');
      const metastreams = db
        .prepare(
          "SELECT stream_key, stream_id, last_event_number FROM streams WHERE stream_id >= '$$' AND stream_id < '$%'",
        )
        .all() as { stream_key: number; stream_id: string; last_event_number: number }[];
      for (const meta of metastreams) {
        if (!isMetastream(meta.stream_id)) continue;
        const event = lastMetadataEvent.get(meta.stream_key, meta.last_event_number) as
          | { flags: number; data: Buffer }
          | undefined;
        if (!event) continue;
        const { metadata } = parseStreamMetadata((event.flags & EventFlags.IsJson) !== 0, event.data);
        if (metadata.truncateBefore === EVENT_NUMBER_DELETED) markSoftDeleted.run(originalStreamOf(meta.stream_id));
      }
    },
  },
  {
    version: 3,
    name: 'event-log users',
    up(db) {
      db.exec(`
        CREATE TABLE users (
          name TEXT PRIMARY KEY,
          full_name TEXT NOT NULL,
          groups TEXT NOT NULL,
          password_hash TEXT NOT NULL,
          disabled INTEGER NOT NULL DEFAULT 0,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE log_settings (
          key TEXT PRIMARY KEY,
          value TEXT NOT NULL
        ) WITHOUT ROWID;
      `);
    },
  },
  {
    version: 4,
    name: 'event ids are looked up in memory',
    up(db) {
      // Idempotency by id uses a bounded cache of recent ids (recent-event-ids.ts), as EventStoreDB does;
      // the index cost one random B-tree page write per event on every commit.
      db.exec('DROP INDEX IF EXISTS events_by_event_id');
    },
  },
  {
    version: 5,
    name: 'event-log access tokens',
    up(db) {
      // The SHA-256 of each bearer token (access-tokens.ts); user_created_at ties a token to one account.
      db.exec(`
        CREATE TABLE access_tokens (
          id TEXT PRIMARY KEY,
          token_hash BLOB NOT NULL UNIQUE,
          user_name TEXT NOT NULL,
          user_created_at INTEGER NOT NULL,
          name TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          expires_at INTEGER
        ) WITHOUT ROWID;
        CREATE INDEX access_tokens_by_user ON access_tokens (user_name, created_at);
      `);
    },
  },
];

import type { Migration } from '../../db/index.ts';

export const migration: Migration = {
  version: 7,
  name: 'federation: key-value store, delivery queue, follows by activity id',
  up(db) {
    db.exec(`
        -- Fedify's cache (public keys, remote documents, idempotence of inbox activities), keys as JSON arrays.
        CREATE TABLE federation_kv (
          key TEXT PRIMARY KEY,
          value TEXT NOT NULL,                          -- JSON
          expires_at INTEGER                            -- NULL = kept until deleted
        );
        CREATE INDEX federation_kv_expiry ON federation_kv (expires_at) WHERE expires_at IS NOT NULL;

        -- Fedify's message queue: outgoing deliveries (with their retries) and inbox work. A message is
        -- deleted only once handled, so a killed process hands the rest to the next start.
        CREATE TABLE federation_queue (
          id INTEGER PRIMARY KEY,
          message TEXT NOT NULL,                        -- JSON
          ordering_key TEXT,
          deliver_at INTEGER NOT NULL,
          created_at INTEGER NOT NULL
        );
        CREATE INDEX federation_queue_due ON federation_queue (deliver_at, id);

        -- Accept, Reject and Undo name a follow by its activity id.
        CREATE INDEX follows_uri ON follows (uri) WHERE uri IS NOT NULL;
        CREATE INDEX follow_requests_uri ON follow_requests (uri) WHERE uri IS NOT NULL;
      `);
  },
};

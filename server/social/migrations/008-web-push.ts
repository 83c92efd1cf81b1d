import type { Migration } from '../../db/index.ts';

export const migration: Migration = {
  version: 8,
  name: 'web push: subscriptions and their delivery queue',
  up(db) {
    db.exec(`
        -- One subscription per access token (Mastodon's rule); it goes with the token. The token's secret is
        -- kept because each push carries it (receivers fetch the notification with it); tokens are otherwise
        -- stored hashed.
        CREATE TABLE push_subscriptions (
          id INTEGER PRIMARY KEY,
          access_token_id INTEGER NOT NULL UNIQUE REFERENCES oauth_access_tokens(id) ON DELETE CASCADE,
          access_token TEXT NOT NULL,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          endpoint TEXT NOT NULL,
          p256dh TEXT NOT NULL,
          auth TEXT NOT NULL,
          standard INTEGER NOT NULL DEFAULT 0,
          alerts TEXT NOT NULL,                         -- JSON: type -> boolean
          policy TEXT NOT NULL DEFAULT 'all',
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );
        CREATE INDEX push_subscriptions_account ON push_subscriptions (account_id);

        -- Pushes waiting to be sent or retried; a row is deleted once the push service took it (or gave up).
        CREATE TABLE push_deliveries (
          id INTEGER PRIMARY KEY,
          subscription_id INTEGER NOT NULL REFERENCES push_subscriptions(id) ON DELETE CASCADE,
          notification_id INTEGER NOT NULL,
          attempts INTEGER NOT NULL DEFAULT 0,
          next_attempt_at INTEGER NOT NULL,
          last_error TEXT
        );
        CREATE INDEX push_deliveries_due ON push_deliveries (next_attempt_at, id);
      `);
  },
};

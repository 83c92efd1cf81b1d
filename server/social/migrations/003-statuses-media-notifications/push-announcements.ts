/** Version 3, part: Idempotency keys, the first web push table, announcements. */
export const pushAnnouncementsTables = `

        CREATE TABLE idempotency_keys (
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          key TEXT NOT NULL,
          status_id INTEGER REFERENCES statuses(id) ON DELETE CASCADE,
          scheduled_status_id INTEGER REFERENCES scheduled_statuses(id) ON DELETE CASCADE,
          created_at INTEGER NOT NULL,
          PRIMARY KEY (account_id, key)
        ) WITHOUT ROWID;

        CREATE TABLE web_push_subscriptions (
          id INTEGER PRIMARY KEY,
          access_token_id INTEGER NOT NULL UNIQUE REFERENCES oauth_access_tokens(id) ON DELETE CASCADE,
          user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          endpoint TEXT NOT NULL,
          key_p256dh TEXT NOT NULL,
          key_auth TEXT NOT NULL,
          standard INTEGER NOT NULL DEFAULT 0,
          alerts TEXT NOT NULL DEFAULT '{}',
          policy TEXT NOT NULL DEFAULT 'all' CHECK (policy IN ('all', 'followed', 'follower', 'none')),
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );

        CREATE TABLE announcements (
          id INTEGER PRIMARY KEY,
          text TEXT NOT NULL,
          published INTEGER NOT NULL DEFAULT 1,
          all_day INTEGER NOT NULL DEFAULT 0,
          starts_at INTEGER,
          ends_at INTEGER,
          published_at INTEGER,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );
        CREATE TABLE announcement_reactions (
          id INTEGER PRIMARY KEY,
          announcement_id INTEGER NOT NULL REFERENCES announcements(id) ON DELETE CASCADE,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          name TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          UNIQUE (announcement_id, account_id, name)
        );
        CREATE TABLE announcement_dismissals (
          announcement_id INTEGER NOT NULL REFERENCES announcements(id) ON DELETE CASCADE,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          PRIMARY KEY (announcement_id, account_id)
        ) WITHOUT ROWID;`;

/** Version 3, part: Favourites, bookmarks, muted conversations, direct-message threads. */
export const interactionsTables = `

        CREATE TABLE favourites (
          id INTEGER PRIMARY KEY,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          status_id INTEGER NOT NULL REFERENCES statuses(id) ON DELETE CASCADE,
          uri TEXT,
          created_at INTEGER NOT NULL,
          UNIQUE (account_id, status_id)
        );
        CREATE INDEX favourites_status ON favourites (status_id);

        CREATE TABLE bookmarks (
          id INTEGER PRIMARY KEY,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          status_id INTEGER NOT NULL REFERENCES statuses(id) ON DELETE CASCADE,
          created_at INTEGER NOT NULL,
          UNIQUE (account_id, status_id)
        );

        CREATE TABLE conversation_mutes (
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
          PRIMARY KEY (account_id, conversation_id)
        ) WITHOUT ROWID;

        -- Direct-message threads as one participant sees them (/api/v1/conversations).
        CREATE TABLE account_conversations (
          id INTEGER PRIMARY KEY,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
          participant_account_ids TEXT NOT NULL DEFAULT '[]',
          last_status_id INTEGER REFERENCES statuses(id) ON DELETE SET NULL,
          unread INTEGER NOT NULL DEFAULT 0,
          updated_at INTEGER NOT NULL,
          UNIQUE (account_id, conversation_id)
        );`;

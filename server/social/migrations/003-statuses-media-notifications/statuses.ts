/** Version 3, part: Conversations, statuses, their edits, pins and mentions. */
export const statusesTables = `
        CREATE TABLE conversations (
          id INTEGER PRIMARY KEY,
          uri TEXT UNIQUE,                              -- context/conversation id of a remote thread
          created_at INTEGER NOT NULL
        );

        CREATE TABLE statuses (
          id INTEGER PRIMARY KEY,                       -- remote statuses get ids from their published time
          uri TEXT UNIQUE,                              -- NULL for local (derived from the domain)
          url TEXT,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          local INTEGER NOT NULL,
          in_reply_to_id INTEGER REFERENCES statuses(id) ON DELETE SET NULL,
          in_reply_to_account_id INTEGER REFERENCES accounts(id) ON DELETE SET NULL,
          reblog_of_id INTEGER REFERENCES statuses(id) ON DELETE CASCADE,
          quote_of_id INTEGER REFERENCES statuses(id) ON DELETE SET NULL,
          quote_state TEXT,                             -- pending, accepted, rejected, revoked, deleted, unauthorized
          quote_approval_policy TEXT NOT NULL DEFAULT 'public',
          conversation_id INTEGER REFERENCES conversations(id) ON DELETE SET NULL,
          text TEXT NOT NULL DEFAULT '',                -- source text (local) or empty (remote)
          content TEXT NOT NULL DEFAULT '',             -- HTML
          spoiler_text TEXT NOT NULL DEFAULT '',
          visibility TEXT NOT NULL CHECK (visibility IN ('public', 'unlisted', 'private', 'direct')),
          sensitive INTEGER NOT NULL DEFAULT 0,
          language TEXT,
          application_id INTEGER REFERENCES oauth_applications(id) ON DELETE SET NULL,
          poll_id INTEGER,
          replies_count INTEGER NOT NULL DEFAULT 0,     -- remote counters; local ones are counted from rows
          reblogs_count INTEGER NOT NULL DEFAULT 0,
          favourites_count INTEGER NOT NULL DEFAULT 0,
          edited_at INTEGER,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL,
          deleted_at INTEGER
        );
        CREATE INDEX statuses_account ON statuses (account_id, id);
        CREATE INDEX statuses_public ON statuses (id) WHERE deleted_at IS NULL AND visibility = 'public' AND reblog_of_id IS NULL;
        CREATE INDEX statuses_reblog_of ON statuses (reblog_of_id, account_id) WHERE reblog_of_id IS NOT NULL;
        CREATE INDEX statuses_in_reply_to ON statuses (in_reply_to_id) WHERE in_reply_to_id IS NOT NULL;
        CREATE INDEX statuses_conversation ON statuses (conversation_id, id);

        CREATE TABLE status_edits (
          id INTEGER PRIMARY KEY,
          status_id INTEGER NOT NULL REFERENCES statuses(id) ON DELETE CASCADE,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          text TEXT NOT NULL,
          content TEXT NOT NULL,
          spoiler_text TEXT NOT NULL DEFAULT '',
          sensitive INTEGER NOT NULL DEFAULT 0,
          media_attachment_ids TEXT NOT NULL DEFAULT '[]',
          media_descriptions TEXT NOT NULL DEFAULT '[]',
          poll_options TEXT,
          created_at INTEGER NOT NULL
        );
        CREATE INDEX status_edits_status ON status_edits (status_id, id);

        CREATE TABLE status_pins (
          id INTEGER PRIMARY KEY,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          status_id INTEGER NOT NULL REFERENCES statuses(id) ON DELETE CASCADE,
          created_at INTEGER NOT NULL,
          UNIQUE (account_id, status_id)
        );

        CREATE TABLE mentions (
          id INTEGER PRIMARY KEY,
          status_id INTEGER NOT NULL REFERENCES statuses(id) ON DELETE CASCADE,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          silent INTEGER NOT NULL DEFAULT 0,
          UNIQUE (status_id, account_id)
        );
        CREATE INDEX mentions_account ON mentions (account_id, status_id);`;

/** Version 3, part: Hashtags: tags, tagged statuses, followed and featured tags. */
export const tagsTables = `

        CREATE TABLE tags (
          id INTEGER PRIMARY KEY,
          name TEXT NOT NULL,
          display_name TEXT,
          usable INTEGER,
          trendable INTEGER,
          listable INTEGER,
          last_status_at INTEGER,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );
        CREATE UNIQUE INDEX tags_name ON tags (lower(name));

        CREATE TABLE statuses_tags (
          status_id INTEGER NOT NULL REFERENCES statuses(id) ON DELETE CASCADE,
          tag_id INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
          PRIMARY KEY (tag_id, status_id)
        ) WITHOUT ROWID;
        CREATE INDEX statuses_tags_status ON statuses_tags (status_id);

        CREATE TABLE tag_follows (
          id INTEGER PRIMARY KEY,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          tag_id INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
          created_at INTEGER NOT NULL,
          UNIQUE (account_id, tag_id)
        );

        CREATE TABLE featured_tags (
          id INTEGER PRIMARY KEY,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          tag_id INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
          created_at INTEGER NOT NULL,
          UNIQUE (account_id, tag_id)
        );`;

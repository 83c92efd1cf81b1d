/** Version 3, part: Scheduled statuses, media attachments, polls and votes. */
export const mediaPollsTables = `

        CREATE TABLE scheduled_statuses (
          id INTEGER PRIMARY KEY,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          application_id INTEGER REFERENCES oauth_applications(id) ON DELETE SET NULL,
          scheduled_at INTEGER NOT NULL,
          params TEXT NOT NULL,                         -- JSON: the POST /api/v1/statuses parameters
          created_at INTEGER NOT NULL
        );
        CREATE INDEX scheduled_statuses_due ON scheduled_statuses (scheduled_at);

        CREATE TABLE media_attachments (
          id INTEGER PRIMARY KEY,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          status_id INTEGER REFERENCES statuses(id) ON DELETE SET NULL,
          scheduled_status_id INTEGER REFERENCES scheduled_statuses(id) ON DELETE SET NULL,
          type TEXT NOT NULL CHECK (type IN ('image', 'gifv', 'video', 'audio', 'unknown')),
          file_path TEXT,                               -- under the media directory
          content_type TEXT,
          file_size INTEGER,
          thumbnail_path TEXT,
          preview_path TEXT,
          remote_url TEXT,
          description TEXT,
          blurhash TEXT,
          meta TEXT NOT NULL DEFAULT '{}',              -- JSON: original/small sizes, focus, duration
          processing TEXT NOT NULL DEFAULT 'done' CHECK (processing IN ('queued', 'in_progress', 'done', 'failed')),
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );
        CREATE INDEX media_attachments_status ON media_attachments (status_id) WHERE status_id IS NOT NULL;
        CREATE INDEX media_attachments_unattached ON media_attachments (account_id, created_at) WHERE status_id IS NULL;

        CREATE TABLE polls (
          id INTEGER PRIMARY KEY,
          status_id INTEGER REFERENCES statuses(id) ON DELETE CASCADE,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          options TEXT NOT NULL,                        -- JSON list of titles
          cached_tallies TEXT NOT NULL DEFAULT '[]',    -- remote polls: counts as reported
          multiple INTEGER NOT NULL DEFAULT 0,
          hide_totals INTEGER NOT NULL DEFAULT 0,
          votes_count INTEGER NOT NULL DEFAULT 0,
          voters_count INTEGER,
          expires_at INTEGER,
          expiry_notified_at INTEGER,                   -- set once, so expiry notifies exactly once
          last_fetched_at INTEGER,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );
        CREATE INDEX polls_expiry ON polls (expires_at) WHERE expiry_notified_at IS NULL;

        CREATE TABLE poll_votes (
          id INTEGER PRIMARY KEY,
          poll_id INTEGER NOT NULL REFERENCES polls(id) ON DELETE CASCADE,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          choice INTEGER NOT NULL,
          uri TEXT,
          created_at INTEGER NOT NULL,
          UNIQUE (poll_id, account_id, choice)
        );`;

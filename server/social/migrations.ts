import { searchableText } from './store/search.ts';
import type { Migration } from '../db/index.ts';

/*
 * The social server's schema (social.db). Conventions:
 * - ids are snowflakes (ms timestamp << 16 | sequence) stored as INTEGER and read as BigInt
 *   (the database runs with safeIntegers); the API shows them as decimal strings;
 * - times are INTEGER milliseconds since the epoch; booleans are INTEGER 0/1;
 * - accounts cover local and remote (federated) actors: `domain` is NULL for local ones, and a local
 *   account has a `users` row behind it (e-mail, password, confirmation, approval, role).
 * Part 2 (statuses, media, polls, timelines, notifications, conversations, scheduled statuses) uses the
 * tables of version 3 and adds home feeds, counters and indexes in version 4.
 */
export const socialMigrations: Migration[] = [
  {
    version: 1,
    name: 'settings',
    up(db) {
      db.exec(`CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
    },
  },
  {
    version: 2,
    name: 'accounts, users, oauth, relationships, instance',
    up(db) {
      db.exec(`
        CREATE TABLE accounts (
          id INTEGER PRIMARY KEY,
          username TEXT NOT NULL,
          domain TEXT,                                  -- NULL for local accounts (punycode, lower case otherwise)
          uri TEXT UNIQUE,                              -- ActivityPub actor id; NULL for local (derived from the domain)
          url TEXT,                                     -- profile page of a remote account
          actor_type TEXT NOT NULL DEFAULT 'Person',    -- Person, Service (bot), Group, Application, Organization
          display_name TEXT NOT NULL DEFAULT '',
          note TEXT NOT NULL DEFAULT '',                -- plain source text for local accounts, HTML for remote ones
          fields TEXT NOT NULL DEFAULT '[]',            -- JSON [{name, value, verified_at}]
          avatar_file TEXT,                             -- path under the media directory
          avatar_remote_url TEXT,
          avatar_description TEXT NOT NULL DEFAULT '',
          header_file TEXT,
          header_remote_url TEXT,
          header_description TEXT NOT NULL DEFAULT '',
          locked INTEGER NOT NULL DEFAULT 0,
          discoverable INTEGER,
          indexable INTEGER NOT NULL DEFAULT 0,
          hide_collections INTEGER,
          memorial INTEGER NOT NULL DEFAULT 0,
          moved_to_account_id INTEGER REFERENCES accounts(id) ON DELETE SET NULL,
          also_known_as TEXT NOT NULL DEFAULT '[]',      -- JSON list of actor URIs
          attribution_domains TEXT NOT NULL DEFAULT '[]',
          inbox_url TEXT,
          shared_inbox_url TEXT,
          outbox_url TEXT,
          followers_url TEXT,
          following_url TEXT,
          featured_url TEXT,
          public_key TEXT NOT NULL DEFAULT '',          -- PEM
          private_key TEXT,                             -- PEM, local accounts only
          suspended_at INTEGER,
          silenced_at INTEGER,
          deleted_at INTEGER,                           -- local account deleted by its owner or staff; the name stays taken
          last_webfingered_at INTEGER,
          fetched_at INTEGER,                           -- remote: when the actor document was last read
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );
        CREATE UNIQUE INDEX accounts_handle ON accounts (lower(username), coalesce(domain, ''));
        CREATE INDEX accounts_domain ON accounts (domain) WHERE domain IS NOT NULL;
        CREATE INDEX accounts_moved_to ON accounts (moved_to_account_id) WHERE moved_to_account_id IS NOT NULL;

        -- Counters of remote accounts as their server reports them (local counters are counted from rows).
        CREATE TABLE account_stats (
          account_id INTEGER PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
          statuses_count INTEGER NOT NULL DEFAULT 0,
          following_count INTEGER NOT NULL DEFAULT 0,
          followers_count INTEGER NOT NULL DEFAULT 0,
          last_status_at INTEGER
        );

        CREATE TABLE oauth_applications (
          id INTEGER PRIMARY KEY,
          name TEXT NOT NULL,
          website TEXT,
          redirect_uris TEXT NOT NULL,                  -- newline separated
          scopes TEXT NOT NULL,                         -- space separated
          client_id TEXT NOT NULL UNIQUE,
          client_secret_hash TEXT NOT NULL,             -- sha256 hex
          builtin INTEGER NOT NULL DEFAULT 0,           -- Homeport's own (CLI and UI tokens)
          created_at INTEGER NOT NULL
        );

        CREATE TABLE users (
          id INTEGER PRIMARY KEY,
          account_id INTEGER NOT NULL UNIQUE REFERENCES accounts(id) ON DELETE CASCADE,
          email TEXT NOT NULL,
          password_hash TEXT,                           -- scrypt$N$r$p$salt$hash
          role TEXT NOT NULL DEFAULT 'user' CHECK (role IN ('owner', 'admin', 'moderator', 'user')),
          locale TEXT,
          confirmed_at INTEGER,
          confirmation_token_hash TEXT UNIQUE,
          confirmation_sent_at INTEGER,
          approved INTEGER NOT NULL DEFAULT 1,
          disabled INTEGER NOT NULL DEFAULT 0,
          created_by_application_id INTEGER REFERENCES oauth_applications(id) ON DELETE SET NULL,
          sign_up_ip TEXT,
          reason TEXT,
          date_of_birth TEXT,
          settings TEXT NOT NULL DEFAULT '{}',          -- JSON: posting defaults, reading preferences
          current_sign_in_at INTEGER,
          last_sign_in_at INTEGER,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );
        CREATE UNIQUE INDEX users_email ON users (lower(email));

        CREATE TABLE oauth_access_grants (
          id INTEGER PRIMARY KEY,
          application_id INTEGER NOT NULL REFERENCES oauth_applications(id) ON DELETE CASCADE,
          user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          code_hash TEXT NOT NULL UNIQUE,
          redirect_uri TEXT NOT NULL,
          scopes TEXT NOT NULL,
          code_challenge TEXT,
          code_challenge_method TEXT,
          expires_at INTEGER NOT NULL,
          used_at INTEGER,
          created_at INTEGER NOT NULL
        );

        CREATE TABLE oauth_access_tokens (
          id INTEGER PRIMARY KEY,
          application_id INTEGER NOT NULL REFERENCES oauth_applications(id) ON DELETE CASCADE,
          user_id INTEGER REFERENCES users(id) ON DELETE CASCADE,   -- NULL for client-credentials tokens
          token_hash TEXT NOT NULL UNIQUE,
          scopes TEXT NOT NULL,
          grant_id INTEGER REFERENCES oauth_access_grants(id) ON DELETE SET NULL,
          created_at INTEGER NOT NULL,
          last_used_at INTEGER,
          revoked_at INTEGER
        );
        CREATE INDEX oauth_access_tokens_user ON oauth_access_tokens (user_id, application_id);

        -- Browser sessions of the sign-in and consent pages (/oauth/authorize).
        CREATE TABLE web_sessions (
          id INTEGER PRIMARY KEY,
          user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          session_hash TEXT NOT NULL UNIQUE,
          csrf_token TEXT NOT NULL,
          ip TEXT,
          user_agent TEXT,
          created_at INTEGER NOT NULL,
          expires_at INTEGER NOT NULL
        );

        CREATE TABLE follows (
          id INTEGER PRIMARY KEY,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          target_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          show_reblogs INTEGER NOT NULL DEFAULT 1,
          notify INTEGER NOT NULL DEFAULT 0,
          languages TEXT,                               -- JSON list or NULL for all
          uri TEXT,
          created_at INTEGER NOT NULL,
          UNIQUE (account_id, target_account_id)
        );
        CREATE INDEX follows_target ON follows (target_account_id, account_id);

        CREATE TABLE follow_requests (
          id INTEGER PRIMARY KEY,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          target_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          show_reblogs INTEGER NOT NULL DEFAULT 1,
          notify INTEGER NOT NULL DEFAULT 0,
          languages TEXT,
          uri TEXT,
          created_at INTEGER NOT NULL,
          UNIQUE (account_id, target_account_id)
        );
        CREATE INDEX follow_requests_target ON follow_requests (target_account_id, id);

        CREATE TABLE blocks (
          id INTEGER PRIMARY KEY,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          target_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          uri TEXT,
          created_at INTEGER NOT NULL,
          UNIQUE (account_id, target_account_id)
        );
        CREATE INDEX blocks_target ON blocks (target_account_id, account_id);

        CREATE TABLE mutes (
          id INTEGER PRIMARY KEY,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          target_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          hide_notifications INTEGER NOT NULL DEFAULT 1,
          expires_at INTEGER,                           -- NULL = until unmuted
          created_at INTEGER NOT NULL,
          UNIQUE (account_id, target_account_id)
        );
        CREATE INDEX mutes_expiry ON mutes (expires_at) WHERE expires_at IS NOT NULL;

        CREATE TABLE account_notes (
          id INTEGER PRIMARY KEY,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          target_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          comment TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL,
          UNIQUE (account_id, target_account_id)
        );

        -- Accounts a user features on their profile (endorse, formerly "pin").
        CREATE TABLE account_pins (
          id INTEGER PRIMARY KEY,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          target_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          created_at INTEGER NOT NULL,
          UNIQUE (account_id, target_account_id)
        );

        -- A user's own domain blocks (/api/v1/domain_blocks).
        CREATE TABLE account_domain_blocks (
          id INTEGER PRIMARY KEY,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          domain TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          UNIQUE (account_id, domain)
        );

        CREATE TABLE account_suggestion_dismissals (
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          target_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          created_at INTEGER NOT NULL,
          PRIMARY KEY (account_id, target_account_id)
        );

        -- Server-wide moderation (admin API).
        CREATE TABLE domain_blocks (
          id INTEGER PRIMARY KEY,
          domain TEXT NOT NULL UNIQUE,
          severity TEXT NOT NULL CHECK (severity IN ('silence', 'suspend', 'noop')),
          reject_media INTEGER NOT NULL DEFAULT 0,
          reject_reports INTEGER NOT NULL DEFAULT 0,
          private_comment TEXT,
          public_comment TEXT,
          obfuscate INTEGER NOT NULL DEFAULT 0,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );
        CREATE TABLE domain_allows (
          id INTEGER PRIMARY KEY,
          domain TEXT NOT NULL UNIQUE,
          created_at INTEGER NOT NULL
        );

        CREATE TABLE rules (
          id INTEGER PRIMARY KEY,
          text TEXT NOT NULL,
          hint TEXT NOT NULL DEFAULT '',
          position INTEGER NOT NULL DEFAULT 0,
          created_at INTEGER NOT NULL,
          deleted_at INTEGER
        );

        -- Every e-mail the server wrote: sent through SMTP when configured, otherwise kept here for the owner's UI.
        CREATE TABLE email_outbox (
          id INTEGER PRIMARY KEY,
          to_address TEXT NOT NULL,
          subject TEXT NOT NULL,
          text_body TEXT NOT NULL,
          html_body TEXT,
          transport TEXT NOT NULL CHECK (transport IN ('smtp', 'local')),
          status TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'failed', 'stored')),
          error TEXT,
          created_at INTEGER NOT NULL,
          sent_at INTEGER
        );
      `);
    },
  },
  {
    version: 3,
    name: 'statuses, media, polls, notifications, conversations, lists, filters, push',
    up(db) {
      db.exec(`
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
        CREATE INDEX mentions_account ON mentions (account_id, status_id);

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
        );

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
        );

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
        );

        CREATE TABLE notifications (
          id INTEGER PRIMARY KEY,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,      -- recipient
          from_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          type TEXT NOT NULL,                           -- mention, status, reblog, follow, follow_request, favourite, poll, update, quote, admin.sign_up, admin.report, ...
          status_id INTEGER REFERENCES statuses(id) ON DELETE CASCADE,
          report_id INTEGER,
          group_key TEXT,
          filtered INTEGER NOT NULL DEFAULT 0,
          created_at INTEGER NOT NULL
        );
        CREATE INDEX notifications_account ON notifications (account_id, id);
        CREATE INDEX notifications_from ON notifications (from_account_id, account_id);

        CREATE TABLE lists (
          id INTEGER PRIMARY KEY,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          title TEXT NOT NULL,
          replies_policy TEXT NOT NULL DEFAULT 'list' CHECK (replies_policy IN ('followed', 'list', 'none')),
          exclusive INTEGER NOT NULL DEFAULT 0,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );
        CREATE INDEX lists_account ON lists (account_id);
        CREATE TABLE list_accounts (
          id INTEGER PRIMARY KEY,
          list_id INTEGER NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          UNIQUE (list_id, account_id)
        );
        CREATE INDEX list_accounts_account ON list_accounts (account_id);

        CREATE TABLE markers (
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          timeline TEXT NOT NULL CHECK (timeline IN ('home', 'notifications')),
          last_read_id INTEGER NOT NULL,
          version INTEGER NOT NULL DEFAULT 0,
          updated_at INTEGER NOT NULL,
          PRIMARY KEY (account_id, timeline)
        ) WITHOUT ROWID;

        CREATE TABLE filters (
          id INTEGER PRIMARY KEY,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          title TEXT NOT NULL,
          context TEXT NOT NULL,                        -- JSON list: home, notifications, public, thread, account
          action TEXT NOT NULL DEFAULT 'warn' CHECK (action IN ('warn', 'hide', 'blur')),
          expires_at INTEGER,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );
        CREATE TABLE filter_keywords (
          id INTEGER PRIMARY KEY,
          filter_id INTEGER NOT NULL REFERENCES filters(id) ON DELETE CASCADE,
          keyword TEXT NOT NULL,
          whole_word INTEGER NOT NULL DEFAULT 1,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );
        CREATE TABLE filter_statuses (
          id INTEGER PRIMARY KEY,
          filter_id INTEGER NOT NULL REFERENCES filters(id) ON DELETE CASCADE,
          status_id INTEGER NOT NULL REFERENCES statuses(id) ON DELETE CASCADE,
          created_at INTEGER NOT NULL,
          UNIQUE (filter_id, status_id)
        );

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
        ) WITHOUT ROWID;

        CREATE TABLE reports (
          id INTEGER PRIMARY KEY,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          target_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          status_ids TEXT NOT NULL DEFAULT '[]',
          rule_ids TEXT NOT NULL DEFAULT '[]',
          comment TEXT NOT NULL DEFAULT '',
          category TEXT NOT NULL DEFAULT 'other' CHECK (category IN ('spam', 'legal', 'violation', 'other')),
          forwarded INTEGER NOT NULL DEFAULT 0,
          uri TEXT,
          action_taken_at INTEGER,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );

        CREATE TABLE custom_emojis (
          id INTEGER PRIMARY KEY,
          shortcode TEXT NOT NULL,
          domain TEXT,
          uri TEXT,
          image_path TEXT,
          image_remote_url TEXT,
          category TEXT,
          visible_in_picker INTEGER NOT NULL DEFAULT 1,
          disabled INTEGER NOT NULL DEFAULT 0,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );
        CREATE UNIQUE INDEX custom_emojis_shortcode ON custom_emojis (shortcode, coalesce(domain, ''));

        CREATE TABLE preview_cards (
          id INTEGER PRIMARY KEY,
          url TEXT NOT NULL UNIQUE,
          type TEXT NOT NULL DEFAULT 'link',
          title TEXT NOT NULL DEFAULT '',
          description TEXT NOT NULL DEFAULT '',
          data TEXT NOT NULL DEFAULT '{}',              -- JSON: author, provider, html, sizes, image, embed url
          trendable INTEGER,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );
        CREATE TABLE preview_cards_statuses (
          status_id INTEGER NOT NULL PRIMARY KEY REFERENCES statuses(id) ON DELETE CASCADE,
          preview_card_id INTEGER NOT NULL REFERENCES preview_cards(id) ON DELETE CASCADE
        );
      `);
    },
  },
  {
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
  },
  {
    version: 5,
    name: 'index of unavailable accounts',
    up(db) {
      // Timelines check every status's author; looking the author up in this (nearly always empty) index is
      // far cheaper than reading account rows, which are large (they hold key pairs).
      db.exec(
        `CREATE INDEX accounts_unavailable ON accounts (id) WHERE suspended_at IS NOT NULL OR deleted_at IS NOT NULL`,
      );
    },
  },
  {
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
  },
  {
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
  },
  {
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
  },
  {
    version: 9,
    name: 'full-text search over statuses; statuses by ActivityPub id and address',
    up(db) {
      // Inbound activities and pasted links name remote statuses by uri or url: without these, each lookup read every status.
      db.exec(`
        CREATE INDEX statuses_uri ON statuses (uri) WHERE uri IS NOT NULL;
        CREATE INDEX statuses_url ON statuses (url) WHERE url IS NOT NULL;
      `);
      // The words of each status (content warning and text; remote ones from their HTML), for /api/v2/search.
      // Deleted statuses stay in the index and are left out by the query, which joins statuses.
      db.exec(`CREATE VIRTUAL TABLE statuses_fts USING fts5(body, tokenize = 'unicode61 remove_diacritics 2')`);
      const insert = db.prepare('INSERT INTO statuses_fts (rowid, body) VALUES (?, ?)');
      // In batches by id: a connection may not write while one of its reads is still open (no iterate() here).
      const batch = db
        .prepare(
          'SELECT id, text, content, spoiler_text FROM statuses WHERE id > ? AND reblog_of_id IS NULL AND deleted_at IS NULL ORDER BY id LIMIT 2000',
        )
        .safeIntegers(true);
      let after = -1n;
      for (;;) {
        const rows = batch.all(after) as { id: bigint; text: string; content: string; spoiler_text: string }[];
        if (rows.length === 0) break;
        for (const r of rows) insert.run(r.id, searchableText(r.spoiler_text, r.text, r.content));
        after = rows[rows.length - 1].id;
      }
    },
  },
  {
    version: 10,
    name: 'notification groups',
    up(db) {
      // A new favourite, reblog, follow or sign-up looks up the newest group of its kind; the grouped API reads groups whole.
      db.exec('CREATE INDEX notifications_group ON notifications (account_id, group_key) WHERE group_key IS NOT NULL');
    },
  },
  {
    version: 11,
    name: 'the first web push table, never used, gives way to push_subscriptions',
    up(db) {
      db.exec('DROP TABLE IF EXISTS web_push_subscriptions');
    },
  },
  {
    version: 12,
    name: 'reports by the account they are about',
    up(db) {
      // (notifications.report_id, which admin.report notifications fill, exists since the first schema.)
      db.exec('CREATE INDEX reports_target ON reports (target_account_id, id)');
    },
  },
  {
    version: 13,
    name: 'notification policies and requests',
    up(db) {
      // notifications.filtered (first schema) marks those a policy holds back; a request gathers them per sender.
      db.exec(`
        CREATE TABLE notification_policies (
          account_id INTEGER PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
          for_not_following TEXT NOT NULL DEFAULT 'accept' CHECK (for_not_following IN ('accept', 'filter', 'drop')),
          for_not_followers TEXT NOT NULL DEFAULT 'accept' CHECK (for_not_followers IN ('accept', 'filter', 'drop')),
          for_new_accounts TEXT NOT NULL DEFAULT 'accept' CHECK (for_new_accounts IN ('accept', 'filter', 'drop')),
          for_private_mentions TEXT NOT NULL DEFAULT 'filter' CHECK (for_private_mentions IN ('accept', 'filter', 'drop')),
          for_limited_accounts TEXT NOT NULL DEFAULT 'filter' CHECK (for_limited_accounts IN ('accept', 'filter', 'drop')),
          updated_at INTEGER NOT NULL
        );
        CREATE TABLE notification_requests (
          id INTEGER PRIMARY KEY,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          from_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          last_status_id INTEGER REFERENCES statuses(id) ON DELETE SET NULL,
          notifications_count INTEGER NOT NULL DEFAULT 0,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL,
          UNIQUE (account_id, from_account_id)
        );
        CREATE TABLE notification_permissions (
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          from_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          created_at INTEGER NOT NULL,
          PRIMARY KEY (account_id, from_account_id)
        ) WITHOUT ROWID;
        CREATE INDEX notifications_filtered ON notifications (account_id, from_account_id) WHERE filtered = 1;
      `);
    },
  },
  {
    version: 14,
    name: 'collections of accounts',
    up(db) {
      db.exec(`
        CREATE TABLE collections (
          id INTEGER PRIMARY KEY,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          name TEXT NOT NULL,
          description TEXT NOT NULL DEFAULT '',
          language TEXT,
          sensitive INTEGER NOT NULL DEFAULT 0,
          discoverable INTEGER NOT NULL DEFAULT 1,
          tag_id INTEGER REFERENCES tags(id) ON DELETE SET NULL,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );
        CREATE INDEX collections_account ON collections (account_id, id);
        CREATE TABLE collection_items (
          id INTEGER PRIMARY KEY,
          collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          state TEXT NOT NULL CHECK (state IN ('pending', 'accepted', 'rejected', 'revoked')),
          position INTEGER NOT NULL,
          created_at INTEGER NOT NULL,
          UNIQUE (collection_id, account_id)
        );
        CREATE INDEX collection_items_account ON collection_items (account_id);
      `);
    },
  },
  {
    version: 15,
    name: 'moderation: sensitized accounts, report handling, e-mail and IP blocks',
    up(db) {
      db.exec(`
        ALTER TABLE accounts ADD COLUMN sensitized_at INTEGER;
        ALTER TABLE reports ADD COLUMN assigned_account_id INTEGER REFERENCES accounts(id) ON DELETE SET NULL;
        ALTER TABLE reports ADD COLUMN action_taken_by_account_id INTEGER REFERENCES accounts(id) ON DELETE SET NULL;
        CREATE INDEX reports_open ON reports (action_taken_at, id);
        CREATE TABLE email_domain_blocks (
          id INTEGER PRIMARY KEY,
          domain TEXT NOT NULL UNIQUE,
          created_at INTEGER NOT NULL
        );
        CREATE TABLE canonical_email_blocks (
          id INTEGER PRIMARY KEY,
          canonical_email_hash TEXT NOT NULL UNIQUE,
          created_at INTEGER NOT NULL
        );
        CREATE TABLE ip_blocks (
          id INTEGER PRIMARY KEY,
          ip TEXT NOT NULL UNIQUE,
          severity TEXT NOT NULL CHECK (severity IN ('sign_up_requires_approval', 'sign_up_block', 'no_access')),
          comment TEXT NOT NULL DEFAULT '',
          expires_at INTEGER,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );
      `);
    },
  },
  {
    version: 16,
    name: 'quote posts',
    up(db) {
      db.exec(`
        CREATE TABLE quotes (
          id INTEGER PRIMARY KEY,
          status_id INTEGER NOT NULL UNIQUE REFERENCES statuses(id) ON DELETE CASCADE,
          quoted_status_id INTEGER REFERENCES statuses(id) ON DELETE SET NULL,
          quoted_account_id INTEGER REFERENCES accounts(id) ON DELETE SET NULL,
          state TEXT NOT NULL CHECK (state IN ('pending', 'accepted', 'rejected', 'revoked')),
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );
        CREATE INDEX quotes_quoted ON quotes (quoted_status_id, id);
      `);
    },
  },
  {
    version: 17,
    name: 'moderation warnings',
    up(db) {
      db.exec(`
        CREATE TABLE account_warnings (
          id INTEGER PRIMARY KEY,
          account_id INTEGER REFERENCES accounts(id) ON DELETE SET NULL,
          target_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          action TEXT NOT NULL,
          text TEXT NOT NULL DEFAULT '',
          status_ids TEXT NOT NULL DEFAULT '[]',
          created_at INTEGER NOT NULL
        );
        ALTER TABLE notifications ADD COLUMN account_warning_id INTEGER REFERENCES account_warnings(id) ON DELETE CASCADE;
      `);
    },
  },
  {
    version: 18,
    name: 'quote posts across servers',
    up(db) {
      // FEP-044f: the QuoteRequest a quote was asked with, the QuoteAuthorization stamp that allowed it, and
      // whether it came without the `quote` property (Misskey, Akkoma): such quotes are never approved.
      db.exec(`
        ALTER TABLE quotes ADD COLUMN activity_uri TEXT;
        ALTER TABLE quotes ADD COLUMN approval_uri TEXT;
        ALTER TABLE quotes ADD COLUMN legacy INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX quotes_activity_uri ON quotes (activity_uri) WHERE activity_uri IS NOT NULL;
        CREATE INDEX quotes_approval_uri ON quotes (approval_uri) WHERE approval_uri IS NOT NULL;
      `);
    },
  },
  {
    version: 19,
    name: 'link preview cards',
    up(db) {
      // Mastodon's PreviewCard: one per page (by its final or canonical URL), shared by the statuses linking to
      // it; version 3 made placeholder tables nothing ever wrote, replaced here. `card_fetches` remembers what
      // fetching a posted link gave (a card, or none) so each link is fetched once in a while, not once per post.
      // `preview_cards_statuses.url` is the link as the post wrote it (shown as the card's url, Mastodon's original_url).
      db.exec(`
        DROP TABLE IF EXISTS preview_cards_statuses;
        DROP TABLE IF EXISTS preview_cards;
        CREATE TABLE preview_cards (
          id INTEGER PRIMARY KEY,
          url TEXT NOT NULL UNIQUE,
          title TEXT NOT NULL DEFAULT '',
          description TEXT NOT NULL DEFAULT '',
          type TEXT NOT NULL DEFAULT 'link' CHECK (type IN ('link', 'photo', 'video', 'rich')),
          author_name TEXT NOT NULL DEFAULT '',
          author_url TEXT NOT NULL DEFAULT '',
          provider_name TEXT NOT NULL DEFAULT '',
          provider_url TEXT NOT NULL DEFAULT '',
          html TEXT NOT NULL DEFAULT '',
          width INTEGER NOT NULL DEFAULT 0,
          height INTEGER NOT NULL DEFAULT 0,
          image_file TEXT,                              -- path under the media directory
          image_description TEXT NOT NULL DEFAULT '',
          blurhash TEXT,
          embed_url TEXT NOT NULL DEFAULT '',
          language TEXT,
          published_at INTEGER,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );
        CREATE TABLE card_fetches (
          url TEXT PRIMARY KEY,
          card_id INTEGER REFERENCES preview_cards(id) ON DELETE SET NULL,
          fetched_at INTEGER NOT NULL
        );
        CREATE TABLE preview_cards_statuses (
          status_id INTEGER PRIMARY KEY REFERENCES statuses(id) ON DELETE CASCADE,
          preview_card_id INTEGER NOT NULL REFERENCES preview_cards(id) ON DELETE CASCADE,
          url TEXT NOT NULL
        );
        CREATE INDEX preview_cards_statuses_card ON preview_cards_statuses (preview_card_id);
      `);
    },
  },
  {
    version: 20,
    name: 'status counters, status versions following quotes and cards',
    up(db) {
      // Replies, reblogs, favourites and quotes of each status, kept by triggers (Mastodon's status_stats) so
      // that every process writing statuses, the admin CLI included, keeps them exact; a timeline page reads
      // them by key instead of counting rows of three tables. Replies, reblogs and quotes are recounted for
      // the one status a write touches (their rules depend on the counted rows' state); favourites, which
      // count every row, are incremented.
      const ifStatus = (id: string) => `WHERE EXISTS (SELECT 1 FROM statuses WHERE id = ${id})`;
      const upsert = (column: string, id: string, count: string) =>
        `INSERT INTO status_stats (status_id, ${column}) SELECT ${id}, (${count}) ${ifStatus(id)} ON CONFLICT (status_id) DO UPDATE SET ${column} = excluded.${column};`;
      const replies = (id: string) =>
        upsert(
          'replies_count',
          id,
          `SELECT COUNT(*) FROM statuses r WHERE r.in_reply_to_id = ${id} AND r.deleted_at IS NULL AND r.visibility != 'direct'`,
        );
      const reblogs = (id: string) =>
        upsert(
          'reblogs_count',
          id,
          `SELECT COUNT(*) FROM statuses r WHERE r.reblog_of_id = ${id} AND r.deleted_at IS NULL`,
        );
      const quotes = (id: string) =>
        upsert(
          'quotes_count',
          id,
          `SELECT COUNT(*) FROM quotes q JOIN statuses r ON r.id = q.status_id WHERE q.quoted_status_id = ${id} AND q.state = 'accepted' AND r.deleted_at IS NULL`,
        );
      db.exec(`
        CREATE TABLE status_stats (
          status_id INTEGER PRIMARY KEY REFERENCES statuses(id) ON DELETE CASCADE,
          replies_count INTEGER NOT NULL DEFAULT 0,      -- not deleted, not direct
          reblogs_count INTEGER NOT NULL DEFAULT 0,      -- not deleted
          favourites_count INTEGER NOT NULL DEFAULT 0,
          quotes_count INTEGER NOT NULL DEFAULT 0        -- accepted, quoting status not deleted
        );
        INSERT INTO status_stats (status_id, replies_count)
          SELECT in_reply_to_id, COUNT(*) FROM statuses WHERE in_reply_to_id IS NOT NULL AND deleted_at IS NULL AND visibility != 'direct' GROUP BY in_reply_to_id;
        INSERT INTO status_stats (status_id, reblogs_count)
          SELECT reblog_of_id, COUNT(*) FROM statuses WHERE reblog_of_id IS NOT NULL AND deleted_at IS NULL GROUP BY reblog_of_id
          ON CONFLICT (status_id) DO UPDATE SET reblogs_count = excluded.reblogs_count;
        INSERT INTO status_stats (status_id, favourites_count)
          SELECT status_id, COUNT(*) FROM favourites WHERE true GROUP BY status_id
          ON CONFLICT (status_id) DO UPDATE SET favourites_count = excluded.favourites_count;
        INSERT INTO status_stats (status_id, quotes_count)
          SELECT q.quoted_status_id, COUNT(*) FROM quotes q JOIN statuses r ON r.id = q.status_id
          WHERE q.quoted_status_id IS NOT NULL AND q.state = 'accepted' AND r.deleted_at IS NULL GROUP BY q.quoted_status_id
          ON CONFLICT (status_id) DO UPDATE SET quotes_count = excluded.quotes_count;

        CREATE TRIGGER status_stats_status_insert AFTER INSERT ON statuses
          WHEN NEW.in_reply_to_id IS NOT NULL OR NEW.reblog_of_id IS NOT NULL BEGIN
          ${replies('NEW.in_reply_to_id')}
          ${reblogs('NEW.reblog_of_id')}
        END;
        CREATE TRIGGER status_stats_status_update AFTER UPDATE OF deleted_at, visibility, in_reply_to_id, reblog_of_id ON statuses
          WHEN OLD.deleted_at IS NOT NEW.deleted_at OR OLD.visibility IS NOT NEW.visibility
            OR OLD.in_reply_to_id IS NOT NEW.in_reply_to_id OR OLD.reblog_of_id IS NOT NEW.reblog_of_id BEGIN
          ${replies('OLD.in_reply_to_id')}
          ${replies('NEW.in_reply_to_id')}
          ${reblogs('OLD.reblog_of_id')}
          ${reblogs('NEW.reblog_of_id')}
          ${quotes('(SELECT quoted_status_id FROM quotes WHERE status_id = NEW.id)')}
        END;
        CREATE TRIGGER status_stats_status_delete AFTER DELETE ON statuses
          WHEN OLD.in_reply_to_id IS NOT NULL OR OLD.reblog_of_id IS NOT NULL BEGIN
          ${replies('OLD.in_reply_to_id')}
          ${reblogs('OLD.reblog_of_id')}
        END;
        CREATE TRIGGER status_stats_favourite_insert AFTER INSERT ON favourites BEGIN
          INSERT INTO status_stats (status_id, favourites_count) VALUES (NEW.status_id, 1)
            ON CONFLICT (status_id) DO UPDATE SET favourites_count = favourites_count + 1;
        END;
        CREATE TRIGGER status_stats_favourite_delete AFTER DELETE ON favourites BEGIN
          UPDATE status_stats SET favourites_count = favourites_count - 1 WHERE status_id = OLD.status_id;
        END;
        CREATE TRIGGER status_stats_quote_insert AFTER INSERT ON quotes WHEN NEW.quoted_status_id IS NOT NULL BEGIN
          ${quotes('NEW.quoted_status_id')}
        END;
        CREATE TRIGGER status_stats_quote_update AFTER UPDATE OF state, quoted_status_id, status_id ON quotes BEGIN
          ${quotes('OLD.quoted_status_id')}
          ${quotes('NEW.quoted_status_id')}
        END;
        CREATE TRIGGER status_stats_quote_delete AFTER DELETE ON quotes WHEN OLD.quoted_status_id IS NOT NULL BEGIN
          ${quotes('OLD.quoted_status_id')}
        END;
      `);
      // A status's version (updated_at) moves whenever its quote or its link card changes, whatever wrote it:
      // its serialization, with quote and card, is cached per version (entities/status.ts).
      const bump = (ids: string) => `UPDATE statuses SET updated_at = updated_at + 1 WHERE id IN (${ids});`;
      for (const [table, key] of [
        ['quotes', 'status_id'],
        ['preview_cards_statuses', 'status_id'],
      ]) {
        db.exec(`
          CREATE TRIGGER status_version_${table}_insert AFTER INSERT ON ${table} BEGIN ${bump(`NEW.${key}`)} END;
          CREATE TRIGGER status_version_${table}_update AFTER UPDATE ON ${table} BEGIN ${bump(`OLD.${key}, NEW.${key}`)} END;
          CREATE TRIGGER status_version_${table}_delete AFTER DELETE ON ${table} BEGIN ${bump(`OLD.${key}`)} END;
        `);
      }
      db.exec(
        `CREATE TRIGGER status_version_card_refresh AFTER UPDATE ON preview_cards BEGIN ${bump('SELECT status_id FROM preview_cards_statuses WHERE preview_card_id = NEW.id')} END;`,
      );
    },
  },
  {
    version: 21,
    name: 'trending links',
    up(db) {
      // Mastodon's PreviewCard#link_type (only articles trend) and #trendable (staff's review: NULL until
      // reviewed, and only allowed cards trend). Cards made before say 'unknown' until their page is fetched again.
      // Staff's review changes no status's card: the refresh trigger (version 20) now fires only for the
      // columns a card's JSON shows (a column added to PreviewCard's JSON must be added here).
      db.exec(`
        ALTER TABLE preview_cards ADD COLUMN link_type TEXT NOT NULL DEFAULT 'unknown' CHECK (link_type IN ('unknown', 'article'));
        ALTER TABLE preview_cards ADD COLUMN trendable INTEGER;
        DROP TRIGGER status_version_card_refresh;
        CREATE TRIGGER status_version_card_refresh AFTER UPDATE OF url, title, description, type, author_name, author_url, provider_name, provider_url,
            html, width, height, image_file, image_description, blurhash, embed_url, language, published_at, updated_at ON preview_cards BEGIN
          UPDATE statuses SET updated_at = updated_at + 1 WHERE id IN (SELECT status_id FROM preview_cards_statuses WHERE preview_card_id = NEW.id);
        END;
      `);
    },
  },
  {
    version: 22,
    name: 'account versions',
    up(db) {
      // Every change of an account row moves its updated_at, the version its cached row and serialization are kept
      // under: also a write that does not set it, or two writes in one millisecond.
      db.exec(`CREATE TRIGGER account_version AFTER UPDATE ON accounts WHEN NEW.updated_at <= OLD.updated_at
        BEGIN UPDATE accounts SET updated_at = OLD.updated_at + 1 WHERE id = NEW.id; END;`);
    },
  },
  {
    version: 23,
    name: 'csv imports in the background',
    up(db) {
      // Mastodon's BulkImport and BulkImportRow: an import stored whole when it is made, its rows worked off in
      // the background. A row leaves the table once imported; failed rows stay with their reason. One import of
      // a type per account is unfinished at a time.
      db.exec(`
        CREATE TABLE bulk_imports (
          id INTEGER PRIMARY KEY,
          account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          type TEXT NOT NULL,
          overwrite INTEGER NOT NULL DEFAULT 0,
          state TEXT NOT NULL CHECK (state IN ('scheduled', 'in_progress', 'finished')),
          total_items INTEGER NOT NULL,
          processed_items INTEGER NOT NULL DEFAULT 0,
          imported_items INTEGER NOT NULL DEFAULT 0,
          created_at INTEGER NOT NULL,
          finished_at INTEGER
        );
        CREATE INDEX bulk_imports_account ON bulk_imports (account_id, id);
        CREATE UNIQUE INDEX bulk_imports_unfinished ON bulk_imports (account_id, type) WHERE state <> 'finished';
        CREATE TABLE bulk_import_rows (
          id INTEGER PRIMARY KEY,
          bulk_import_id INTEGER NOT NULL REFERENCES bulk_imports(id) ON DELETE CASCADE,
          position INTEGER NOT NULL,                    -- 0-based, among the file's rows
          data TEXT NOT NULL,                           -- JSON, Mastodon's row keys (acct, show_reblogs, uri, list_name…)
          error TEXT                                    -- null: waiting; else why it failed
        );
        CREATE INDEX bulk_import_rows_pending ON bulk_import_rows (position, id) WHERE error IS NULL;
        CREATE INDEX bulk_import_rows_import ON bulk_import_rows (bulk_import_id, position);
      `);
    },
  },
  {
    version: 24,
    name: 'import rows count their interrupted lookups',
    up(db) {
      // A row whose lookup was under way when the server stopped (killed by what the lookup read) is looked up
      // again at the next start, but not forever: the worker fails it after a few such starts.
      db.exec('ALTER TABLE bulk_import_rows ADD COLUMN lookups_started INTEGER NOT NULL DEFAULT 0');
    },
  },
];

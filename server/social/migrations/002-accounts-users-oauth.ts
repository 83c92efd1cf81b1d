import type { Migration } from '../../db/index.ts';

export const migration: Migration = {
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
};

/** Version 3, part: Notifications, lists, timeline markers, filters. */
export const notificationsListsFiltersTables = `

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
        );`;

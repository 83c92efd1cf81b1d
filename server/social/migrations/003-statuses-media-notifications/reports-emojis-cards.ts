/** Version 3, part: Reports, custom emojis, link preview cards. */
export const reportsEmojisCardsTables = `

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
      `;

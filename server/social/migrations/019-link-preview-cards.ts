import type { Migration } from '../../db/index.ts';

export const migration: Migration = {
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
};

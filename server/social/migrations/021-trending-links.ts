import type { Migration } from '../../db/index.ts';

export const migration: Migration = {
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
};

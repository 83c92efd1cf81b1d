import type { Migration } from '../../db/index.ts';
import { searchableText } from '../store/search.ts';

export const migration: Migration = {
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
};

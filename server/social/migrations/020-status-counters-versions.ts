import type { Migration } from '../../db/index.ts';

export const migration: Migration = {
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
};

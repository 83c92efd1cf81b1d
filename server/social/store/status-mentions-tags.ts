import { bool, jsonIds, sqlBool, str, type StoreCore } from './store.ts';

export interface MentionRow {
  statusId: string;
  accountId: string;
  silent: boolean;
}

/** Whom a status mentions and which hashtags it carries (tags are made on first use). */
export class StatusMentionsAndTags {
  protected readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  insertMentions(statusId: string, accountIds: readonly string[], silent = false): void {
    const insert = this.core.sql(
      'INSERT INTO mentions (id, status_id, account_id, silent) VALUES (?, ?, ?, ?) ON CONFLICT (status_id, account_id) DO UPDATE SET silent = excluded.silent',
    );
    for (const accountId of accountIds) insert.run(this.core.ids.next(), statusId, accountId, sqlBool(silent));
  }

  /** Replaces the mentions of an edited status; returns the accounts that were not mentioned before. */
  replaceMentions(statusId: string, accountIds: readonly string[]): string[] {
    const before = new Set(this.mentions([statusId]).map((m) => m.accountId));
    this.core
      .sql('DELETE FROM mentions WHERE status_id = ? AND account_id NOT IN (SELECT value FROM json_each(?))')
      .run(statusId, jsonIds(accountIds));
    this.insertMentions(statusId, accountIds);
    return accountIds.filter((id) => !before.has(id));
  }

  mentions(statusIds: readonly string[]): MentionRow[] {
    if (statusIds.length === 0) return [];
    return (
      this.core
        .sql(
          'SELECT status_id, account_id, silent FROM mentions WHERE status_id IN (SELECT value FROM json_each(?)) ORDER BY id',
        )
        .all(jsonIds(statusIds)) as Record<string, unknown>[]
    ).map((r) => ({
      statusId: str(r.status_id),
      accountId: str(r.account_id),
      silent: bool(r.silent),
    }));
  }

  /** The id of a tag by name (case-insensitive); null when there is none. */
  tagId(name: string): string | null {
    const found = this.core.sql('SELECT id FROM tags WHERE lower(name) = lower(?)').get(name) as
      | { id: bigint }
      | undefined;
    return found ? str(found.id) : null;
  }

  /** The id of a tag by name (case-insensitive), created when unknown. */
  ensureTag(name: string): string {
    return this.tagId(name) ?? this.createTag(name, null);
  }

  private createTag(name: string, lastStatusAt: number | null): string {
    const id = this.core.ids.next();
    const now = this.core.now();
    this.core
      .sql(
        'INSERT INTO tags (id, name, display_name, last_status_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(id, name.toLowerCase(), name, lastStatusAt, now, now);
    return id;
  }

  /** Tag ids of names that exist (unknown names are left out). */
  tagIds(names: readonly string[]): string[] {
    return names.map((n) => this.tagId(n)).filter((id): id is string => id !== null);
  }

  /** Replaces the hashtags of a status (an edit, a remote update). */
  setTags(statusId: string, names: readonly string[]): void {
    this.core.sql('DELETE FROM statuses_tags WHERE status_id = ?').run(statusId);
    this.addTags(statusId, names);
  }

  /** The hashtags of a status just inserted (it has none yet: nothing to replace). */
  addTags(statusId: string, names: readonly string[]): void {
    const now = this.core.now();
    const insert = this.core.sql('INSERT OR IGNORE INTO statuses_tags (status_id, tag_id) VALUES (?, ?)');
    for (const name of names) {
      // A known tag is found and stamped in one statement (its lookup and its stamp were two).
      const known = this.core
        .sql('UPDATE tags SET last_status_at = ?, updated_at = ? WHERE lower(name) = lower(?) RETURNING id')
        .get(now, now, name) as { id: bigint } | undefined;
      insert.run(statusId, known ? str(known.id) : this.createTag(name, now));
    }
  }

  /** Tag names per status. */
  tags(statusIds: readonly string[]): Map<string, string[]> {
    const result = new Map<string, string[]>();
    if (statusIds.length === 0) return result;
    const rows = this.core
      .sql(
        'SELECT st.status_id, t.name FROM statuses_tags st JOIN tags t ON t.id = st.tag_id WHERE st.status_id IN (SELECT value FROM json_each(?)) ORDER BY t.name',
      )
      .all(jsonIds(statusIds)) as { status_id: bigint; name: string }[];
    for (const r of rows) {
      const key = str(r.status_id);
      const list = result.get(key) ?? [];
      list.push(r.name.toLowerCase());
      result.set(key, list);
    }
    return result;
  }
}

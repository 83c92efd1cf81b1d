import { bool, int, intOrNull, jsonIds, str, type StoreCore } from './store.ts';

export interface AnnouncementRow {
  id: string;
  text: string;
  allDay: boolean;
  startsAt: number | null;
  endsAt: number | null;
  publishedAt: number;
  updatedAt: number;
}

export interface ReactionCount {
  name: string;
  count: number;
  me: boolean;
}

function toAnnouncement(r: Record<string, unknown>): AnnouncementRow {
  return {
    id: str(r.id),
    text: String(r.text),
    allDay: bool(r.all_day),
    startsAt: intOrNull(r.starts_at),
    endsAt: intOrNull(r.ends_at),
    publishedAt: int(r.published_at ?? r.created_at),
    updatedAt: int(r.updated_at),
  };
}

/** The instance's announcements, who dismissed them and the reactions on them. */
export class AnnouncementRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  insert(input: { text: string; allDay: boolean; startsAt: number | null; endsAt: number | null }): string {
    const id = this.core.ids.next();
    const now = this.core.now();
    this.core
      .sql(
        'INSERT INTO announcements (id, text, published, all_day, starts_at, ends_at, published_at, created_at, updated_at) VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?)',
      )
      .run(id, input.text, input.allDay ? 1 : 0, input.startsAt, input.endsAt, now, now, now);
    return id;
  }

  delete(id: string): boolean {
    return this.core.sql('DELETE FROM announcements WHERE id = ?').run(id).changes > 0;
  }

  byId(id: string): AnnouncementRow | null {
    const r = this.core.sql('SELECT * FROM announcements WHERE id = ? AND published = 1').get(id) as
      | Record<string, unknown>
      | undefined;
    return r ? toAnnouncement(r) : null;
  }

  /** Published announcements not yet over, oldest first; without those the account dismissed unless `withDismissed`. */
  current(accountId: string | null, withDismissed: boolean): (AnnouncementRow & { read: boolean })[] {
    const rows = this.core
      .sql(
        `SELECT a.*, EXISTS (SELECT 1 FROM announcement_dismissals d WHERE d.announcement_id = a.id AND d.account_id = @account) AS read
         FROM announcements a WHERE a.published = 1 AND (a.ends_at IS NULL OR a.ends_at > @now) ORDER BY a.published_at, a.id`,
      )
      .all({ account: accountId, now: this.core.now() }) as Record<string, unknown>[];
    return rows.map((r) => ({ ...toAnnouncement(r), read: bool(r.read) })).filter((a) => withDismissed || !a.read);
  }

  /** Idempotent: dismissing twice is no error. */
  dismiss(accountId: string, id: string): void {
    this.core
      .sql('INSERT OR IGNORE INTO announcement_dismissals (announcement_id, account_id) VALUES (?, ?)')
      .run(id, accountId);
  }

  react(accountId: string, id: string, name: string): boolean {
    return (
      this.core
        .sql(
          'INSERT OR IGNORE INTO announcement_reactions (id, announcement_id, account_id, name, created_at) VALUES (?, ?, ?, ?, ?)',
        )
        .run(this.core.ids.next(), id, accountId, name, this.core.now()).changes > 0
    );
  }

  unreact(accountId: string, id: string, name: string): boolean {
    return (
      this.core
        .sql('DELETE FROM announcement_reactions WHERE announcement_id = ? AND account_id = ? AND name = ?')
        .run(id, accountId, name).changes > 0
    );
  }

  /** Reactions per announcement, in the order first used, with whether the account gave each. */
  reactions(ids: readonly string[], accountId: string | null): Map<string, ReactionCount[]> {
    const result = new Map<string, ReactionCount[]>();
    if (ids.length === 0) return result;
    const rows = this.core
      .sql(
        `SELECT announcement_id AS a, name, COUNT(*) AS n, MAX(account_id = @account) AS me, MIN(id) AS first FROM announcement_reactions
         WHERE announcement_id IN (SELECT value FROM json_each(@ids)) GROUP BY announcement_id, name ORDER BY first`,
      )
      .all({ ids: jsonIds(ids), account: accountId }) as { a: bigint; name: string; n: bigint; me: bigint | null }[];
    for (const r of rows) {
      const list = result.get(str(r.a)) ?? [];
      list.push({ name: r.name, count: int(r.n), me: r.me === 1n });
      result.set(str(r.a), list);
    }
    return result;
  }

  reactionCount(id: string, name: string): number {
    return int(
      (
        this.core
          .sql('SELECT COUNT(*) AS n FROM announcement_reactions WHERE announcement_id = ? AND name = ?')
          .get(id, name) as { n: bigint }
      ).n,
    );
  }
}

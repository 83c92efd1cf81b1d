import { rowMemo } from './row-memo.ts';
import type { StampMemo } from './stamp-memo.ts';
import { idOrNull, int, jsonIds, str, type StoreCore } from './store.ts';

/** What one account did to a set of statuses, for the flags of the Status entity. */
export interface ViewerFlags {
  favourited: Set<string>;
  reblogged: Set<string>;
  bookmarked: Set<string>;
  pinned: Set<string>;
  /** Conversation ids the viewer muted. */
  mutedConversations: Set<string>;
}

const FAVOURITED = 1;
const REBLOGGED = 2;
const BOOKMARKED = 4;
const PINNED = 8;
const FLAG_BITS = { f: FAVOURITED, r: REBLOGGED, b: BOOKMARKED, p: PINNED, m: 1 } as const;

/** Favourites, bookmarks, pins and conversation mutes. */
export class InteractionRepository {
  private readonly core: StoreCore;
  /** The viewers' flags of the statuses recent pages showed, until a write changes them (rowMemo). */
  private readonly pageFlags: StampMemo<number>;
  constructor(core: StoreCore) {
    this.core = core;
    // Keys `viewer|s<status>` and `viewer|c<conversation>` (see flags).
    const byStatus = { keys: ["ROW.account_id || '|s' || ROW.status_id"] };
    this.pageFlags = rowMemo(core, 'viewer_flags', 20_000, {
      favourites: byStatus,
      bookmarks: byStatus,
      status_pins: byStatus,
      statuses: { keys: ["ROW.account_id || '|s' || ROW.reblog_of_id"], when: 'ROW.reblog_of_id IS NOT NULL' },
      conversation_mutes: { keys: ["ROW.account_id || '|c' || ROW.conversation_id"] },
    });
  }

  favourite(accountId: string, statusId: string): boolean {
    return (
      this.core
        .sql(
          'INSERT INTO favourites (id, account_id, status_id, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
        )
        .run(this.core.ids.next(), accountId, statusId, this.core.now()).changes > 0
    );
  }

  unfavourite(accountId: string, statusId: string): boolean {
    return (
      this.core.sql('DELETE FROM favourites WHERE account_id = ? AND status_id = ?').run(accountId, statusId).changes >
      0
    );
  }

  bookmark(accountId: string, statusId: string): void {
    this.core
      .sql('INSERT INTO bookmarks (id, account_id, status_id, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING')
      .run(this.core.ids.next(), accountId, statusId, this.core.now());
  }

  unbookmark(accountId: string, statusId: string): void {
    this.core.sql('DELETE FROM bookmarks WHERE account_id = ? AND status_id = ?').run(accountId, statusId);
  }

  pin(accountId: string, statusId: string): boolean {
    return (
      this.core
        .sql(
          'INSERT INTO status_pins (id, account_id, status_id, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
        )
        .run(this.core.ids.next(), accountId, statusId, this.core.now()).changes > 0
    );
  }

  /** A remote account's pinned posts, as its featured collection lists them (in that order). */
  replacePins(accountId: string, statusIds: readonly string[]): void {
    this.core.sql('DELETE FROM status_pins WHERE account_id = ?').run(accountId);
    const now = this.core.now();
    const insert = this.core.sql(
      'INSERT OR IGNORE INTO status_pins (id, account_id, status_id, created_at) VALUES (?, ?, ?, ?)',
    );
    // Newest pin first in Mastodon's order: the first item gets the latest time.
    statusIds.forEach((statusId, i) => insert.run(this.core.ids.next(), accountId, statusId, now - i));
  }

  unpin(accountId: string, statusId: string): boolean {
    return (
      this.core.sql('DELETE FROM status_pins WHERE account_id = ? AND status_id = ?').run(accountId, statusId).changes >
      0
    );
  }

  /** Pins of an account whose statuses still exist. */
  pinCount(accountId: string): number {
    const r = this.core
      .sql(
        'SELECT COUNT(*) AS n FROM status_pins p JOIN statuses s ON s.id = p.status_id WHERE p.account_id = ? AND s.deleted_at IS NULL',
      )
      .get(accountId) as { n: bigint };
    return int(r.n);
  }

  muteConversation(accountId: string, conversationId: string): void {
    this.core
      .sql('INSERT OR IGNORE INTO conversation_mutes (account_id, conversation_id) VALUES (?, ?)')
      .run(accountId, conversationId);
  }

  unmuteConversation(accountId: string, conversationId: string): void {
    this.core
      .sql('DELETE FROM conversation_mutes WHERE account_id = ? AND conversation_id = ?')
      .run(accountId, conversationId);
  }

  conversationMuted(accountId: string, conversationId: string | null): boolean {
    if (conversationId === null) return false;
    return (
      this.core
        .sql('SELECT 1 FROM conversation_mutes WHERE account_id = ? AND conversation_id = ?')
        .get(accountId, conversationId) !== undefined
    );
  }

  /** Removes what refers to deleted statuses: pins and bookmarks. */
  forgetStatuses(statusIds: readonly string[]): void {
    if (statusIds.length === 0) return;
    const list = jsonIds(statusIds);
    this.core.sql('DELETE FROM status_pins WHERE status_id IN (SELECT value FROM json_each(?))').run(list);
    this.core.sql('DELETE FROM bookmarks WHERE status_id IN (SELECT value FROM json_each(?))').run(list);
  }

  /**
   * All five flags (a timeline page asks this once per request): per status a bit mask of favourited,
   * reblogged, bookmarked and pinned, per conversation whether it is muted; reused while nothing is written.
   */
  flags(viewerId: string, statusIds: readonly string[], conversationIds: readonly string[]): ViewerFlags {
    const flags: ViewerFlags = {
      favourited: new Set(),
      reblogged: new Set(),
      bookmarked: new Set(),
      pinned: new Set(),
      mutedConversations: new Set(),
    };
    if (statusIds.length === 0 && conversationIds.length === 0) return flags;
    const keys = [...statusIds.map((id) => `${viewerId}|s${id}`), ...conversationIds.map((id) => `${viewerId}|c${id}`)];
    // By position: no map per request, no key taken apart again, no list made per status.
    const marks = this.pageFlags.getEach(keys, (missing) => this.readFlags(viewerId, missing));
    statusIds.forEach((id, i) => {
      const mask = marks[i] ?? 0;
      if (mask & FAVOURITED) flags.favourited.add(id);
      if (mask & REBLOGGED) flags.reblogged.add(id);
      if (mask & BOOKMARKED) flags.bookmarked.add(id);
      if (mask & PINNED) flags.pinned.add(id);
    });
    conversationIds.forEach((id, i) => {
      if (marks[statusIds.length + i]) flags.mutedConversations.add(id);
    });
    return flags;
  }

  /** The flags of `keys` (`viewer|s<status>`, `viewer|c<conversation>`) in one statement: every key, 0 when none. */
  private readFlags(viewerId: string, keys: readonly string[]): Map<string, number> {
    const result = new Map<string, number>(keys.map((key) => [key, 0]));
    const statusIds: string[] = [];
    const conversationIds: string[] = [];
    const prefix = viewerId.length + 1;
    for (const key of keys) (key[prefix] === 'c' ? conversationIds : statusIds).push(key.slice(prefix + 1));
    const rows = this.core
      .sql(
        // IN over the id lists makes each part one lookup per id in the (account, status) index; the plan
        // shows it (LIST SUBQUERY), and it took half the time of joining from json_each.
        `SELECT 'f' AS k, status_id AS id FROM favourites WHERE account_id = @viewer AND status_id IN (SELECT value FROM json_each(@ids))
         UNION ALL SELECT 'r', reblog_of_id FROM statuses WHERE reblog_of_id IN (SELECT value FROM json_each(@ids)) AND account_id = @viewer AND deleted_at IS NULL
         UNION ALL SELECT 'b', status_id FROM bookmarks WHERE account_id = @viewer AND status_id IN (SELECT value FROM json_each(@ids))
         UNION ALL SELECT 'p', status_id FROM status_pins WHERE account_id = @viewer AND status_id IN (SELECT value FROM json_each(@ids))
         UNION ALL SELECT 'm', conversation_id FROM conversation_mutes WHERE account_id = @viewer AND conversation_id IN (SELECT value FROM json_each(@conversations))`,
      )
      .all({ viewer: viewerId, ids: jsonIds(statusIds), conversations: jsonIds(conversationIds) }) as {
      k: keyof typeof FLAG_BITS;
      id: bigint;
    }[];
    for (const r of rows) {
      const key = `${viewerId}|${r.k === 'm' ? 'c' : 's'}${str(r.id)}`;
      result.set(key, (result.get(key) ?? 0) | FLAG_BITS[r.k]);
    }
    return result;
  }

  /**
   * Of `viewerIds`, those with a mark of their own on any of the statuses (favourite, reblog, bookmark,
   * pin, poll vote) or their conversations (mute): the viewers whose rendering of them differs from a stranger's.
   */
  viewersWithMarks(
    viewerIds: readonly string[],
    statusIds: readonly string[],
    conversationIds: readonly string[],
    pollIds: readonly string[],
  ): Set<string> {
    if (viewerIds.length === 0) return new Set();
    const rows = this.core
      .sql(
        `SELECT x.account_id AS v FROM favourites x WHERE x.status_id IN (SELECT value FROM json_each(@ids)) AND x.account_id IN (SELECT value FROM json_each(@viewers))
         UNION SELECT x.account_id FROM statuses x WHERE x.reblog_of_id IN (SELECT value FROM json_each(@ids)) AND x.deleted_at IS NULL AND x.account_id IN (SELECT value FROM json_each(@viewers))
         UNION SELECT x.account_id FROM bookmarks x WHERE x.status_id IN (SELECT value FROM json_each(@ids)) AND x.account_id IN (SELECT value FROM json_each(@viewers))
         UNION SELECT x.account_id FROM status_pins x WHERE x.status_id IN (SELECT value FROM json_each(@ids)) AND x.account_id IN (SELECT value FROM json_each(@viewers))
         UNION SELECT x.account_id FROM conversation_mutes x WHERE x.conversation_id IN (SELECT value FROM json_each(@conversations)) AND x.account_id IN (SELECT value FROM json_each(@viewers))
         UNION SELECT x.account_id FROM poll_votes x WHERE x.poll_id IN (SELECT value FROM json_each(@polls)) AND x.account_id IN (SELECT value FROM json_each(@viewers))`,
      )
      .all({
        viewers: jsonIds(viewerIds),
        ids: jsonIds(statusIds),
        conversations: jsonIds(conversationIds),
        polls: jsonIds(pollIds),
      }) as { v: bigint }[];
    return new Set(rows.map((r) => str(r.v)));
  }

  /** Local accounts that reblogged a status (for edit notifications). */
  localRebloggers(statusId: string): string[] {
    return (
      this.core
        .sql(
          'SELECT DISTINCT s.account_id FROM statuses s JOIN accounts a ON a.id = s.account_id WHERE s.reblog_of_id = ? AND s.deleted_at IS NULL AND a.domain IS NULL',
        )
        .all(statusId) as {
        account_id: bigint;
      }[]
    ).map((r) => str(r.account_id));
  }

  /** The row id of a favourite, for cursors. */
  favouriteId(accountId: string, statusId: string): string | null {
    const r = this.core
      .sql('SELECT id FROM favourites WHERE account_id = ? AND status_id = ?')
      .get(accountId, statusId) as { id: bigint } | undefined;
    return r ? idOrNull(r.id) : null;
  }
}

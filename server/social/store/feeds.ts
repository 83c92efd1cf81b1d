import type { StatusRow } from '../status-row.ts';
import { bool, jsonIds, type SqlValue, type StoreCore } from './store.ts';

/** How a status reaches home feeds; see HomeFeedRepository.distribute. */
export interface Distribution {
  statusId: string;
  authorId: string;
  /** The status a reblog reblogs (reblogs go only to followers showing reblogs, once per feed). */
  reblogOfId: string | null;
  inReplyToAccountId: string | null;
  isReply: boolean;
  language: string | null;
  /** Public, unlisted and private statuses go to all local followers; direct ones only to these. */
  toFollowers: boolean;
  /** Local accounts mentioned by a direct status that follow its author. */
  mentionedIds: string[];
  /** The author is known to be remote (an inbound post): no home feed of theirs to look for. */
  authorRemote?: boolean;
}

/**
 * Home feeds of local users (fan-out on write, as Mastodon). Mutes, blocks and deletions are applied when
 * the feed is read, so undoing them needs no rewrite; follows and unfollows merge and unmerge rows.
 */
export class HomeFeedRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  /**
   * Inserts a status into the author's feed (if local) and the feeds of local followers, skipping (as
   * Mastodon's home filter) replies to accounts the follower does not follow, posts in languages the
   * follow excludes, reblogs from follows that hide them, and reblogs of a status the feed holds already.
   * Returns the local followers that received it, and those of them who asked to be notified of the author's
   * posts ("notify me"), read in the same statement.
   */
  distribute(d: Distribution): { receivers: string[]; notifying: string[] } {
    // The reblogs of @reblog are few, a home feed is large: look the reblogs up first and probe the feed for
    // each. (Written as a join, SQLite walked the follower's whole feed instead, so every reblog cost time in
    // proportion to the size of its followers' feeds.)
    const notAlreadyReblogged = (
      who: string,
    ) => `NOT EXISTS (SELECT 1 FROM home_feed h WHERE h.account_id = ${who} AND h.status_id = @reblog)
        AND NOT EXISTS (SELECT 1 FROM statuses x WHERE x.reblog_of_id = @reblog AND x.deleted_at IS NULL
          AND EXISTS (SELECT 1 FROM home_feed h WHERE h.account_id = ${who} AND h.status_id = x.id))`;
    // Each case has a statement of its own with only the conditions it needs: SQLite sets up a correlated or
    // IN subquery even when an `@x IS NULL OR …` before it decides the row (the author's insert took 60 µs
    // with the reblog checks, 7 without).
    const reblog = d.reblogOfId !== null;
    if (!d.authorRemote)
      this.core
        .sql(
          `INSERT OR IGNORE INTO home_feed (account_id, status_id) SELECT a.id, @status FROM accounts a WHERE a.id = @author AND a.domain IS NULL${reblog ? ` AND ${notAlreadyReblogged('a.id')}` : ''}`,
        )
        .run(
          reblog
            ? { status: d.statusId, author: d.authorId, reblog: d.reblogOfId }
            : { status: d.statusId, author: d.authorId },
        );
    const conditions = [
      d.toFollowers ? '' : 'AND f.account_id IN (SELECT value FROM json_each(@mentioned))',
      d.isReply
        ? `AND @reply_account IS NOT NULL AND (@reply_account = @author OR @reply_account = f.account_id
                OR EXISTS (SELECT 1 FROM follows g WHERE g.account_id = f.account_id AND g.target_account_id = @reply_account))`
        : '',
      reblog
        ? `AND f.show_reblogs = 1 AND ${notAlreadyReblogged('f.account_id')}`
        : d.language === null
          ? ''
          : 'AND (f.languages IS NULL OR EXISTS (SELECT 1 FROM json_each(f.languages) WHERE value = @language))',
    ];
    const params: Record<string, SqlValue> = { author: d.authorId };
    if (!d.toFollowers) params.mentioned = jsonIds(d.mentionedIds);
    if (d.isReply) params.reply_account = d.inReplyToAccountId;
    if (reblog) params.reblog = d.reblogOfId;
    else if (d.language !== null) params.language = d.language;
    const receivers = this.core
      .sql(
        `SELECT f.account_id, f.notify FROM follows f JOIN accounts a ON a.id = f.account_id
         WHERE f.target_account_id = @author AND a.domain IS NULL ${conditions.filter(Boolean).join(' ')}`,
      )
      .all(params) as { account_id: bigint; notify: bigint }[];
    const insert = this.core.sql('INSERT OR IGNORE INTO home_feed (account_id, status_id) VALUES (?, ?)');
    for (const r of receivers) insert.run(r.account_id, d.statusId);
    return {
      receivers: receivers.map((r) => String(r.account_id)),
      notifying: receivers.filter((r) => bool(r.notify)).map((r) => String(r.account_id)),
    };
  }

  /** `distribute` for a status as stored: followers get it unless it is direct; `mentionedIds` (local) always may. */
  distributeStatus(status: StatusRow, mentionedIds: string[], authorRemote = false): string[] {
    return this.distribute({
      authorRemote,
      statusId: status.id,
      authorId: status.accountId,
      reblogOfId: status.reblogOfId,
      inReplyToAccountId: status.inReplyToAccountId,
      isReply: status.inReplyToId !== null,
      language: status.language,
      toFollowers: status.visibility !== 'direct',
      mentionedIds,
    }).receivers;
  }

  /**
   * A public status with hashtags enters the home feeds of local accounts following any of them (not the
   * author's, which has it already); returns who got it.
   */
  distributeToTagFollowers(status: {
    id: string;
    accountId: string;
    visibility: string;
    reblogOfId: string | null;
  }): string[] {
    if (status.visibility !== 'public' || status.reblogOfId !== null) return [];
    const rows = this.core
      .sql(
        `SELECT DISTINCT f.account_id FROM statuses_tags st JOIN tag_follows f ON f.tag_id = st.tag_id JOIN accounts a ON a.id = f.account_id
         WHERE st.status_id = @status AND a.domain IS NULL AND f.account_id <> @author`,
      )
      .all({ status: status.id, author: status.accountId }) as { account_id: bigint }[];
    const insert = this.core.sql('INSERT OR IGNORE INTO home_feed (account_id, status_id) VALUES (?, ?)');
    const got: string[] = [];
    for (const r of rows) if (insert.run(r.account_id, status.id).changes > 0) got.push(String(r.account_id));
    return got;
  }

  /** Local accounts whose home feed holds any of the statuses (told of a deletion). */
  holders(statusIds: readonly string[]): string[] {
    if (statusIds.length === 0) return [];
    const rows = this.core
      .sql('SELECT DISTINCT account_id FROM home_feed WHERE status_id IN (SELECT value FROM json_each(?))')
      .all(jsonIds(statusIds)) as { account_id: bigint }[];
    return rows.map((r) => String(r.account_id));
  }

  /** Removes statuses from every feed (after deletion or unreblog). */
  remove(statusIds: readonly string[]): void {
    if (statusIds.length === 0) return;
    this.core.sql('DELETE FROM home_feed WHERE status_id IN (SELECT value FROM json_each(?))').run(jsonIds(statusIds));
  }

  /** After a follow starts: the followed account's recent statuses the follower may read enter the feed. */
  merge(followerId: string, targetId: string, limit: number): void {
    this.core
      .sql(
        `INSERT OR IGNORE INTO home_feed (account_id, status_id)
         SELECT @follower, s.id FROM statuses s
         WHERE s.account_id = @target AND s.deleted_at IS NULL
           AND (s.visibility IN ('public', 'unlisted', 'private') OR EXISTS (SELECT 1 FROM mentions m WHERE m.status_id = s.id AND m.account_id = @follower))
           AND (s.reblog_of_id IS NULL OR (SELECT show_reblogs FROM follows WHERE account_id = @follower AND target_account_id = @target) = 1)
           AND (s.in_reply_to_id IS NULL OR s.in_reply_to_account_id = s.account_id OR s.in_reply_to_account_id = @follower
                OR EXISTS (SELECT 1 FROM follows g WHERE g.account_id = @follower AND g.target_account_id = s.in_reply_to_account_id))
         ORDER BY s.id DESC LIMIT @limit`,
      )
      .run({ follower: followerId, target: targetId, limit });
  }

  /** After an unfollow: the account's statuses and reblogs leave the feed. */
  unmerge(followerId: string, targetId: string): void {
    this.core
      .sql('DELETE FROM home_feed WHERE account_id = ? AND status_id IN (SELECT id FROM statuses WHERE account_id = ?)')
      .run(followerId, targetId);
  }
}

import type { Account } from './account-row.ts';
import { ACCOUNT_COLUMNS, ACCOUNT_LISTED, toAccount } from './account-columns.ts';
import { int, type StoreCore } from './store.ts';

/** Where a follow suggestion comes from (Mastodon's `sources`). */
export type SuggestionSource = 'featured' | 'friends_of_friends' | 'most_interactions' | 'most_followed';

export interface SuggestedAccount {
  account: Account;
  sources: SuggestionSource[];
  score: number;
}

/** How much one past interaction with an account's post counts (reply 1, favourite 10, reblog 20). */
const INTERACTION_WEIGHTS = { reply: 1, favourite: 10, reblog: 20 };
const INTERACTION_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Accounts worth following, by source, already cleaned of what must never be suggested: oneself, accounts
 * followed or requested, dismissed, blocked either way, muted, domain-blocked, locked, moved, memorial,
 * suspended, deleted, not discoverable, or not listed (unconfirmed or unapproved local users).
 */
export class SuggestionRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  private readonly suggestable =
    `a.id != @viewer AND ${ACCOUNT_LISTED} AND a.suspended_at IS NULL AND a.locked = 0 AND a.moved_to_account_id IS NULL
    AND a.memorial = 0 AND a.discoverable = 1
    AND NOT EXISTS (SELECT 1 FROM follows f WHERE f.account_id = @viewer AND f.target_account_id = a.id)
    AND NOT EXISTS (SELECT 1 FROM follow_requests fr WHERE fr.account_id = @viewer AND fr.target_account_id = a.id)
    AND NOT EXISTS (SELECT 1 FROM account_suggestion_dismissals d WHERE d.account_id = @viewer AND d.target_account_id = a.id)
    AND NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.account_id = @viewer AND b.target_account_id = a.id) OR (b.account_id = a.id AND b.target_account_id = @viewer))
    AND NOT EXISTS (SELECT 1 FROM mutes m WHERE m.account_id = @viewer AND m.target_account_id = a.id)
    AND (a.domain IS NULL OR NOT EXISTS (SELECT 1 FROM account_domain_blocks db WHERE db.account_id = @viewer AND db.domain = a.domain))`;

  /** Scored candidates of one source, best first; recently active accounts win ties. */
  private scored(
    source: SuggestionSource,
    candidates: string,
    params: Record<string, unknown>,
    limit: number,
  ): SuggestedAccount[] {
    const rows = this.core
      .sql(
        `WITH candidates(id, score) AS (${candidates})
         SELECT ${ACCOUNT_COLUMNS}, c.score AS score FROM candidates c JOIN accounts a ON a.id = c.id LEFT JOIN users u ON u.account_id = a.id LEFT JOIN account_stats st ON st.account_id = a.id
         WHERE ${this.suggestable}
         ORDER BY c.score DESC, st.last_status_at DESC NULLS LAST, a.id DESC LIMIT @limit`,
      )
      .all({ ...params, limit }) as Record<string, unknown>[];
    return rows.map((r) => ({ account: toAccount(r), sources: [source], score: int(r.score) }));
  }

  /** Accounts followed by those the viewer follows (triadic closure), by how many of them follow each. */
  friendsOfFriends(viewerId: string, limit: number): SuggestedAccount[] {
    return this.scored(
      'friends_of_friends',
      `SELECT f2.target_account_id, COUNT(*) FROM follows f1 JOIN follows f2 ON f2.account_id = f1.target_account_id WHERE f1.account_id = @viewer GROUP BY f2.target_account_id`,
      { viewer: viewerId },
      limit,
    );
  }

  /** Authors of posts the viewer replied to, favourited or reblogged lately, weighted by kind. */
  pastInteractions(viewerId: string, limit: number): SuggestedAccount[] {
    return this.scored(
      'most_interactions',
      `SELECT id, SUM(w) FROM (
         SELECT s.in_reply_to_account_id AS id, ${INTERACTION_WEIGHTS.reply} AS w FROM statuses s WHERE s.account_id = @viewer AND s.in_reply_to_account_id IS NOT NULL AND s.created_at > @since AND s.deleted_at IS NULL
         UNION ALL SELECT t.account_id, ${INTERACTION_WEIGHTS.favourite} FROM favourites x JOIN statuses t ON t.id = x.status_id WHERE x.account_id = @viewer AND x.created_at > @since
         UNION ALL SELECT t.account_id, ${INTERACTION_WEIGHTS.reblog} FROM statuses r JOIN statuses t ON t.id = r.reblog_of_id WHERE r.account_id = @viewer AND r.created_at > @since AND r.deleted_at IS NULL
       ) GROUP BY id`,
      { viewer: viewerId, since: this.core.now() - INTERACTION_WINDOW_MS },
      limit,
    );
  }

  /** The owner's staff picks (setting featured_accounts), in the order given. */
  featured(viewerId: string, usernames: readonly string[], limit: number): SuggestedAccount[] {
    if (usernames.length === 0) return [];
    return this.scored(
      'featured',
      `SELECT a.id, 1000 - j.key FROM json_each(@names) j JOIN accounts a ON a.domain IS NULL AND lower(a.username) = lower(j.value)`,
      { viewer: viewerId, names: JSON.stringify(usernames) },
      limit,
    );
  }

  /** Local accounts with the most followers (the cold start when nothing else is known). */
  mostFollowed(viewerId: string, limit: number): SuggestedAccount[] {
    return this.scored(
      'most_followed',
      `SELECT account_id, followers FROM follow_counts WHERE followers > 0`,
      { viewer: viewerId },
      limit,
    );
  }

  dismiss(viewerId: string, targetId: string): void {
    this.core
      .sql(
        'INSERT OR IGNORE INTO account_suggestion_dismissals (account_id, target_account_id, created_at) VALUES (?, ?, ?)',
      )
      .run(viewerId, targetId, this.core.now());
  }

  /** Accounts the viewer follows (none means a cold start). */
  followingCount(viewerId: string): number {
    return int(
      (this.core.sql('SELECT COUNT(*) AS n FROM follows WHERE account_id = ?').get(viewerId) as { n: bigint }).n,
    );
  }
}

import type { Account } from './account-row.ts';
import type { AccountRepository } from './accounts.ts';
import type { SettingsRepository } from './settings.ts';
import type { DeletedStatusRoute } from '../events.ts';
import { liveStatusRoutes } from './deleted-status-routes.ts';
import { jsonIds, sqlBool, sqlBoolOrNull, str, type StoreCore } from './store.ts';

/** What federation learns of a remote actor from its document (the account columns it fills). */
export type RemoteActorData = Pick<
  Account,
  | 'username'
  | 'uri'
  | 'url'
  | 'actorType'
  | 'displayName'
  | 'fields'
  | 'locked'
  | 'discoverable'
  | 'indexable'
  | 'inboxUrl'
  | 'sharedInboxUrl'
  | 'outboxUrl'
  | 'followersUrl'
  | 'followingUrl'
  | 'featuredUrl'
  | 'avatarRemoteUrl'
  | 'headerRemoteUrl'
  | 'alsoKnownAs'
> & {
  domain: string;
  uri: string;
  /** sanitized HTML */
  note: string;
  /** PEM */
  publicKey: string;
  suspended: boolean;
  counts: { statuses: number; followers: number; following: number } | null;
};

/** An inbox a delivery goes to, with the actor it is for (shared inboxes are deduplicated by Fedify). */
export interface RemoteRecipient {
  accountId: string;
  uri: string;
  inboxUrl: string;
  sharedInboxUrl: string | null;
}

/** The SQL only federation needs, on social.db's tables (kept here so the shared repositories stay as they are). */
export class FederationRepository {
  private readonly core: StoreCore;
  private readonly accounts: AccountRepository;
  private readonly settings: SettingsRepository;
  /** `store`: the SocialStore (its core and the repositories used here). */
  constructor(store: {
    core: StoreCore;
    accounts: AccountRepository;
    settings: SettingsRepository;
  }) {
    this.core = store.core;
    this.accounts = store.accounts;
    this.settings = store.settings;
  }

  /** Inserts or refreshes a remote account by its actor id; returns its id. */
  upsertRemoteAccount(a: RemoteActorData): string {
    // The same handle under a new actor id is the account re-created on its server: the row follows the new id.
    // A row deleted here is found too: the actor served again is the account back (its old content stays gone).
    const existing = (this.core.sql('SELECT id FROM accounts WHERE uri = ?').get(a.uri) ??
      this.core
        .sql("SELECT id FROM accounts WHERE lower(username) = lower(?) AND coalesce(domain, '') = ?")
        .get(a.username, a.domain.toLowerCase())) as { id: string } | undefined;
    const now = this.core.now();
    const params = {
      username: a.username,
      domain: a.domain.toLowerCase(),
      uri: a.uri,
      url: a.url,
      actor_type: a.actorType,
      display_name: a.displayName,
      note: a.note,
      fields: JSON.stringify(a.fields),
      locked: sqlBool(a.locked),
      discoverable: sqlBoolOrNull(a.discoverable),
      indexable: sqlBool(a.indexable),
      inbox_url: a.inboxUrl,
      shared_inbox_url: a.sharedInboxUrl,
      outbox_url: a.outboxUrl,
      followers_url: a.followersUrl,
      following_url: a.followingUrl,
      featured_url: a.featuredUrl,
      public_key: a.publicKey,
      avatar_remote_url: a.avatarRemoteUrl,
      header_remote_url: a.headerRemoteUrl,
      also_known_as: JSON.stringify(a.alsoKnownAs),
      suspended_at: a.suspended ? now : null,
      now,
    };
    return this.core.transaction(() => {
      let id: string;
      if (existing) {
        id = str(existing.id);
        this.core
          .sql(
            `UPDATE accounts SET username = @username, uri = @uri, url = @url, actor_type = @actor_type, display_name = @display_name, note = @note, fields = @fields,
               locked = @locked, discoverable = @discoverable, indexable = @indexable, inbox_url = @inbox_url, shared_inbox_url = @shared_inbox_url,
               outbox_url = @outbox_url, followers_url = @followers_url, following_url = @following_url, featured_url = @featured_url,
               public_key = @public_key, avatar_remote_url = @avatar_remote_url, header_remote_url = @header_remote_url, also_known_as = @also_known_as,
               suspended_at = CASE WHEN @suspended_at IS NULL THEN NULL ELSE coalesce(suspended_at, @suspended_at) END,
               fetched_at = @now, last_webfingered_at = @now, updated_at = @now, deleted_at = NULL
             WHERE id = @id`,
          )
          .run({ ...params, id });
      } else {
        id = this.core.ids.next();
        this.core
          .sql(
            `INSERT INTO accounts (id, username, domain, uri, url, actor_type, display_name, note, fields, locked, discoverable, indexable, inbox_url,
               shared_inbox_url, outbox_url, followers_url, following_url, featured_url, public_key, avatar_remote_url, header_remote_url, also_known_as,
               suspended_at, fetched_at, last_webfingered_at, created_at, updated_at)
             VALUES (@id, @username, @domain, @uri, @url, @actor_type, @display_name, @note, @fields, @locked, @discoverable, @indexable, @inbox_url,
               @shared_inbox_url, @outbox_url, @followers_url, @following_url, @featured_url, @public_key, @avatar_remote_url, @header_remote_url,
               @also_known_as, @suspended_at, @now, @now, @now, @now)`,
          )
          .run({ ...params, id });
      }
      if (a.counts) {
        this.core
          .sql(
            `INSERT INTO account_stats (account_id, statuses_count, followers_count, following_count) VALUES (?, ?, ?, ?)
             ON CONFLICT (account_id) DO UPDATE SET statuses_count = excluded.statuses_count, followers_count = excluded.followers_count, following_count = excluded.following_count`,
          )
          .run(id, a.counts.statuses, a.counts.followers, a.counts.following);
      }
      return id;
    });
  }

  /** When the remote account was last read from its server (ms), null if never. */
  fetchedAt(accountId: string): number | null {
    const r = this.core.sql('SELECT fetched_at FROM accounts WHERE id = ?').get(accountId) as
      | { fetched_at: bigint | null }
      | undefined;
    return r?.fetched_at == null ? null : Number(r.fetched_at);
  }

  /** Remote accounts following `accountId`: where a post of theirs is delivered. */
  remoteFollowers(accountId: string): RemoteRecipient[] {
    return this.recipients(
      `SELECT a.id, a.uri, a.inbox_url, a.shared_inbox_url FROM follows f JOIN accounts a ON a.id = f.account_id
       WHERE f.target_account_id = ? AND a.domain IS NOT NULL AND a.inbox_url IS NOT NULL AND a.suspended_at IS NULL`,
      accountId,
    );
  }

  /**
   * The remote accounts a status reached or that took it up, as Mastodon 4.5's StatusReachFinder finds them with
   * `unsafe` (where a quote's revocation goes): its author's followers (none when direct; with the followers of
   * the local author it replies to when public or unlisted, but not on domains the replier blocked), the author
   * it replies to (public or unlisted), the author it quotes, its mentions, and whoever boosted, quoted,
   * favourited or replied to it. `unsafe` keeps suspended accounts: their servers may hold the post too.
   */
  statusReach(statusId: string): RemoteRecipient[] {
    return this.recipients(
      `WITH s AS (SELECT * FROM statuses WHERE id = @status)
       SELECT a.id, a.uri, a.inbox_url, a.shared_inbox_url FROM accounts a WHERE a.id IN (
         SELECT f.account_id FROM s JOIN follows f ON f.target_account_id = s.account_id WHERE s.visibility != 'direct'
         UNION SELECT f.account_id FROM s JOIN accounts t ON t.id = s.in_reply_to_account_id AND t.domain IS NULL
           JOIN follows f ON f.target_account_id = t.id JOIN accounts fa ON fa.id = f.account_id
           WHERE s.visibility IN ('public', 'unlisted') AND NOT EXISTS (SELECT 1 FROM account_domain_blocks b WHERE b.account_id = s.account_id AND b.domain = fa.domain)
         UNION SELECT in_reply_to_account_id FROM s WHERE visibility IN ('public', 'unlisted')
         UNION SELECT quoted_account_id FROM quotes WHERE status_id = @status
         UNION SELECT account_id FROM mentions WHERE status_id = @status
         UNION SELECT r.account_id FROM statuses r, s WHERE r.reblog_of_id = s.id AND (r.deleted_at IS NULL OR r.deleted_at = s.deleted_at)
         UNION SELECT q.account_id FROM quotes qq JOIN statuses q ON q.id = qq.status_id WHERE qq.quoted_status_id = @status
         UNION SELECT account_id FROM favourites WHERE status_id = @status
         UNION SELECT account_id FROM statuses WHERE in_reply_to_id = @status AND deleted_at IS NULL
       ) AND a.domain IS NOT NULL AND a.inbox_url IS NOT NULL`,
      { status: statusId },
    );
  }

  /** One recipient per server this one knows (its shared inbox, else each account's inbox): where a deleted account's Delete goes. */
  knownInboxes(): RemoteRecipient[] {
    return this.recipients(
      `SELECT min(a.id) AS id, min(a.uri) AS uri, min(a.inbox_url) AS inbox_url, a.shared_inbox_url FROM accounts a
       WHERE a.domain IS NOT NULL AND a.inbox_url IS NOT NULL AND a.suspended_at IS NULL AND a.deleted_at IS NULL
       GROUP BY coalesce(a.shared_inbox_url, a.inbox_url)`,
    );
  }

  /** Remote accounts among `ids` that can receive deliveries. */
  remoteRecipients(ids: readonly string[]): RemoteRecipient[] {
    if (ids.length === 0) return [];
    return this.recipients(
      'SELECT a.id, a.uri, a.inbox_url, a.shared_inbox_url FROM accounts a WHERE a.id IN (SELECT value FROM json_each(?)) AND a.domain IS NOT NULL AND a.inbox_url IS NOT NULL',
      jsonIds(ids),
    );
  }

  private recipients(sql: string, ...params: (string | Record<string, string>)[]): RemoteRecipient[] {
    return (
      this.core.sql(sql).all(...params) as {
        id: bigint;
        uri: string;
        inbox_url: string;
        shared_inbox_url: string | null;
      }[]
    ).map((r) => ({
      accountId: str(r.id),
      uri: r.uri,
      inboxUrl: r.inbox_url,
      sharedInboxUrl: r.shared_inbox_url,
    }));
  }

  /** Accounts (local and remote) following, or followed by, `accountId`: actor ids for the collections. */
  followActorIds(
    accountId: string,
    direction: 'followers' | 'following',
  ): { id: string; username: string; uri: string | null }[] {
    const [mine, theirs] =
      direction === 'followers' ? ['target_account_id', 'account_id'] : ['account_id', 'target_account_id'];
    return (
      this.core
        .sql(
          `SELECT a.id, a.username, a.uri FROM follows f JOIN accounts a ON a.id = f.${theirs}
           WHERE f.${mine} = ? AND a.suspended_at IS NULL AND a.deleted_at IS NULL ORDER BY f.id DESC`,
        )
        .all(accountId) as { id: bigint; username: string; uri: string | null }[]
    ).map((r) => ({ id: str(r.id), username: r.username, uri: r.uri }));
  }

  /**
   * The id of the Follow a local account sent, kept past the follow itself: an Undo sent after an unfollow
   * (the row is gone by then) names the Follow it undoes.
   */
  rememberSentFollow(accountId: string, targetId: string, uri: string): void {
    this.core
      .sql(
        'INSERT INTO federation_kv (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      )
      .run(JSON.stringify(['homeport', 'sent-follow', accountId, targetId]), JSON.stringify(uri));
  }

  sentFollowUri(accountId: string, targetId: string): string | null {
    const r = this.core
      .sql('SELECT value FROM federation_kv WHERE key = ?')
      .get(JSON.stringify(['homeport', 'sent-follow', accountId, targetId])) as { value: string } | undefined;
    return r ? (JSON.parse(r.value) as string) : null;
  }

  /** Records the id of the Follow activity we sent for a pending request. */
  setFollowRequestUri(accountId: string, targetId: string, uri: string): void {
    this.core
      .sql('UPDATE follow_requests SET uri = ? WHERE account_id = ? AND target_account_id = ?')
      .run(uri, accountId, targetId);
  }

  followUri(accountId: string, targetId: string): string | null {
    const r = (this.core
      .sql('SELECT uri FROM follows WHERE account_id = ? AND target_account_id = ?')
      .get(accountId, targetId) ??
      this.core
        .sql('SELECT uri FROM follow_requests WHERE account_id = ? AND target_account_id = ?')
        .get(accountId, targetId)) as { uri: string | null } | undefined;
    return r?.uri ?? null;
  }

  /** The follow or request a Follow activity id names: who follows whom. */
  followByUri(uri: string): { accountId: string; targetId: string; pending: boolean } | null {
    const follow = this.core.sql('SELECT account_id, target_account_id FROM follows WHERE uri = ?').get(uri) as
      | { account_id: bigint; target_account_id: bigint }
      | undefined;
    if (follow) return { accountId: str(follow.account_id), targetId: str(follow.target_account_id), pending: false };
    const request = this.core.sql('SELECT account_id, target_account_id FROM follow_requests WHERE uri = ?').get(uri) as
      | { account_id: bigint; target_account_id: bigint }
      | undefined;
    return request
      ? { accountId: str(request.account_id), targetId: str(request.target_account_id), pending: true }
      : null;
  }

  statusByUri(uri: string): string | null {
    const r = this.core.sql('SELECT id FROM statuses WHERE uri = ?').get(uri) as { id: bigint } | undefined;
    return r ? str(r.id) : null;
  }

  /** Instance-wide key pair of the instance actor (signed fetches not made for one user). */
  instanceKeys(generate: () => { publicKey: string; privateKey: string }): { publicKey: string; privateKey: string } {
    const publicKey = this.settings.get('instance_actor_public_key');
    const privateKey = this.settings.get('instance_actor_private_key');
    if (publicKey && privateKey) return { publicKey, privateKey };
    const keys = generate();
    const insert = this.core.db.prepare('INSERT OR IGNORE INTO settings (key, value) VALUES (?, ?)');
    this.core.transaction(() => {
      insert.run('instance_actor_public_key', keys.publicKey);
      insert.run('instance_actor_private_key', keys.privateKey);
    });
    return {
      publicKey: this.settings.get('instance_actor_public_key')!,
      privateKey: this.settings.get('instance_actor_private_key')!,
    };
  }

  hasLocalFollower(accountId: string): boolean {
    return (
      this.core
        .sql(
          'SELECT 1 FROM follows f JOIN accounts a ON a.id = f.account_id WHERE f.target_account_id = ? AND a.domain IS NULL LIMIT 1',
        )
        .get(accountId) !== undefined
    );
  }

  /** A remote account whose inbox is gone (410) follows nobody here any more. */
  dropFollowersFrom(accountId: string): void {
    this.core.transaction(() => {
      this.core.sql('DELETE FROM follows WHERE account_id = ?').run(accountId);
      this.core.sql('DELETE FROM follow_requests WHERE account_id = ?').run(accountId);
    });
  }

  /**
   * A remote account deleted on its server: gone from follows, feeds and lists, its notifications and favourites
   * with it; its statuses deleted (off their hashtags). Lookups by actor id or handle no longer find it. Returns
   * where each status it deleted may have been shown (for streaming's deletions).
   */
  forgetRemoteAccount(accountId: string): DeletedStatusRoute[] {
    const now = this.core.now();
    return this.core.transaction(() => {
      const deleted = liveStatusRoutes(this.core, accountId);
      this.core
        .sql(
          'UPDATE accounts SET deleted_at = coalesce(deleted_at, ?), updated_at = ? WHERE id = ? AND domain IS NOT NULL',
        )
        .run(now, now, accountId);
      this.core.sql('DELETE FROM follows WHERE account_id = ? OR target_account_id = ?').run(accountId, accountId);
      this.core
        .sql('DELETE FROM follow_requests WHERE account_id = ? OR target_account_id = ?')
        .run(accountId, accountId);
      this.core
        .sql('DELETE FROM home_feed WHERE status_id IN (SELECT id FROM statuses WHERE account_id = ?)')
        .run(accountId);
      // What it made here goes, as Mastodon's DeleteAccountService purges: notifications from it, its favourites.
      this.core.sql('DELETE FROM notifications WHERE from_account_id = ?').run(accountId);
      this.core.sql('DELETE FROM favourites WHERE account_id = ?').run(accountId);
      this.core
        .sql('DELETE FROM statuses_tags WHERE status_id IN (SELECT id FROM statuses WHERE account_id = ?)')
        .run(accountId);
      this.core
        .sql('UPDATE statuses SET deleted_at = ? WHERE account_id = ? AND deleted_at IS NULL')
        .run(now, accountId);
      return deleted;
    });
  }

  /** The public URL the instance federated under first (ids other servers keep); null before anything federated. */
  federatedOrigin(): string | null {
    return this.settings.get('federated_origin');
  }

  recordFederatedOrigin(origin: string): void {
    this.core.db.prepare('INSERT OR IGNORE INTO settings (key, value) VALUES (?, ?)').run('federated_origin', origin);
  }
}

import { indexStatusWords } from './search.ts';
import { rowMemo } from './row-memo.ts';
import type { StampMemo } from './stamp-memo.ts';
import { StatusMentionsAndTags } from './status-mentions-tags.ts';
import type { QuotePolicy, StatusRow, Visibility } from '../status-row.ts';
import { bool, idOrNull, int, intOrNull, jsonIds, jsonOr, sqlBool, str, type StoreCore } from './store.ts';

export function toStatus(r: Record<string, unknown>): StatusRow {
  return {
    id: str(r.id),
    uri: (r.uri as string | null) ?? null,
    url: (r.url as string | null) ?? null,
    accountId: str(r.account_id),
    local: bool(r.local),
    inReplyToId: idOrNull(r.in_reply_to_id),
    inReplyToAccountId: idOrNull(r.in_reply_to_account_id),
    reblogOfId: idOrNull(r.reblog_of_id),
    conversationId: idOrNull(r.conversation_id),
    quoteApprovalPolicy: (r.quote_approval_policy as QuotePolicy) ?? 'public',
    text: r.text as string,
    content: r.content as string,
    spoilerText: r.spoiler_text as string,
    visibility: r.visibility as Visibility,
    sensitive: bool(r.sensitive),
    language: (r.language as string | null) ?? null,
    applicationId: idOrNull(r.application_id),
    pollId: idOrNull(r.poll_id),
    remoteCounts: { replies: int(r.replies_count), reblogs: int(r.reblogs_count), favourites: int(r.favourites_count) },
    editedAt: intOrNull(r.edited_at),
    createdAt: int(r.created_at),
    updatedAt: int(r.updated_at),
    deletedAt: intOrNull(r.deleted_at),
  };
}

export interface NewStatus {
  accountId: string;
  local: boolean;
  uri?: string | null;
  url?: string | null;
  inReplyToId?: string | null;
  inReplyToAccountId?: string | null;
  reblogOfId?: string | null;
  conversationId?: string | null;
  quoteApprovalPolicy?: QuotePolicy;
  text?: string;
  content?: string;
  spoilerText?: string;
  visibility: Visibility;
  sensitive?: boolean;
  language?: string | null;
  applicationId?: string | null;
  pollId?: string | null;
  /** Remote statuses keep their publication time. */
  createdAt?: number;
}

export interface StatusEditRow {
  id: string;
  statusId: string;
  accountId: string;
  text: string;
  content: string;
  spoilerText: string;
  sensitive: boolean;
  mediaAttachmentIds: string[];
  mediaDescriptions: (string | null)[];
  pollOptions: string[] | null;
  createdAt: number;
}

export interface StatusCounts {
  replies: number;
  reblogs: number;
  favourites: number;
  quotes: number;
}

const NO_COUNTS: StatusCounts = Object.freeze({ replies: 0, reblogs: 0, favourites: 0, quotes: 0 });

/** Statuses (and reblogs, which are statuses too), their edits and per-status counters (mentions and tags: the base class). */
export class StatusRepository extends StatusMentionsAndTags {
  /** Counters of the statuses recent pages showed, until a write changes them (rowMemo). */
  private readonly pageCounts: StampMemo<StatusCounts>;
  constructor(core: StoreCore) {
    super(core);
    this.pageCounts = rowMemo(core, 'status_counts', 20_000, { status_stats: { keys: ['ROW.status_id'] } });
  }

  /** A status whether deleted or not. */
  byId(id: string): StatusRow | null {
    const r = this.core.sql('SELECT * FROM statuses WHERE id = ?').get(id) as Record<string, unknown> | undefined;
    return r ? toStatus(r) : null;
  }

  /** Statuses in the order of `ids` (missing ones left out). */
  byIds(ids: readonly string[]): StatusRow[] {
    if (ids.length === 0) return [];
    const rows = this.core
      .sql('SELECT * FROM statuses WHERE id IN (SELECT value FROM json_each(?))')
      .all(jsonIds(ids)) as Record<string, unknown>[];
    const byId = new Map(rows.map((r) => [str(r.id), toStatus(r)]));
    return ids.map((id) => byId.get(id)).filter((s): s is StatusRow => s !== undefined);
  }

  /** A remote status known here by its ActivityPub id or its web address. */
  idByUriOrUrl(address: string): string | null {
    const r = this.core
      .sql('SELECT id FROM statuses WHERE uri = @a UNION SELECT id FROM statuses WHERE url = @a LIMIT 1')
      .get({ a: address }) as { id: bigint } | undefined;
    return r ? str(r.id) : null;
  }

  /**
   * Inserts a status; one that is not direct counts towards its author's statuses (a remote author's counter
   * starts from what its server reported, as Mastodon's does: counting its rows at each view grew with them).
   */
  insert(input: NewStatus): string {
    const createdAt = input.createdAt ?? this.core.now();
    const id = this.core.ids.next();
    this.core
      .sql(
        `INSERT INTO statuses (id, uri, url, account_id, local, in_reply_to_id, in_reply_to_account_id, reblog_of_id, conversation_id,
           quote_approval_policy, text, content, spoiler_text, visibility, sensitive, language, application_id, poll_id, created_at, updated_at)
         VALUES (@id, @uri, @url, @account, @local, @reply, @reply_account, @reblog, @conversation, @quote_policy, @text, @content, @spoiler,
           @visibility, @sensitive, @language, @application, @poll, @created, @created)`,
      )
      .run({
        id,
        uri: input.uri ?? null,
        url: input.url ?? null,
        account: input.accountId,
        local: sqlBool(input.local),
        reply: input.inReplyToId ?? null,
        reply_account: input.inReplyToAccountId ?? null,
        reblog: input.reblogOfId ?? null,
        conversation: input.conversationId ?? null,
        quote_policy: input.quoteApprovalPolicy ?? 'public',
        text: input.text ?? '',
        content: input.content ?? '',
        spoiler: input.spoilerText ?? '',
        visibility: input.visibility,
        sensitive: sqlBool(input.sensitive ?? false),
        language: input.language ?? null,
        application: input.applicationId ?? null,
        poll: input.pollId ?? null,
        created: createdAt,
      });
    if (input.visibility !== 'direct') this.bumpAccountCounter(input.accountId, 1, createdAt);
    if (!input.reblogOfId)
      indexStatusWords(
        this.core,
        id,
        { spoilerText: input.spoilerText ?? '', text: input.text ?? '', content: input.content ?? '' },
        true,
      );
    return id;
  }

  private bumpAccountCounter(accountId: string, delta: number, at: number | null): void {
    this.core
      .sql(
        `INSERT INTO account_stats (account_id, statuses_count, last_status_at) VALUES (@account, max(@delta, 0), @at)
         ON CONFLICT (account_id) DO UPDATE SET statuses_count = max(statuses_count + @delta, 0),
           last_status_at = CASE WHEN @at IS NULL THEN last_status_at ELSE max(coalesce(last_status_at, 0), @at) END`,
      )
      .run({ account: accountId, delta, at });
  }

  /**
   * The edited parts of a status (an edit replaces them all). Every change to a row's content must move
   * updated_at (past its last value even within one millisecond of it): timelines and the status presenter
   * reuse what they made of a row while it stands.
   */
  updateContent(
    id: string,
    changes: {
      text: string;
      content: string;
      spoilerText: string;
      sensitive: boolean;
      language: string | null;
      pollId: string | null;
      editedAt: number;
    },
  ): void {
    this.core
      .sql(
        'UPDATE statuses SET text = @text, content = @content, spoiler_text = @spoiler, sensitive = @sensitive, language = @language, poll_id = @poll, edited_at = @edited, updated_at = max(updated_at + 1, @edited) WHERE id = @id',
      )
      .run({
        id,
        text: changes.text,
        content: changes.content,
        spoiler: changes.spoilerText,
        sensitive: sqlBool(changes.sensitive),
        language: changes.language,
        poll: changes.pollId,
        edited: changes.editedAt,
      });
    indexStatusWords(this.core, id, changes);
  }

  /** Who may quote the status (a change of who may interact, not an edit: no history entry, but a new version). */
  setQuotePolicy(id: string, policy: QuotePolicy): void {
    this.core
      .sql('UPDATE statuses SET quote_approval_policy = ?, updated_at = max(updated_at + 1, ?) WHERE id = ?')
      .run(policy, this.core.now(), id);
  }

  /**
   * Marks a status deleted (the row stays as a tombstone), takes it off its author's counter and off its
   * hashtags' listings (a hashtag page would otherwise walk past every deleted post).
   */
  markDeleted(status: StatusRow): void {
    const changed = this.core
      .sql('UPDATE statuses SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL')
      .run(this.core.now(), status.id).changes;
    this.core.sql('DELETE FROM statuses_tags WHERE status_id = ?').run(status.id);
    if (changed && status.visibility !== 'direct') this.bumpAccountCounter(status.accountId, -1, null);
  }

  /** The undeleted reblogs of a status. */
  reblogsOf(statusId: string): StatusRow[] {
    return (
      this.core.sql('SELECT * FROM statuses WHERE reblog_of_id = ? AND deleted_at IS NULL').all(statusId) as Record<
        string,
        unknown
      >[]
    ).map(toStatus);
  }

  /** The undeleted reblogs others made of an account's statuses. */
  reblogsOfAccount(accountId: string): StatusRow[] {
    const ofItsStatuses = 'reblog_of_id IN (SELECT id FROM statuses WHERE account_id = ?) AND account_id != ?';
    const rows = this.core.sql(`SELECT * FROM statuses WHERE ${ofItsStatuses} AND deleted_at IS NULL`);
    return (rows.all(accountId, accountId) as Record<string, unknown>[]).map(toStatus);
  }

  /** `accountId`'s reblog of a status, if it has one. */
  reblogBy(accountId: string, statusId: string): StatusRow | null {
    const r = this.core
      .sql('SELECT * FROM statuses WHERE reblog_of_id = ? AND account_id = ? AND deleted_at IS NULL')
      .get(statusId, accountId) as Record<string, unknown> | undefined;
    return r ? toStatus(r) : null;
  }

  // ---- conversations (threads)

  newConversation(): string {
    const id = this.core.ids.next();
    this.core.sql('INSERT INTO conversations (id, created_at) VALUES (?, ?)').run(id, this.core.now());
    return id;
  }

  // ---- counters

  /** Replies (not direct), reblogs, favourites and accepted quotes of many statuses, from the trigger-kept counters. */
  counts(statusIds: readonly string[]): Map<string, StatusCounts> {
    if (statusIds.length === 0) return new Map();
    return this.pageCounts.getMany(statusIds, (missing) => {
      const result = new Map<string, StatusCounts>();
      for (const id of missing) result.set(id, NO_COUNTS);
      const rows = this.core
        .sql('SELECT * FROM status_stats WHERE status_id IN (SELECT value FROM json_each(?))')
        .all(jsonIds(missing)) as Record<string, bigint>[];
      for (const r of rows) {
        // Frozen: shared by every request until the next write.
        result.set(
          str(r.status_id),
          Object.freeze({
            replies: int(r.replies_count),
            reblogs: int(r.reblogs_count),
            favourites: int(r.favourites_count),
            quotes: int(r.quotes_count),
          }),
        );
      }
      return result;
    });
  }

  // ---- edits

  insertEdit(edit: Omit<StatusEditRow, 'id'>): void {
    this.core
      .sql(
        `INSERT INTO status_edits (id, status_id, account_id, text, content, spoiler_text, sensitive, media_attachment_ids, media_descriptions, poll_options, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        this.core.ids.next(),
        edit.statusId,
        edit.accountId,
        edit.text,
        edit.content,
        edit.spoilerText,
        sqlBool(edit.sensitive),
        JSON.stringify(edit.mediaAttachmentIds),
        JSON.stringify(edit.mediaDescriptions),
        edit.pollOptions ? JSON.stringify(edit.pollOptions) : null,
        edit.createdAt,
      );
  }

  /** Edits of a status, oldest first. */
  edits(statusId: string): StatusEditRow[] {
    return (
      this.core.sql('SELECT * FROM status_edits WHERE status_id = ? ORDER BY id').all(statusId) as Record<
        string,
        unknown
      >[]
    ).map((r) => ({
      id: str(r.id),
      statusId: str(r.status_id),
      accountId: str(r.account_id),
      text: r.text as string,
      content: r.content as string,
      spoilerText: r.spoiler_text as string,
      sensitive: bool(r.sensitive),
      mediaAttachmentIds: jsonOr<string[]>(r.media_attachment_ids, []),
      mediaDescriptions: jsonOr<(string | null)[]>(r.media_descriptions, []),
      pollOptions: jsonOr<string[] | null>(r.poll_options, null),
      createdAt: int(r.created_at),
    }));
  }
}

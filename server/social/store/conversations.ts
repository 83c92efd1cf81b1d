import { bool, cursorWhere, finishPage, idOrNull, int, jsonOr, str, type PageQuery, type StoreCore } from './store.ts';

/** A direct-message thread as one participant sees it. */
export interface AccountConversationRow {
  id: string;
  accountId: string;
  conversationId: string;
  participantIds: string[];
  lastStatusId: string | null;
  unread: boolean;
  updatedAt: number;
}

function toRow(r: Record<string, unknown>): AccountConversationRow {
  return {
    id: str(r.id),
    accountId: str(r.account_id),
    conversationId: str(r.conversation_id),
    participantIds: jsonOr<string[]>(r.participant_account_ids, []),
    lastStatusId: idOrNull(r.last_status_id),
    unread: bool(r.unread),
    updatedAt: int(r.updated_at),
  };
}

export class ConversationRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  /** Records a new direct status in one participant's view: unread unless they wrote it (as Mastodon). */
  touch(
    accountId: string,
    conversationId: string,
    participantIds: string[],
    lastStatusId: string,
    unread: boolean,
  ): void {
    this.core
      .sql(
        `INSERT INTO account_conversations (id, account_id, conversation_id, participant_account_ids, last_status_id, unread, updated_at)
         VALUES (@id, @account, @conversation, @participants, @last, @unread, @now)
         ON CONFLICT (account_id, conversation_id) DO UPDATE SET participant_account_ids = excluded.participant_account_ids,
           last_status_id = excluded.last_status_id, unread = excluded.unread, updated_at = excluded.updated_at`,
      )
      .run({
        id: this.core.ids.next(),
        account: accountId,
        conversation: conversationId,
        participants: JSON.stringify(participantIds),
        last: lastStatusId,
        unread: unread ? 1 : 0,
        now: this.core.now(),
      });
  }

  /** One participant's view of a conversation. */
  ofAccount(accountId: string, conversationId: string): AccountConversationRow | null {
    const r = this.core
      .sql('SELECT * FROM account_conversations WHERE account_id = ? AND conversation_id = ?')
      .get(accountId, conversationId) as Record<string, unknown> | undefined;
    return r ? toRow(r) : null;
  }

  byId(id: string): AccountConversationRow | null {
    const r = this.core.sql('SELECT * FROM account_conversations WHERE id = ?').get(id) as
      | Record<string, unknown>
      | undefined;
    return r ? toRow(r) : null;
  }

  /** Newest threads first; the cursor is the id of the last status. */
  list(accountId: string, page: PageQuery): AccountConversationRow[] {
    const c = cursorWhere('last_status_id', page);
    const rows = this.core
      .sql(
        `SELECT * FROM account_conversations WHERE account_id = @account AND last_status_id IS NOT NULL AND ${c.where} ORDER BY last_status_id ${c.order} LIMIT @cursor_limit`,
      )
      .all({ account: accountId, ...c.params }) as Record<string, unknown>[];
    return finishPage(rows.map(toRow), page);
  }

  setUnread(id: string, unread: boolean): void {
    this.core.sql('UPDATE account_conversations SET unread = ? WHERE id = ?').run(unread ? 1 : 0, id);
  }

  delete(id: string): void {
    this.core.sql('DELETE FROM account_conversations WHERE id = ?').run(id);
  }

  /** After a direct status is deleted: each view that showed it falls back to the thread's previous direct status. */
  forgetStatus(statusId: string): void {
    const rows = (
      this.core.sql('SELECT * FROM account_conversations WHERE last_status_id = ?').all(statusId) as Record<
        string,
        unknown
      >[]
    ).map(toRow);
    for (const row of rows) {
      const previous = this.core
        .sql(
          `SELECT s.id FROM statuses s WHERE s.conversation_id = @conversation AND s.visibility = 'direct' AND s.deleted_at IS NULL AND s.id != @status
             AND (s.account_id = @account OR EXISTS (SELECT 1 FROM mentions m WHERE m.status_id = s.id AND m.account_id = @account))
           ORDER BY s.id DESC LIMIT 1`,
        )
        .get({ conversation: row.conversationId, status: statusId, account: row.accountId }) as
        | { id: bigint }
        | undefined;
      if (previous)
        this.core.sql('UPDATE account_conversations SET last_status_id = ? WHERE id = ?').run(previous.id, row.id);
      else this.delete(row.id);
    }
  }
}

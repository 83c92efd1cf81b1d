import { ACCOUNT_COLUMNS, ACCOUNT_LISTED, toAccount } from './account-columns.ts';
import type { ListedAccount } from './listed-accounts.ts';
import type { StatusRow } from '../status-row.ts';
import { toStatus } from './statuses.ts';
import { available, LIST_REPLIES, notHidden, reblogReadable, visible, type ViewerScope } from './readable-sql.ts';
import { cursorWhere, finishPage, jsonIds, str, type PageQuery, type StoreCore } from './store.ts';

/**
 * Who may read which status, one at a time or many at once (threads, quotes, streaming's audience), the
 * thread walks and the accounts that reblogged or favourited a status: the checks beside the listings.
 */
export class StatusAccessQueries {
  protected readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  /** Whether a status belongs in a list's timeline as its owner reads it (streaming's check for one status). */
  inList(statusId: string, list: { id: string; accountId: string; repliesPolicy: string }): boolean {
    return (
      this.core
        .sql(
          `SELECT 1 FROM statuses s WHERE s.id = @id AND EXISTS (SELECT 1 FROM list_accounts la WHERE la.list_id = @list AND la.account_id = s.account_id) AND ${LIST_REPLIES('s')}`,
        )
        .get({ id: statusId, list: list.id, viewer: list.accountId, policy: list.repliesPolicy }) !== undefined
    );
  }

  /** The status if the viewer may open it (reblog wrappers also need their reblogged status readable). */
  readable(viewerId: string | null, statusId: string): StatusRow | null {
    const scope: ViewerScope = { viewerId, blocks: false, mutes: false, domainBlocks: false };
    const r = this.core
      .sql(
        `SELECT s.* FROM statuses s WHERE s.id = @id AND s.deleted_at IS NULL AND ${available('s')} AND ${visible('s')} AND ${reblogReadable('s', scope)}`,
      )
      .get({ id: statusId, viewer: viewerId, now: this.core.now() }) as Record<string, unknown> | undefined;
    return r ? toStatus(r) : null;
  }

  /**
   * Of `viewerIds`, those who may read the status and hide neither its author nor, for a reblog, the
   * reblogged status's: the check a timeline page makes, asked for many viewers at once (streaming).
   */
  audience(statusId: string, viewerIds: readonly string[]): Set<string> {
    if (viewerIds.length === 0) return new Set();
    const all: ViewerScope = { viewerId: '', blocks: true, mutes: true, domainBlocks: true };
    const rows = this.core
      .sql(
        `SELECT v.value AS viewer FROM json_each(@viewers) v CROSS JOIN statuses s ON s.id = @id
         WHERE s.deleted_at IS NULL AND ${available('s')} AND ${visible('s', 'v.value')} AND ${reblogReadable('s', all, 'v.value')}
           AND (s.account_id = v.value OR (${notHidden('s.account_id', all, 'h', 'v.value')}))`,
      )
      .all({ viewers: jsonIds(viewerIds), id: statusId, now: this.core.now() }) as { viewer: bigint | string }[];
    return new Set(rows.map((r) => str(r.viewer)));
  }

  /** Of `ids`, those the viewer may read and has not hidden (threads leave out blocked and muted accounts). */
  readableIds(scope: ViewerScope, ids: readonly string[]): Set<string> {
    if (ids.length === 0) return new Set();
    const rows = this.core
      .sql(
        `SELECT s.id FROM statuses s WHERE s.id IN (SELECT value FROM json_each(@ids)) AND s.deleted_at IS NULL AND ${available('s', scope)} AND ${visible('s')}
           AND (s.account_id = @viewer OR (${notHidden('s.account_id', scope, 'h')}))`,
      )
      .all({ ids: jsonIds(ids), viewer: scope.viewerId, now: this.core.now() }) as { id: bigint }[];
    return new Set(rows.map((r) => str(r.id)));
  }

  /** Ids of the statuses above one in its thread, nearest first (at most `limit`). */
  ancestorIds(statusId: string, limit: number): string[] {
    const rows = this.core
      .sql(
        `WITH RECURSIVE up(id, depth) AS (
           SELECT in_reply_to_id, 1 FROM statuses WHERE id = @id AND in_reply_to_id IS NOT NULL
           UNION ALL
           SELECT s.in_reply_to_id, up.depth + 1 FROM statuses s JOIN up ON s.id = up.id WHERE s.in_reply_to_id IS NOT NULL AND up.depth < @limit
         ) SELECT id FROM up`,
      )
      .all({ id: statusId, limit }) as { id: bigint }[];
    return rows.map((r) => str(r.id));
  }

  /** The replies below a status, with their parents, breadth first (at most `limit`). */
  descendantRows(statusId: string, limit: number): { id: string; parentId: string }[] {
    const rows = this.core
      .sql(
        `WITH RECURSIVE down(id, parent, depth) AS (
           SELECT id, in_reply_to_id, 1 FROM statuses WHERE in_reply_to_id = @id
           UNION ALL
           SELECT s.id, s.in_reply_to_id, down.depth + 1 FROM statuses s JOIN down ON s.in_reply_to_id = down.id WHERE down.depth < 256
         ) SELECT id, parent FROM down ORDER BY id LIMIT @limit`,
      )
      .all({ id: statusId, limit }) as { id: bigint; parent: bigint }[];
    return rows.map((r) => ({ id: str(r.id), parentId: str(r.parent) }));
  }

  /** Accounts that reblogged (cursor: the reblog's id) or favourited (cursor: the favourite's id) a status. */
  interactors(kind: 'reblogs' | 'favourites', scope: ViewerScope, statusId: string, page: PageQuery): ListedAccount[] {
    const from =
      kind === 'reblogs'
        ? `statuses x JOIN accounts a ON a.id = x.account_id LEFT JOIN users u ON u.account_id = a.id WHERE x.reblog_of_id = @status AND x.deleted_at IS NULL AND ${visible('x')}`
        : `favourites x JOIN accounts a ON a.id = x.account_id LEFT JOIN users u ON u.account_id = a.id WHERE x.status_id = @status`;
    const c = cursorWhere('x.id', page);
    const rows = this.core
      .sql(
        `SELECT x.id AS cursor, ${ACCOUNT_COLUMNS} FROM ${from} AND ${ACCOUNT_LISTED} AND a.suspended_at IS NULL AND ${notHidden('a.id', scope, 'h')} AND ${c.where} ORDER BY x.id ${c.order} LIMIT @cursor_limit`,
      )
      .all({ status: statusId, viewer: scope.viewerId, now: this.core.now(), ...c.params }) as Record<
      string,
      unknown
    >[];
    return finishPage(
      rows.map((r) => ({ cursor: str(r.cursor), account: toAccount(r) })),
      page,
    );
  }
}

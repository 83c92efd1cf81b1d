import { LRUCache } from 'lru-cache';
import type { StatusRow } from '../status-row.ts';
import { rowMemo } from './row-memo.ts';
import type { StampMemo } from './stamp-memo.ts';
import { StatusAccessQueries } from './status-access.ts';
import { toStatus } from './statuses.ts';
import {
  available,
  LIST_REPLIES,
  notHidden,
  NOT_IN_EXCLUSIVE_LIST,
  visible,
  WITH_MEDIA,
  WITHOUT_REPLIES,
  type ViewerScope,
} from './readable-sql.ts';
import { cursorWhere, finishPage, jsonIds, str, type PageQuery, type SqlValue, type StoreCore } from './store.ts';

/*
 * The status listings (home, lists, public, hashtag, account, favourites, bookmarks) over readable-sql.ts;
 * who may read a status, threads and interactors are status-access.ts's.
 * All filtering is inside the query, so a page is full whenever more rows exist (clients stop at a short page).
 */
export interface PublicTimelineOptions {
  local?: boolean;
  remote?: boolean;
  onlyMedia?: boolean;
}

export interface TagTimelineOptions extends PublicTimelineOptions {
  anyTagIds: string[];
  allTagIds: string[];
  noneTagIds: string[];
}

export interface AccountTimelineOptions {
  pinned?: boolean;
  excludeReplies?: boolean;
  excludeReblogs?: boolean;
  onlyMedia?: boolean;
  taggedId?: string | null;
}

/** A status with the cursor of the row that listed it (a favourite, bookmark… or the status itself). */
export interface ListedStatus {
  cursor: string;
  status: StatusRow;
}

export class TimelineRepository extends StatusAccessQueries {
  /** Status rows of recent pages by id, each of its version: a page re-read (the usual case) skips reading them again. */
  private readonly rowCache = new LRUCache<string, StatusRow>({
    max: 10_000,
    maxSize: 16 * 1024 * 1024,
    sizeCalculation: (s) =>
      2 * (s.text.length + s.content.length + s.spoilerText.length + (s.uri?.length ?? 0) + (s.url?.length ?? 0)) + 400,
  });
  /** Viewers' scopes until a write changes them (by viewer id, '' for no viewer). */
  private readonly scopes: StampMemo<ViewerScope>;
  constructor(core: StoreCore) {
    super(core);
    const byViewer = { keys: ['ROW.account_id'] };
    this.scopes = rowMemo(core, 'viewer_scopes', 1_000, {
      blocks: { keys: ['ROW.account_id', 'ROW.target_account_id'] },
      mutes: byViewer,
      account_domain_blocks: byViewer,
      lists: byViewer,
      // Whether any account is unavailable: every scope says it.
      accounts: {
        keys: [],
        rowsFeedAll: true,
        updateFeedsAll: 'OLD.suspended_at IS NOT NEW.suspended_at OR OLD.deleted_at IS NOT NEW.deleted_at',
      },
    });
  }

  /**
   * Which filters the viewer has (one cheap query that lets the listings skip the others), reused until a
   * write changes it. Frozen: shared between requests.
   */
  scope(viewerId: string | null): ViewerScope {
    const key = viewerId ?? '';
    return this.scopes.getMany([key], () => new Map([[key, Object.freeze(this.readScope(viewerId))]])).get(key)!;
  }

  /** When the first of the viewer's mutes that is still on ends (null: none ends): listings change then with no write. */
  nextMuteExpiry(viewerId: string): number | null {
    const r = this.core
      .sql('SELECT MIN(expires_at) AS t FROM mutes WHERE account_id = ? AND expires_at > ?')
      .get(viewerId, this.core.now()) as { t: bigint | null };
    return r.t === null ? null : Number(r.t);
  }

  private readScope(viewerId: string | null): ViewerScope {
    const unavailable = `EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_unavailable WHERE suspended_at IS NOT NULL OR deleted_at IS NOT NULL)`;
    if (viewerId === null) {
      const r = this.core.sql(`SELECT ${unavailable} AS unavailable`).get() as { unavailable: bigint };
      return { viewerId, blocks: false, mutes: false, domainBlocks: false, unavailableAccounts: r.unavailable !== 0n };
    }
    const r = this.core
      .sql(
        `SELECT EXISTS (SELECT 1 FROM blocks WHERE account_id = @v) OR EXISTS (SELECT 1 FROM blocks WHERE target_account_id = @v) AS blocks,
                EXISTS (SELECT 1 FROM mutes WHERE account_id = @v) AS mutes,
                EXISTS (SELECT 1 FROM account_domain_blocks WHERE account_id = @v) AS domains,
                EXISTS (SELECT 1 FROM lists WHERE account_id = @v AND exclusive = 1) AS exclusive,
                ${unavailable} AS unavailable`,
      )
      .get({ v: viewerId }) as {
      blocks: bigint;
      mutes: bigint;
      domains: bigint;
      exclusive: bigint;
      unavailable: bigint;
    };
    return {
      viewerId,
      blocks: r.blocks !== 0n,
      mutes: r.mutes !== 0n,
      domainBlocks: r.domains !== 0n,
      exclusiveLists: r.exclusive !== 0n,
      unavailableAccounts: r.unavailable !== 0n,
    };
  }

  /**
   * Runs a listing that selects `s.id` and its cursor, then reads the rows by id: joins that return whole
   * status rows were twice as slow as the two single-table steps. Also the link timeline's (link-timeline.ts).
   */
  page(
    sql: (where: string, order: string) => string,
    column: string,
    params: Record<string, SqlValue>,
    page: PageQuery,
  ): ListedStatus[] {
    const c = cursorWhere(column, page);
    const hits = this.core.sql(sql(c.where, c.order)).all({
      now: this.core.now(),
      ...params,
      ...c.params,
    }) as {
      id: bigint;
      version: bigint;
      cursor: bigint;
    }[];
    if (hits.length === 0) return [];
    // Rows are reused while their version (updated_at, bumped by every edit) stands; deleted ones never get here.
    // By position: each id made a string once, no map per page unless rows are read. Kept by id with the version
    // compared (a key of id and version cost a string made and hashed per row).
    const ids = hits.map((h) => str(h.id));
    const found = ids.map((id, i) => {
      const row = this.rowCache.get(id);
      return row !== undefined && row.updatedAt === Number(hits[i].version) ? row : undefined;
    });
    const misses = ids.filter((_, i) => found[i] === undefined);
    if (misses.length) {
      const byId = new Map<string, StatusRow>();
      for (const r of this.core
        .sql('SELECT * FROM statuses WHERE id IN (SELECT value FROM json_each(?))')
        .all(`[${misses.join(',')}]`) as Record<string, unknown>[]) {
        // Frozen: one row object now serves many requests.
        const status = Object.freeze(toStatus(r));
        Object.freeze(status.remoteCounts);
        byId.set(status.id, status);
        this.rowCache.set(status.id, status);
      }
      ids.forEach((id, i) => {
        found[i] ??= byId.get(id);
      });
    }
    const listed: ListedStatus[] = [];
    hits.forEach((h, i) => {
      const status = found[i];
      // The cursor is most often the status's own id (home, hashtag, public): its string is made already.
      if (status) listed.push({ cursor: h.cursor === h.id ? ids[i] : str(h.cursor), status });
    });
    return finishPage(listed, page);
  }

  home(scope: ViewerScope, page: PageQuery): ListedStatus[] {
    return this.withReadableReblogs(scope, page, (p) =>
      this.page(
        (
          where,
          order,
        ) => `SELECT s.id, s.updated_at AS version, f.status_id AS cursor FROM home_feed f JOIN statuses s ON s.id = f.status_id
          WHERE f.account_id = @viewer AND ${where} AND s.deleted_at IS NULL AND ${available('s', scope)} AND ${notHidden('s.account_id', scope, 'h')}
            ${scope.exclusiveLists ? `AND ${NOT_IN_EXCLUSIVE_LIST('s')}` : ''}
          ORDER BY f.status_id ${order} LIMIT @cursor_limit`,
        'f.status_id',
        { viewer: scope.viewerId },
        p,
      ),
    );
  }

  /**
   * Drops reblogs whose reblogged status the viewer may not read (or whose author they hide), fetching
   * further rows so the page stays full. Checked apart from the main query: its correlated subqueries
   * cost every query their setup even on pages without reblogs.
   */
  private withReadableReblogs(
    scope: ViewerScope,
    page: PageQuery,
    fetch: (page: PageQuery) => ListedStatus[],
  ): ListedStatus[] {
    let kept: ListedStatus[] = [];
    let cursor = page;
    for (let round = 0; round < 10; round++) {
      const rows = fetch(cursor);
      const reblogged = rows.flatMap((r) => (r.status.reblogOfId ? [r.status.reblogOfId] : []));
      const readable = reblogged.length ? this.readableIds(scope, reblogged) : null;
      const good = readable
        ? rows.filter((r) => r.status.reblogOfId === null || readable.has(r.status.reblogOfId))
        : rows;
      // Rows come newest first; min_id pages grow upwards (newer rows go in front), the others downwards.
      kept = page.minId !== undefined ? [...good, ...kept] : [...kept, ...good];
      if (good.length === rows.length || rows.length < cursor.limit || kept.length >= page.limit) break;
      cursor =
        page.minId !== undefined
          ? { ...page, minId: rows[0].cursor }
          : { ...page, maxId: rows[rows.length - 1].cursor };
    }
    if (kept.length <= page.limit) return kept;
    return page.minId !== undefined ? kept.slice(kept.length - page.limit) : kept.slice(0, page.limit);
  }

  /** A list's timeline: its members' statuses (and boosts) the owner may read, replies per the list's policy. */
  list(scope: ViewerScope, list: { id: string; repliesPolicy: string }, page: PageQuery): ListedStatus[] {
    return this.withReadableReblogs(scope, page, (p) =>
      this.page(
        (
          where,
          order,
        ) => `SELECT s.id, s.updated_at AS version, s.id AS cursor FROM list_accounts la JOIN statuses s ON s.account_id = la.account_id
          WHERE la.list_id = @list AND ${where} AND s.deleted_at IS NULL AND ${available('s', scope)} AND ${visible('s')} AND ${LIST_REPLIES('s')}
            AND ${notHidden('s.account_id', scope, 'h')}
          ORDER BY s.id ${order} LIMIT @cursor_limit`,
        's.id',
        { viewer: scope.viewerId, list: list.id, policy: list.repliesPolicy },
        p,
      ),
    );
  }

  public(scope: ViewerScope, options: PublicTimelineOptions, page: PageQuery): ListedStatus[] {
    const origin = options.local ? 'AND s.local = 1' : options.remote ? 'AND s.local = 0' : '';
    return this.page(
      (where, order) => `SELECT s.id, s.updated_at AS version, s.id AS cursor FROM statuses s
        WHERE s.deleted_at IS NULL AND s.visibility = 'public' AND s.reblog_of_id IS NULL ${origin} AND ${where}
          AND ${WITHOUT_REPLIES('s')} ${options.onlyMedia ? `AND ${WITH_MEDIA('s')}` : ''}
          AND ${available('s', scope)} AND ${notHidden('s.account_id', scope, 'h')}
        ORDER BY s.id ${order} LIMIT @cursor_limit`,
      's.id',
      { viewer: scope.viewerId },
      page,
    );
  }

  tag(scope: ViewerScope, options: TagTimelineOptions, page: PageQuery): ListedStatus[] {
    const origin = options.local ? 'AND s.local = 1' : options.remote ? 'AND s.local = 0' : '';
    const all = options.allTagIds
      .map(
        (_, i) =>
          `AND EXISTS (SELECT 1 FROM statuses_tags ta${i} WHERE ta${i}.status_id = s.id AND ta${i}.tag_id = @all_${i})`,
      )
      .join(' ');
    const none = options.noneTagIds.length
      ? `AND NOT EXISTS (SELECT 1 FROM statuses_tags tn WHERE tn.status_id = s.id AND tn.tag_id IN (SELECT value FROM json_each(@none_tags)))`
      : '';
    const filters = `s.deleted_at IS NULL AND s.visibility = 'public' AND s.reblog_of_id IS NULL ${origin} ${all} ${none}
      ${options.onlyMedia ? `AND ${WITH_MEDIA('s')}` : ''} AND ${available('s', scope)} AND ${notHidden('s.account_id', scope, 'h')}`;
    const params: Record<string, SqlValue> = {
      viewer: scope.viewerId,
      tag: options.anyTagIds[0] ?? null,
      any_tags: jsonIds(options.anyTagIds),
      none_tags: jsonIds(options.noneTagIds),
    };
    options.allTagIds.forEach((id, i) => (params[`all_${i}`] = id));
    if (options.anyTagIds.length === 1) {
      // One tag: walk its (tag_id, status_id) index backwards, newest first, without sorting; each status is
      // looked up in the public statuses' covering index (the table's rows lie a page apart each).
      return this.page(
        (
          where,
          order,
        ) => `SELECT s.id, s.updated_at AS version, st.status_id AS cursor FROM statuses_tags st JOIN statuses s INDEXED BY statuses_public_listing ON s.id = st.status_id
          WHERE st.tag_id = @tag AND ${where} AND ${filters} ORDER BY st.status_id ${order} LIMIT @cursor_limit`,
        'st.status_id',
        params,
        page,
      );
    }
    return this.page(
      (where, order) => `SELECT s.id, s.updated_at AS version, s.id AS cursor FROM statuses s
        WHERE s.id IN (SELECT status_id FROM statuses_tags WHERE tag_id IN (SELECT value FROM json_each(@any_tags))) AND ${where} AND ${filters}
        ORDER BY s.id ${order} LIMIT @cursor_limit`,
      's.id',
      params,
      page,
    );
  }

  account(scope: ViewerScope, accountId: string, options: AccountTimelineOptions, page: PageQuery): ListedStatus[] {
    const parts = [
      options.excludeReplies ? `AND ${WITHOUT_REPLIES('s')}` : '',
      options.excludeReblogs ? 'AND s.reblog_of_id IS NULL' : '',
      options.onlyMedia ? `AND ${WITH_MEDIA('s')}` : '',
      options.taggedId
        ? 'AND EXISTS (SELECT 1 FROM statuses_tags tt WHERE tt.status_id = s.id AND tt.tag_id = @tagged)'
        : '',
    ].join(' ');
    const pinned = options.pinned ? 'JOIN status_pins p ON p.status_id = s.id AND p.account_id = @account' : '';
    return this.withReadableReblogs(scope, page, (p) =>
      this.page(
        (where, order) => `SELECT s.id, s.updated_at AS version, s.id AS cursor FROM statuses s ${pinned}
          WHERE s.account_id = @account AND s.deleted_at IS NULL AND ${where} AND ${visible('s')} ${parts}
          ORDER BY s.id ${order} LIMIT @cursor_limit`,
        's.id',
        { viewer: scope.viewerId, account: accountId, tagged: options.taggedId ?? null },
        p,
      ),
    );
  }

  /** The viewer's favourites or bookmarks, newest first; the cursor is the favourite's or bookmark's id. */
  marked(kind: 'favourites' | 'bookmarks', scope: ViewerScope, page: PageQuery): ListedStatus[] {
    return this.page(
      (
        where,
        order,
      ) => `SELECT s.id, s.updated_at AS version, x.id AS cursor FROM ${kind} x JOIN statuses s ON s.id = x.status_id
        WHERE x.account_id = @viewer AND ${where} AND s.deleted_at IS NULL AND ${available('s', scope)} AND ${visible('s')}
        ORDER BY x.id ${order} LIMIT @cursor_limit`,
      'x.id',
      { viewer: scope.viewerId },
      page,
    );
  }
}

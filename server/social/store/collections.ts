import { int, intOrNull, jsonIds, str, type StoreCore } from './store.ts';

export const COLLECTION_ITEM_STATES = ['pending', 'accepted', 'rejected', 'revoked'] as const;
export type CollectionItemState = (typeof COLLECTION_ITEM_STATES)[number];

export interface CollectionRow {
  id: string;
  accountId: string;
  name: string;
  description: string;
  language: string | null;
  sensitive: boolean;
  discoverable: boolean;
  tagId: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface CollectionItemRow {
  id: string;
  collectionId: string;
  accountId: string;
  state: CollectionItemState;
  position: number;
  createdAt: number;
}

export interface CollectionChanges {
  name?: string;
  description?: string;
  language?: string | null;
  sensitive?: boolean;
  discoverable?: boolean;
  tagId?: string | null;
}

function toCollection(r: Record<string, unknown>): CollectionRow {
  return {
    id: str(r.id),
    accountId: str(r.account_id),
    name: String(r.name),
    description: String(r.description),
    language: (r.language as string | null) ?? null,
    sensitive: int(r.sensitive) === 1,
    discoverable: int(r.discoverable) === 1,
    tagId: r.tag_id === null ? null : str(r.tag_id),
    createdAt: int(r.created_at),
    updatedAt: int(r.updated_at),
  };
}

function toItem(r: Record<string, unknown>): CollectionItemRow {
  return {
    id: str(r.id),
    collectionId: str(r.collection_id),
    accountId: str(r.account_id),
    state: r.state as CollectionItemState,
    position: int(r.position),
    createdAt: int(r.created_at),
  };
}

/** Collections: curated sets of accounts a user recommends (Mastodon 4.6), and their items. */
export class CollectionRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  byId(id: string): CollectionRow | null {
    const r = this.core.sql('SELECT * FROM collections WHERE id = ?').get(id) as Record<string, unknown> | undefined;
    return r ? toCollection(r) : null;
  }

  /** An account's collections, newest first (offset pagination, as Mastodon's). */
  ofAccount(accountId: string, options: { discoverableOnly: boolean; limit: number; offset: number }): CollectionRow[] {
    const rows = this.core
      .sql(
        'SELECT * FROM collections WHERE account_id = ? AND (? = 0 OR discoverable = 1) ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?',
      )
      .all(accountId, options.discoverableOnly ? 1 : 0, options.limit, options.offset) as Record<string, unknown>[];
    return rows.map(toCollection);
  }

  /** Collections (of others) that feature an account, newest first. */
  featuring(accountId: string, options: { limit: number; offset: number }): CollectionRow[] {
    const rows = this.core
      .sql(
        `SELECT c.* FROM collection_items i JOIN collections c ON c.id = i.collection_id
         WHERE i.account_id = ? AND i.state = 'accepted' AND c.discoverable = 1 ORDER BY c.created_at DESC, c.id DESC LIMIT ? OFFSET ?`,
      )
      .all(accountId, options.limit, options.offset) as Record<string, unknown>[];
    return rows.map(toCollection);
  }

  countOf(accountId: string): number {
    return int(
      (this.core.sql('SELECT COUNT(*) AS n FROM collections WHERE account_id = ?').get(accountId) as { n: bigint }).n,
    );
  }

  insert(accountId: string, input: Required<Omit<CollectionChanges, 'tagId'>> & { tagId: string | null }): string {
    const id = this.core.ids.next();
    const now = this.core.now();
    this.core
      .sql(
        'INSERT INTO collections (id, account_id, name, description, language, sensitive, discoverable, tag_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        id,
        accountId,
        input.name,
        input.description,
        input.language,
        input.sensitive ? 1 : 0,
        input.discoverable ? 1 : 0,
        input.tagId,
        now,
        now,
      );
    return id;
  }

  update(id: string, changes: CollectionChanges): void {
    const sets: string[] = [];
    const values: Record<string, unknown> = { id, now: this.core.now() };
    const columns: Record<keyof CollectionChanges, string> = {
      name: 'name',
      description: 'description',
      language: 'language',
      sensitive: 'sensitive',
      discoverable: 'discoverable',
      tagId: 'tag_id',
    };
    for (const [key, column] of Object.entries(columns) as [keyof CollectionChanges, string][]) {
      const v = changes[key];
      if (v === undefined) continue;
      sets.push(`${column} = @${column}`);
      values[column] = typeof v === 'boolean' ? (v ? 1 : 0) : v;
    }
    this.core.sql(`UPDATE collections SET ${[...sets, 'updated_at = @now'].join(', ')} WHERE id = @id`).run(values);
  }

  delete(id: string): void {
    this.core.sql('DELETE FROM collections WHERE id = ?').run(id);
  }

  /** Items of collections in position order; `states` limits which (the owner sees pending ones too). */
  items(collectionIds: readonly string[], states: readonly CollectionItemState[]): CollectionItemRow[] {
    if (collectionIds.length === 0) return [];
    const rows = this.core
      .sql(
        'SELECT * FROM collection_items WHERE collection_id IN (SELECT value FROM json_each(?)) AND state IN (SELECT value FROM json_each(?)) ORDER BY collection_id, position',
      )
      .all(jsonIds(collectionIds), JSON.stringify(states)) as Record<string, unknown>[];
    return rows.map(toItem);
  }

  item(collectionId: string, itemId: string): CollectionItemRow | null {
    const r = this.core
      .sql('SELECT * FROM collection_items WHERE collection_id = ? AND id = ?')
      .get(collectionId, itemId) as Record<string, unknown> | undefined;
    return r ? toItem(r) : null;
  }

  itemOf(collectionId: string, accountId: string): CollectionItemRow | null {
    const r = this.core
      .sql('SELECT * FROM collection_items WHERE collection_id = ? AND account_id = ?')
      .get(collectionId, accountId) as Record<string, unknown> | undefined;
    return r ? toItem(r) : null;
  }

  /** Pending and accepted items (what counts against the limit). */
  liveItemCount(collectionId: string): number {
    return int(
      (
        this.core
          .sql(
            "SELECT COUNT(*) AS n FROM collection_items WHERE collection_id = ? AND state IN ('pending', 'accepted')",
          )
          .get(collectionId) as { n: bigint }
      ).n,
    );
  }

  addItem(collectionId: string, accountId: string, state: CollectionItemState): string {
    const id = this.core.ids.next();
    const position =
      intOrNull(
        (
          this.core
            .sql('SELECT MAX(position) AS p FROM collection_items WHERE collection_id = ?')
            .get(collectionId) as { p: bigint | null }
        ).p,
      ) ?? 0;
    this.core
      .sql(
        'INSERT INTO collection_items (id, collection_id, account_id, state, position, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(id, collectionId, accountId, state, position + 1, this.core.now());
    this.core.sql('UPDATE collections SET updated_at = ? WHERE id = ?').run(this.core.now(), collectionId);
    return id;
  }

  setItemState(itemId: string, state: CollectionItemState): void {
    this.core.sql('UPDATE collection_items SET state = ? WHERE id = ?').run(state, itemId);
  }

  removeItem(itemId: string): void {
    this.core.sql('DELETE FROM collection_items WHERE id = ?').run(itemId);
  }
}

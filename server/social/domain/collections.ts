import { DetailsCollector, forbidden, notFound, refused } from '../errors.ts';
import type { Account, CollectionChanges, CollectionItemRow, CollectionRow, SocialStore } from '../store/index.ts';
import { graphemeLength } from '../text/index.ts';

/** Mastodon's limits: a name of 40 characters, a description of 100, 25 accounts per collection. */
export const COLLECTION_LIMITS = { name: 40, description: 100, items: 25, perUser: 10 } as const;
const TAG_NAME = /^[\p{L}\p{N}\p{M}_·]{1,100}$/u;

export interface CollectionInput {
  name?: string;
  description?: string;
  language?: string | null;
  sensitive?: boolean;
  discoverable?: boolean;
  tagName?: string | null;
}

/**
 * Collections of accounts a user recommends (Mastodon 4.6). Accounts of this server that chose to be
 * discoverable and do not block the curator can be featured and are accepted at once; accounts of other
 * servers would have to approve over ActivityPub, which Homeport does not speak for collections yet, so they
 * are refused. A featured account may take itself out (revoke).
 */
export class CollectionService {
  private readonly store: SocialStore;
  constructor(store: SocialStore) {
    this.store = store;
  }

  /** A collection the viewer may see: not one whose owner blocks them. */
  visible(viewer: Account | null, id: string): CollectionRow {
    const collection = this.store.collections.byId(id);
    if (!collection) throw notFound();
    if (
      viewer &&
      viewer.id !== collection.accountId &&
      this.store.relationships.blocking(collection.accountId, viewer.id)
    )
      throw forbidden();
    return collection;
  }

  /** A collection of the viewer's own, to change. */
  owned(viewer: Account, id: string): CollectionRow {
    const collection = this.store.collections.byId(id);
    if (!collection) throw notFound();
    if (collection.accountId !== viewer.id) throw forbidden();
    return collection;
  }

  create(owner: Account, input: CollectionInput & { name: string }, accountIds: readonly string[]): CollectionRow {
    const changes = this.check(input);
    if (this.store.collections.countOf(owner.id) >= COLLECTION_LIMITS.perUser)
      throw refused(`you cannot have more than ${COLLECTION_LIMITS.perUser} collections`);
    const unique = [...new Set(accountIds)];
    if (unique.length > COLLECTION_LIMITS.items)
      throw refused(`a collection holds at most ${COLLECTION_LIMITS.items} accounts`);
    const featured = unique.map((id) => this.featurable(owner, id));
    return this.store.transaction(() => {
      const id = this.store.collections.insert(owner.id, {
        name: changes.name!,
        description: changes.description ?? '',
        language: changes.language ?? null,
        sensitive: changes.sensitive ?? false,
        discoverable: changes.discoverable ?? true,
        tagId: changes.tagId ?? null,
      });
      for (const account of featured) this.store.collections.addItem(id, account.id, 'accepted');
      return this.store.collections.byId(id)!;
    });
  }

  update(owner: Account, id: string, input: CollectionInput): CollectionRow {
    const collection = this.owned(owner, id);
    this.store.collections.update(collection.id, this.check(input));
    return this.store.collections.byId(collection.id)!;
  }

  delete(owner: Account, id: string): void {
    this.store.collections.delete(this.owned(owner, id).id);
  }

  addItem(owner: Account, collectionId: string, accountId: string): CollectionItemRow {
    const collection = this.owned(owner, collectionId);
    const account = this.featurable(owner, accountId);
    const existing = this.store.collections.itemOf(collection.id, account.id);
    if (existing && (existing.state === 'accepted' || existing.state === 'pending'))
      throw refused('the account is already in this collection');
    if (existing) throw forbidden('the account took itself out of this collection');
    if (this.store.collections.liveItemCount(collection.id) >= COLLECTION_LIMITS.items)
      throw refused(`a collection holds at most ${COLLECTION_LIMITS.items} accounts`);
    const itemId = this.store.collections.addItem(collection.id, account.id, 'accepted');
    return this.store.collections.item(collection.id, itemId)!;
  }

  removeItem(owner: Account, collectionId: string, itemId: string): void {
    const collection = this.owned(owner, collectionId);
    const item = this.store.collections.item(collection.id, itemId);
    if (!item) throw notFound();
    this.store.collections.removeItem(item.id);
  }

  /** The featured account takes itself out of someone's collection. */
  revoke(viewer: Account, collectionId: string, itemId: string): void {
    const item = this.store.collections.item(collectionId, itemId);
    if (!item) throw notFound();
    if (item.accountId !== viewer.id) throw forbidden();
    this.store.collections.setItemState(item.id, 'revoked');
  }

  /** Items as the viewer sees them: the owner also sees pending ones; nobody sees accounts they block. */
  itemsFor(viewer: Account | null, collections: readonly CollectionRow[]): Map<string, CollectionItemRow[]> {
    const result = new Map<string, CollectionItemRow[]>(collections.map((c) => [c.id, []]));
    const owned = collections.filter((c) => viewer && c.accountId === viewer.id).map((c) => c.id);
    const others = collections.filter((c) => !viewer || c.accountId !== viewer.id).map((c) => c.id);
    const items = [
      ...this.store.collections.items(owned, ['pending', 'accepted']),
      ...this.store.collections.items(others, ['accepted']),
    ];
    for (const item of items) {
      if (viewer && this.store.relationships.blocking(viewer.id, item.accountId)) continue;
      result.get(item.collectionId)!.push(item);
    }
    return result;
  }

  private featurable(owner: Account, accountId: string): Account {
    const account = this.store.accounts.byId(accountId);
    if (!account || account.deletedAt !== null || account.suspendedAt !== null) throw notFound();
    if (account.domain !== null) throw forbidden('accounts of other servers cannot be added to collections yet');
    if (
      account.id !== owner.id &&
      (!account.discoverable ||
        this.store.relationships.blocking(account.id, owner.id) ||
        this.store.relationships.blocking(owner.id, account.id))
    ) {
      throw forbidden('this account cannot be added to collections');
    }
    return account;
  }

  private check(input: CollectionInput): CollectionChanges {
    const details = new DetailsCollector();
    const changes: CollectionChanges = {};
    if (input.name !== undefined) {
      const name = input.name.trim();
      if (!name) details.add('name', 'ERR_BLANK', "can't be blank");
      else if (graphemeLength(name) > COLLECTION_LIMITS.name)
        details.add('name', 'ERR_TOO_LONG', `is too long (maximum is ${COLLECTION_LIMITS.name} characters)`);
      changes.name = name;
    }
    if (input.description !== undefined) {
      if (graphemeLength(input.description) > COLLECTION_LIMITS.description)
        details.add(
          'description',
          'ERR_TOO_LONG',
          `is too long (maximum is ${COLLECTION_LIMITS.description} characters)`,
        );
      changes.description = input.description;
    }
    if (input.language !== undefined) {
      if (input.language !== null && input.language !== '' && !/^[a-z]{2,3}$/.test(input.language))
        details.add('language', 'ERR_INVALID', 'is not a valid language code');
      changes.language = input.language || null;
    }
    const tag = input.tagName === undefined ? undefined : (input.tagName?.replace(/^#/, '') ?? '');
    if (tag && !TAG_NAME.test(tag)) details.add('tag_name', 'ERR_INVALID', 'is not a valid hashtag');
    if (input.sensitive !== undefined) changes.sensitive = input.sensitive;
    if (input.discoverable !== undefined) changes.discoverable = input.discoverable;
    details.throwIfAny();
    // The hashtag is made only once the request is known to be good.
    if (tag !== undefined) changes.tagId = tag ? this.store.statuses.ensureTag(tag) : null;
    return changes;
  }
}

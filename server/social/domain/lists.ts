import { notFound, ValidationFailure } from '../errors.ts';
import { owned } from './owned.ts';
import type { Account, ListRow, RepliesPolicy, SocialStore } from '../store/index.ts';

const TITLE_MAX = 255;
/** Lists one user may have, and accounts one list may hold (Mastodon's limits). */
export const MAX_LISTS = 50;
export const MAX_LIST_ACCOUNTS = 500;

export interface ListChanges {
  title?: string;
  repliesPolicy?: RepliesPolicy;
  exclusive?: boolean;
}

/** A title trimmed and bounded; undefined when left out (and not required). */
function checkTitle(raw: string | undefined, required: boolean): string | undefined {
  const t = raw?.trim();
  if (t === undefined || t === '') {
    if (required || raw !== undefined) throw ValidationFailure.single('title', 'ERR_BLANK', "can't be blank");
    return undefined;
  }
  if ([...t].length > TITLE_MAX)
    throw ValidationFailure.single('title', 'ERR_TOO_LONG', `is too long (maximum is ${TITLE_MAX} characters)`);
  return t;
}

/** Lists of accounts a user reads apart from home: their owner makes, changes and fills them. */
export class ListService {
  private readonly store: SocialStore;
  constructor(store: SocialStore) {
    this.store = store;
  }

  /** The caller's own list; anyone else's is a 404, as if it did not exist. */
  own(me: Account, id: string): ListRow {
    return owned(this.store.lists.byId(id), me);
  }

  create(me: Account, input: ListChanges): ListRow {
    const title = checkTitle(input.title, true)!;
    if (this.store.lists.ofOwner(me.id).length >= MAX_LISTS)
      throw ValidationFailure.single('base', 'ERR_TOO_LONG', `you cannot have more than ${MAX_LISTS} lists`);
    return this.store.lists.create(me.id, {
      title,
      repliesPolicy: input.repliesPolicy ?? 'list',
      exclusive: input.exclusive ?? false,
    });
  }

  update(me: Account, id: string, changes: ListChanges): ListRow {
    const list = this.own(me, id);
    this.store.lists.update(list.id, {
      title: checkTitle(changes.title, false) ?? list.title,
      repliesPolicy: changes.repliesPolicy ?? list.repliesPolicy,
      exclusive: changes.exclusive ?? list.exclusive,
    });
    return this.store.lists.byId(list.id)!;
  }

  remove(me: Account, id: string): void {
    this.store.lists.delete(this.own(me, id).id);
  }

  /** Adds accounts the owner follows (or asked to follow), none of them in the list yet; all or nothing. */
  addMembers(me: Account, id: string, accountIds: readonly string[]): void {
    const list = this.own(me, id);
    const unique = [...new Set(accountIds)];
    const accounts = this.store.accounts.byIds(unique);
    if (accounts.length !== unique.length) throw notFound();
    const strangers = accounts.filter(
      (a) => !this.store.relationships.follow(me.id, a.id) && !this.store.relationships.followRequest(me.id, a.id),
    );
    if (strangers.length)
      throw ValidationFailure.single(
        'account_ids',
        'ERR_INVALID',
        `must be accounts you follow: ${strangers.map((a) => a.id).join(', ')}`,
      );
    const fresh = unique.filter((a) => !this.store.lists.isMember(list.id, a));
    if (fresh.length !== unique.length)
      throw ValidationFailure.single('account_ids', 'ERR_TAKEN', 'are already in the list');
    this.store.transaction(() => this.store.lists.addMembers(list.id, fresh));
  }

  removeMembers(me: Account, id: string, accountIds: readonly string[]): void {
    this.store.lists.removeMembers(this.own(me, id).id, accountIds);
  }
}

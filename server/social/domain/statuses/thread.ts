import { forbidden, notFound } from '../../errors.ts';
import type { Account, SocialStore, StatusRow } from '../../store/index.ts';
import { MAX_ANCESTORS, MAX_DESCENDANTS } from './inputs.ts';

/** Which statuses a viewer may read or act on, and the threads around them. */
export class StatusReader {
  private readonly d: { store: SocialStore };

  constructor(store: SocialStore) {
    this.d = { store };
  }

  /** The status if `viewer` may read it; 404 otherwise (deleted, private, blocked, unknown). */
  readable(viewer: Account | null, id: string): StatusRow {
    const status = this.d.store.timelines.readable(viewer?.id ?? null, id);
    if (!status) throw notFound();
    return status;
  }

  /** The status an action applies to: a reblog wrapper stands for the status it reblogs. */
  actionTarget(viewer: Account, id: string): StatusRow {
    const status = this.readable(viewer, id);
    return status.reblogOfId ? this.readable(viewer, status.reblogOfId) : status;
  }

  /** Ancestors (oldest first) and descendants (depth first, in reply order) the viewer may read. */
  context(viewer: Account | null, status: StatusRow): { ancestors: StatusRow[]; descendants: StatusRow[] } {
    const scope = this.d.store.timelines.scope(viewer?.id ?? null);
    const ancestorIds = this.d.store.timelines.ancestorIds(status.id, MAX_ANCESTORS);
    const below = this.d.store.timelines.descendantRows(status.id, MAX_DESCENDANTS);
    const readable = this.d.store.timelines.readableIds(scope, [...ancestorIds, ...below.map((d) => d.id)]);
    const ancestors = this.d.store.statuses.byIds(ancestorIds.filter((id) => readable.has(id)).reverse());
    // Depth first: each reply followed by its own replies, siblings oldest first; unreadable ones cut their branch.
    const children = new Map<string, string[]>();
    for (const d of below) {
      const list = children.get(d.parentId) ?? [];
      list.push(d.id);
      children.set(d.parentId, list);
    }
    const order: string[] = [];
    const walk = (id: string) => {
      for (const child of children.get(id) ?? []) {
        if (!readable.has(child)) continue;
        order.push(child);
        walk(child);
      }
    };
    walk(status.id);
    return { ancestors, descendants: this.d.store.statuses.byIds(order) };
  }

  /** The status being replied to: it must be readable by the author (a reblog stands for its original). */
  replyTarget(author: Account, id: string): StatusRow {
    const thread = this.d.store.timelines.readable(author.id, id);
    const target = thread?.reblogOfId ? this.d.store.timelines.readable(author.id, thread.reblogOfId) : thread;
    if (!target) throw notFound('The post you are trying to reply to does not appear to exist.');
    return target;
  }

  /**
   * The status a new post quotes: one the author may read (a reblog stands for the status it reblogs) and
   * whose quote policy lets the author quote it automatically (Mastodon 4.5: public, followers of its
   * author, or nobody but the author; private and direct posts are never quotable by others).
   */
  quoteTarget(author: Account, id: string): StatusRow {
    const status = this.actionTarget(author, id);
    if (status.accountId === author.id) return status;
    const policy =
      status.visibility === 'private' || status.visibility === 'direct' ? 'nobody' : status.quoteApprovalPolicy;
    const allowed =
      policy === 'public' ||
      (policy === 'followers' && this.d.store.relationships.follow(author.id, status.accountId) !== null);
    if (!allowed || this.d.store.relationships.blocking(status.accountId, author.id))
      throw forbidden('The author does not allow quoting this post');
    return status;
  }
}

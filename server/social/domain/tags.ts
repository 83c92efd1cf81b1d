import { notFound, refused, ValidationFailure } from '../errors.ts';
import { LIMITS } from '../limits.ts';
import type { Account, FeaturedTagRow, SocialStore, TagRow } from '../store/index.ts';

/** A hashtag name as Mastodon accepts one: letters, digits, marks, underscores and middle dots. */
const TAG_NAME = /^[\p{L}\p{N}\p{M}_·]{1,100}$/u;

/**
 * Hashtags: users follow them and feature them on their profile; staff review how they are written and where
 * they may show.
 */
export class TagService {
  private readonly store: SocialStore;
  constructor(store: SocialStore) {
    this.store = store;
  }

  /** A valid name's tag (a leading # dropped); one never used yet is created when `create` (Mastodon's find_or_create), else a 404. */
  named(name: string, create: boolean): TagRow {
    const clean = name.replace(/^#/, '');
    if (!TAG_NAME.test(clean)) throw notFound();
    const existing = this.store.tags.byName(clean);
    if (existing) return existing;
    if (!create) throw notFound();
    return this.store.tags.byId(this.store.statuses.ensureTag(clean))!;
  }

  follow(me: Account, tag: TagRow): void {
    this.store.tags.follow(me.id, tag.id);
  }

  unfollow(me: Account, tag: TagRow): void {
    this.store.tags.unfollow(me.id, tag.id);
  }

  /** Features a tag on the profile (at most Mastodon's number of them); a tag featured already stays as it is. */
  feature(me: Account, tag: TagRow): FeaturedTagRow {
    const featured = this.store.tags.featured(me.id);
    const max = LIMITS.accounts.max_featured_tags;
    if (!featured.some((f) => f.tag.id === tag.id) && featured.length >= max)
      throw ValidationFailure.single('featured_tag', 'ERR_TOO_LONG', `you cannot feature more than ${max} hashtags`);
    return this.store.transaction(() => {
      const row = this.store.tags.feature(me.id, tag.id);
      // Other servers re-read the featured collections when the profile is updated.
      this.store.events.emit('account.updated', { accountId: me.id });
      return row;
    });
  }

  /** Features the tag a name typed by the user names (created if new); an invalid name is a validation error. */
  featureNamed(me: Account, name: string): FeaturedTagRow {
    const clean = name.trim().replace(/^#/, '');
    if (!TAG_NAME.test(clean)) throw ValidationFailure.single('name', 'ERR_INVALID', 'is not a valid hashtag');
    return this.feature(me, this.named(clean, true));
  }

  unfeature(me: Account, tagId: string): void {
    this.store.transaction(() => {
      this.store.tags.unfeature(me.id, tagId);
      this.store.events.emit('account.updated', { accountId: me.id });
    });
  }

  /** Staff's review of a tag: its capitals (the letters may not change), and whether it may trend, be linked and be listed. */
  review(
    id: string,
    changes: { displayName?: string; trendable?: boolean; usable?: boolean; listable?: boolean },
  ): TagRow {
    const tag = this.store.tags.byId(id);
    if (!tag) throw notFound();
    const displayName = changes.displayName?.trim().replace(/^#/, '');
    // Only the capitals may change, as Mastodon's Tag validates display_name.
    if (displayName !== undefined && displayName.toLowerCase() !== tag.name.toLowerCase())
      throw refused('display_name must match the tag’s name');
    this.store.tags.review(tag.id, { ...changes, displayName: displayName || undefined });
    return this.store.tags.byId(tag.id)!;
  }
}

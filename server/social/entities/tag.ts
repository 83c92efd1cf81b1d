import type { Account, FeaturedTagRow, SocialStore, TagDay, TagReview, TagRow } from '../store/index.ts';
import { isoDate } from './dates.ts';
import type { SocialUrls } from '../urls.ts';

/** Uses per day as Mastodon's Trends::History shows them: days as Unix-time strings, counts as strings. */
export function serializeHistory(history: readonly TagDay[]): Record<string, string>[] {
  return history.map((d) => ({ day: String(d.day / 1000), uses: String(d.uses), accounts: String(d.accounts) }));
}

/** The viewer's ties to a tag, shown only to a signed-in viewer (Mastodon's TagRelationshipsPresenter). */
export interface TagRelation {
  following: boolean;
  featuring: boolean;
}

/** The Tag entity: its uses over the last week (days as Unix-time strings, counts as strings, as Mastodon). */
export function serializeTag(
  urls: SocialUrls,
  tag: TagRow,
  history: readonly TagDay[],
  relation: TagRelation | null,
): Record<string, unknown> {
  return {
    id: tag.id,
    name: tag.displayName,
    url: urls.tagUrl(tag.name),
    history: serializeHistory(history),
    ...(relation ?? {}),
  };
}

/** Tag entities for a viewer (null: anonymous or an app token), with their history and the viewer's relation. */
export function presentTags(
  store: SocialStore,
  urls: SocialUrls,
  tags: readonly TagRow[],
  viewer: Account | null,
): Record<string, unknown>[] {
  const ids = tags.map((t) => t.id);
  const history = store.search.tagHistory(ids);
  const following = viewer ? store.tags.followedAmong(viewer.id, ids) : null;
  const featuring = viewer ? store.tags.featuredAmong(viewer.id, ids) : null;
  return tags.map((t) =>
    serializeTag(
      urls,
      t,
      history.get(t.id)!,
      following && featuring ? { following: following.has(t.id), featuring: featuring.has(t.id) } : null,
    ),
  );
}

/** The FeaturedTag entity: the tag as featured on a profile, with the account's own use of it. */
export function serializeFeaturedTag(profileUrl: string, f: FeaturedTagRow): Record<string, unknown> {
  return {
    id: f.id,
    name: f.tag.displayName,
    url: `${profileUrl}/tagged/${encodeURIComponent(f.tag.name)}`,
    statuses_count: String(f.statusesCount),
    last_status_at: f.lastStatusAt === null ? null : isoDate(f.lastStatusAt),
  };
}

/** Admin::Tag: the Tag with its id and staff's review (unreviewed tags may be used and listed, not trended). */
export function serializeAdminTag(
  urls: SocialUrls,
  tag: TagRow,
  history: readonly TagDay[],
  review: TagReview,
): Record<string, unknown> {
  return {
    ...serializeTag(urls, tag, history, null),
    trendable: review.trendable === true,
    usable: review.usable !== false,
    listable: review.listable !== false,
    requires_review: review.trendable === null,
  };
}

/** Admin::Tag entities of these tags, each with its history and review. */
export function presentAdminTags(
  store: SocialStore,
  urls: SocialUrls,
  tags: readonly TagRow[],
): Record<string, unknown>[] {
  const ids = tags.map((t) => t.id);
  const history = store.search.tagHistory(ids);
  const reviews = store.trends.tagReviews(ids);
  return tags.map((t) => serializeAdminTag(urls, t, history.get(t.id)!, reviews.get(t.id)!));
}

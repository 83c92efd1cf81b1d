import type { FeaturedTagRow, TagDay, TagRow } from '../store/index.ts';
import { isoDate } from './dates.ts';
import type { SocialUrls } from '../urls.ts';

/** Uses per day as Mastodon's Trends::History shows them: days as Unix-time strings, counts as strings. */
export function serializeHistory(history: readonly TagDay[]): Record<string, string>[] {
  return history.map((d) => ({ day: String(d.day / 1000), uses: String(d.uses), accounts: String(d.accounts) }));
}

/** The Tag entity: its uses over the last week (days as Unix-time strings, counts as strings, as Mastodon). */
export function serializeTag(
  urls: SocialUrls,
  tag: TagRow,
  history: readonly TagDay[],
  following: boolean | null,
): Record<string, unknown> {
  return {
    id: tag.id,
    name: tag.displayName,
    url: urls.tagUrl(tag.name),
    history: serializeHistory(history),
    ...(following === null ? {} : { following }),
  };
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

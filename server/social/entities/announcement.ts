import type { AnnouncementRow, ReactionCount } from '../store/index.ts';
import { formatPlainText } from '../text/index.ts';
import type { SocialUrls } from '../urls.ts';
import { isoTime, isoTimeOrNull } from './dates.ts';

/** The Announcement entity for one reader (`read`: dismissed by them; `me` on each reaction). */
export function serializeAnnouncement(
  urls: SocialUrls,
  a: AnnouncementRow & { read?: boolean },
  reactions: readonly ReactionCount[],
): Record<string, unknown> {
  return {
    id: a.id,
    content: formatPlainText(a.text, { tagUrl: (name) => urls.tagUrl(name) }),
    starts_at: isoTimeOrNull(a.startsAt),
    ends_at: isoTimeOrNull(a.endsAt),
    all_day: a.allDay,
    published_at: isoTime(a.publishedAt),
    updated_at: isoTime(a.updatedAt),
    ...(a.read === undefined ? {} : { read: a.read }),
    mentions: [],
    statuses: [],
    tags: [],
    emojis: [],
    reactions: reactions.map((r) => ({ name: r.name, count: r.count, me: r.me })),
  };
}

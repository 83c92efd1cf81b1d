import type { ScheduledStatusRow, SocialStore } from '../store/index.ts';
import type { SocialUrls } from '../urls.ts';
import { isoTime } from './dates.ts';
import { serializeMedia } from './media.ts';

/** The ScheduledStatus entity: the parameters as they will be posted, and the attached media. */
export function presentScheduled(
  store: SocialStore,
  urls: SocialUrls,
  rows: readonly ScheduledStatusRow[],
): Record<string, unknown>[] {
  const media = store.media.forScheduled(rows.map((r) => r.id));
  return rows.map((r) => {
    const p = r.params;
    return {
      id: r.id,
      scheduled_at: isoTime(r.scheduledAt),
      params: {
        text: p.text,
        poll: p.poll
          ? {
              options: p.poll.options,
              expires_in: p.poll.expiresIn,
              multiple: p.poll.multiple,
              hide_totals: p.poll.hideTotals,
            }
          : null,
        media_ids: p.mediaIds,
        sensitive: p.sensitive,
        spoiler_text: p.spoilerText,
        visibility: p.visibility,
        // Ids are strings here as everywhere: a 64-bit id does not survive a JSON number.
        in_reply_to_id: p.inReplyToId,
        language: p.language,
        application_id: r.applicationId,
        scheduled_at: null,
        idempotency: p.idempotency,
        with_rate_limit: false,
        quoted_status_id: p.quotedStatusId ?? null,
        // Present only when the client chose one (as Mastodon echoes the parameters it was given).
        ...(p.quoteApprovalPolicy ? { quote_approval_policy: p.quoteApprovalPolicy } : {}),
      },
      media_attachments: (media.get(r.id) ?? []).map((m) => serializeMedia(urls, m)),
    };
  });
}

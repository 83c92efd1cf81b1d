import type { DeletedStatusRoute } from '../events.ts';
import type { Visibility } from '../status-row.ts';
import { bool, idOrNull, str, type StoreCore } from './store.ts';

/**
 * What streaming needs to tell the deletion of each live status of `accountId` (reblogs included) to every
 * stream that may have shown it: its visibility and kind, its hashtags, whether it has media, which home feeds
 * hold it. One statement for all of them, read before the account's deletion takes those rows away.
 */
export function liveStatusRoutes(core: StoreCore, accountId: string): DeletedStatusRoute[] {
  const rows = core
    .sql(
      `SELECT s.id, s.visibility, s.local, s.reblog_of_id, s.in_reply_to_id, s.in_reply_to_account_id,
         EXISTS (SELECT 1 FROM media_attachments m WHERE m.status_id = s.id) AS media,
         (SELECT json_group_array(lower(t.name)) FROM statuses_tags st JOIN tags t ON t.id = st.tag_id
           WHERE st.status_id = s.id) AS tags,
         (SELECT json_group_array(CAST(h.account_id AS TEXT)) FROM home_feed h WHERE h.status_id = s.id) AS holders
       FROM statuses s WHERE s.account_id = ? AND s.deleted_at IS NULL`,
    )
    .all(accountId) as {
    id: bigint;
    visibility: Visibility;
    local: bigint;
    reblog_of_id: bigint | null;
    in_reply_to_id: bigint | null;
    in_reply_to_account_id: bigint | null;
    media: bigint;
    tags: string;
    holders: string;
  }[];
  return rows.map((r) => ({
    id: str(r.id),
    accountId,
    visibility: r.visibility,
    local: bool(r.local),
    reblogOfId: idOrNull(r.reblog_of_id),
    inReplyToId: idOrNull(r.in_reply_to_id),
    inReplyToAccountId: idOrNull(r.in_reply_to_account_id),
    hasMedia: bool(r.media),
    tags: JSON.parse(r.tags) as string[],
    homeRecipients: JSON.parse(r.holders) as string[],
  }));
}

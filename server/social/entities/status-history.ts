import type { SocialStore, StatusEditRow, StatusRow } from '../store/index.ts';
import type { SocialUrls } from '../urls.ts';
import type { AccountPresenter } from './account.ts';
import { isoTime } from './dates.ts';
import { serializeMedia } from './media.ts';

/** StatusEdit entities, oldest first; a status never edited has its current state as the only entry. */
export function statusHistory(
  store: SocialStore,
  urls: SocialUrls,
  accounts: AccountPresenter,
  status: StatusRow,
  edits: readonly StatusEditRow[],
): Record<string, unknown>[] {
  const author = store.accounts.byId(status.accountId)!;
  const accountJson = accounts.one(author);
  const currentMedia = store.media.forStatuses([status.id]).get(status.id) ?? [];
  const currentPoll = status.pollId ? store.polls.byId(status.pollId) : null;
  if (edits.length === 0) {
    return [
      {
        content: status.content,
        spoiler_text: status.spoilerText,
        sensitive: status.sensitive,
        created_at: isoTime(status.createdAt),
        account: accountJson,
        poll: currentPoll ? { options: currentPoll.options.map((title) => ({ title })) } : null,
        media_attachments: currentMedia.map((m) => serializeMedia(urls, m, accounts.remoteMedia)),
        emojis: [],
      },
    ];
  }
  const mediaIds = [...new Set(edits.flatMap((e) => e.mediaAttachmentIds))];
  const media = new Map(store.media.byIds(mediaIds).map((m) => [m.id, m]));
  return edits.map((e) => ({
    content: e.content,
    spoiler_text: e.spoilerText,
    sensitive: e.sensitive,
    created_at: isoTime(e.createdAt),
    account: accountJson,
    poll: e.pollOptions ? { options: e.pollOptions.map((title) => ({ title })) } : null,
    media_attachments: e.mediaAttachmentIds
      .map((id, i) => {
        const m = media.get(id);
        return m
          ? {
              ...serializeMedia(urls, m, accounts.remoteMedia),
              description: e.mediaDescriptions[i] ?? null,
            }
          : null;
      })
      .filter((m) => m !== null),
    emojis: [],
  }));
}

import type { SocialContext } from '../context.ts';
import type { NotificationRow, PushSubscriptionRow } from '../store/index.ts';
import { htmlToText } from '../text/index.ts';

/** Titles as Mastodon's English locale words them. */
const TITLES: Record<string, (name: string) => string> = {
  mention: (n) => `You were mentioned by ${n}`,
  status: (n) => `${n} just posted`,
  reblog: (n) => `${n} boosted your post`,
  follow: (n) => `${n} is now following you`,
  follow_request: (n) => `New follow request from ${n}`,
  favourite: (n) => `${n} favorited your post`,
  poll: () => 'A poll has ended',
  update: (n) => `${n} edited a post`,
  'admin.sign_up': (n) => `${n} signed up`,
  'admin.report': (n) => `${n} filed a report`,
  quote: (n) => `${n} quoted your post`,
  quoted_update: (n) => `${n} edited a post you quoted`,
};

const BODY_LIMIT = 140;

function truncate(text: string): string {
  const chars = [...text.replace(/\s+/g, ' ').trim()];
  return chars.length <= BODY_LIMIT ? chars.join('') : `${chars.slice(0, BODY_LIMIT - 1).join('')}…`;
}

/**
 * What Mastodon pushes (its Web::NotificationSerializer): enough for a phone to show the alert, and the
 * token to fetch the notification with. Null when the notification or its sender is gone.
 */
export function pushPayload(
  ctx: SocialContext,
  subscription: PushSubscriptionRow,
  notification: NotificationRow,
): string | null {
  const { store } = ctx;
  const sender = store.accounts.byId(notification.fromAccountId);
  if (!sender) return null;
  const user = store.users.byAccountId(subscription.accountId);
  const name = sender.displayName.trim() || sender.username;
  const status = notification.statusId ? store.statuses.byId(notification.statusId) : null;
  const proper = status?.reblogOfId ? store.statuses.byId(status.reblogOfId) : status;
  const body = proper ? proper.spoilerText || htmlToText(proper.content) : htmlToText(ctx.presenter.noteHtml(sender));
  const json = JSON.stringify({
    access_token: subscription.accessToken,
    preferred_locale: user?.locale ?? 'en',
    notification_id: notification.id,
    notification_type: notification.type,
    icon: ctx.presenter.avatarUrl(sender),
    title: (TITLES[notification.type] ?? ((n: string) => `New notification from ${n}`))(name),
    body: truncate(body),
  });
  // A JSON number, as Mastodon sends it (receivers parse a long): written digit for digit, since a 64-bit id
  // does not survive a JavaScript number.
  return json.replace(`"notification_id":"${notification.id}"`, `"notification_id":${notification.id}`);
}

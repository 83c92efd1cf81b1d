/* What a system notification says of a social notification (the desktop app shows them through the preload). */

/** The fields of a streamed Notification a desktop notice shows. */
export interface StreamedNotification {
  type: string;
  account: { display_name: string; username: string; acct: string };
  status?: { content: string } | null;
}

const NOTICE_WHAT: Record<string, string> = {
  mention: 'mentioned you',
  status: 'posted',
  reblog: 'boosted your post',
  follow: 'followed you',
  follow_request: 'asked to follow you',
  favourite: 'favourited your post',
  poll: 'a poll ended',
  update: 'edited a post',
  quote: 'quoted your post',
  'admin.sign_up': 'signed up',
  'admin.report': 'filed a report',
  moderation_warning: 'moderation decision',
};

/** A post's HTML as the plain text a system notification can show. */
function plainText(html: string): string {
  const entities: Record<string, string> = {
    '&amp;': '&',
    '&lt;': '<',
    '&gt;': '>',
    '&quot;': '"',
    '&#39;': "'",
    '&nbsp;': ' ',
  };
  return html
    .replace(/<br\s*\/?>|<\/p>/gi, ' ')
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (m) => entities[m])
    .replace(/\s+/g, ' ')
    .trim();
}

/** Title and text of the desktop notice for a streamed notification (post text without its markup). */
export function desktopNotice(n: StreamedNotification): [string, string] {
  const who = n.account.display_name || n.account.username;
  const text = n.status ? plainText(n.status.content) : `@${n.account.acct}`;
  return [`${who} ${NOTICE_WHAT[n.type] ?? n.type}`, text];
}

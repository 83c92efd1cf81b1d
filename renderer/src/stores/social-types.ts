/** The Mastodon API entities the social client reads (the parts it shows), and its compose draft. */

export interface SocialAccount {
  id: string;
  username: string;
  acct: string;
  display_name: string;
  avatar: string;
  /** The profile's wide header image (Mastodon gives a placeholder when none was set). */
  header?: string;
  avatar_description?: string;
  header_description?: string;
  url: string;
  note?: string;
  fields?: { name: string; value: string; verified_at?: string | null }[];
  followers_count?: number;
  following_count?: number;
  statuses_count?: number;
}

export interface SocialStatus {
  id: string;
  uri: string;
  url: string | null;
  created_at: string;
  content: string;
  spoiler_text: string;
  edited_at?: string | null;
  /** Set only by this client when the post was deleted here (lists drop it). */
  deleted?: boolean;
  visibility: string;
  account: SocialAccount;
  reblog: SocialStatus | null;
  favourited?: boolean;
  reblogged?: boolean;
  bookmarked?: boolean;
  /** The conversation is muted (no more notifications from it). */
  muted?: boolean;
  /** Pinned to the author's profile (one's own posts only). */
  pinned?: boolean;
  in_reply_to_id?: string | null;
  in_reply_to_account_id?: string | null;
  language?: string | null;
  mentions?: { id: string; acct: string; username: string; url: string }[];
  tags?: { name: string; url: string }[];
  /** A link's preview, when the server made one. */
  card?: {
    url: string;
    title: string;
    description: string;
    image: string | null;
    provider_name: string;
    type: string;
  } | null;
  /** Mastodon 4.5 quote: the quoted post when it may be shown, and the state of the quote. */
  quote?: { state: string; quoted_status: SocialStatus | null } | null;
  /** Whether the viewer may quote this post: automatic, manual (the author approves) or denied. */
  quote_approval?: {
    automatic: string[];
    manual: string[];
    current_user: 'automatic' | 'manual' | 'denied' | 'unknown';
  };
  /** Which of the user's filters match, with the action each asks for. */
  filtered?: { filter: { title: string; filter_action: 'warn' | 'hide' | 'blur' }; keyword_matches: string[] | null }[];
  favourites_count: number;
  reblogs_count: number;
  replies_count: number;
  sensitive?: boolean;
  media_attachments?: SocialMedia[];
  poll?: SocialPoll | null;
}

export type StatusAction = 'favourite' | 'reblog' | 'bookmark' | 'mute' | 'pin';

export interface SocialPoll {
  id: string;
  expired: boolean;
  expires_at: string | null;
  multiple: boolean;
  votes_count: number;
  voted?: boolean;
  own_votes?: number[];
  options: { title: string; votes_count: number | null }[];
}

export interface SocialMedia {
  id: string;
  type: string;
  url: string | null;
  preview_url: string | null;
  description: string | null;
  /** A blurred stand-in to show while loading or while the media is hidden as sensitive. */
  blurhash?: string | null;
  meta?: { original?: { width?: number; height?: number }; focus?: { x: number; y: number } } | null;
}

/** One group of the grouped notifications API, with its accounts and status resolved. */
export interface NotificationGroupView {
  key: string;
  type: string;
  count: number;
  accounts: SocialAccount[];
  status: SocialStatus | null;
  latest: string;
  /** When the newest notification of the group came (Mastodon's latest_page_notification_at). */
  at: string | null;
}

export interface GroupedResults {
  accounts: SocialAccount[];
  statuses: SocialStatus[];
  notification_groups: {
    group_key: string;
    type: string;
    notifications_count: number;
    sample_account_ids: string[];
    status_id?: string | null;
    latest_page_notification_at?: string;
    most_recent_notification_id: string;
  }[];
}

export interface ComposeDraft {
  /** The id of the post being edited; null for a new post (delete and redraft, a reply, a quote). */
  editing: string | null;
  text: string;
  spoilerText: string;
  visibility: string;
  /** The post this one answers. */
  replyTo?: SocialStatus | null;
  /** The post this one quotes (Mastodon 4.5 quote posts). */
  quoting?: SocialStatus | null;
}

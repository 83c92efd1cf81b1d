import { grants } from '../scopes.ts';

/**
 * Mastodon's stream names, their parameters and the scopes each needs (Mastodon 4.5 `streaming/index.js`:
 * `read` always suffices; `user:notification` needs `read:notifications`, the others `read:statuses`).
 */
export const STREAM_NAMES = [
  'user',
  'user:notification',
  'public',
  'public:media',
  'public:local',
  'public:local:media',
  'public:remote',
  'public:remote:media',
  'hashtag',
  'hashtag:local',
  'list',
  'direct',
] as const;

export type StreamName = (typeof STREAM_NAMES)[number];

/** One subscription target: a stream, with its tag or list. */
export interface Channel {
  name: StreamName;
  /** The tag (as the client wrote it) or the list id; null for the others. */
  param: string | null;
  /** Index key: `hashtag` channels by lower-cased tag, `list` by id, the personal ones by account. */
  key: string;
}

export interface ChannelError {
  error: string;
  status: number;
}

export interface ChannelRequest {
  stream: string;
  tag?: unknown;
  list?: unknown;
}

/** The personal streams are keyed by their owner; the public ones are shared. */
export function channelKey(name: StreamName, param: string | null, accountId: string): string {
  switch (name) {
    case 'user':
    case 'user:notification':
    case 'direct':
      return `${name}|${accountId}`;
    case 'hashtag':
    case 'hashtag:local':
      return `${name}|${(param ?? '').toLowerCase()}`;
    case 'list':
      return `list|${param}`;
    default:
      return name;
  }
}

/** Parses a subscription request; `listOwner` tells who owns a list (null: no such list). */
export function parseChannel(
  request: ChannelRequest,
  accountId: string,
  scopes: readonly string[],
  listOwner: (listId: string) => string | null,
): Channel | ChannelError {
  const name = STREAM_NAMES.find((n) => n === request.stream);
  if (!name) return { error: 'Unknown stream type', status: 400 };
  let param: string | null = null;
  if (name === 'hashtag' || name === 'hashtag:local') {
    if (typeof request.tag !== 'string' || request.tag.trim() === '')
      return { error: 'No tag for stream provided', status: 400 };
    param = request.tag.replace(/^#/, '');
  } else if (name === 'list') {
    if (typeof request.list !== 'string' && typeof request.list !== 'number')
      return { error: 'No list for stream provided', status: 400 };
    param = String(request.list);
    if (listOwner(param) !== accountId) return { error: 'Not authorized to stream this list', status: 401 };
  }
  if (!mayRead(name, scopes)) return { error: 'Access token does not have the required scopes', status: 401 };
  return { name, param, key: channelKey(name, param, accountId) };
}

export function isChannelError(x: Channel | ChannelError): x is ChannelError {
  return 'error' in x;
}

function mayRead(name: StreamName, scopes: readonly string[]): boolean {
  return grants(scopes, name === 'user:notification' ? 'read:notifications' : 'read:statuses');
}

/** Whether a `user` subscription also carries notifications (it does with `read` or `read:notifications`). */
export function userStreamGetsNotifications(scopes: readonly string[]): boolean {
  return grants(scopes, 'read:notifications');
}

/** The `stream` array of an event frame: `[name]`, or `[name, tag|list]` (masto.js routes events by it). */
export function streamField(channel: Channel): string[] {
  return channel.param === null ? [channel.name] : [channel.name, channel.param];
}

/** The SSE path of each stream (`/api/v1/streaming/<path>`); `only_media` picks the media variants. */
export const SSE_PATHS: Record<string, { stream: StreamName; media?: StreamName }> = {
  user: { stream: 'user' },
  'user/notification': { stream: 'user:notification' },
  public: { stream: 'public', media: 'public:media' },
  'public/local': { stream: 'public:local', media: 'public:local:media' },
  'public/remote': { stream: 'public:remote', media: 'public:remote:media' },
  hashtag: { stream: 'hashtag' },
  'hashtag/local': { stream: 'hashtag:local' },
  list: { stream: 'list' },
  direct: { stream: 'direct' },
};

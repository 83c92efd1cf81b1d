import { auth, type RouteAuth } from '../http/index.ts';
import type { StreamName } from './channels.ts';

/** The WebSocket needs a user token with some read scope; what each subscription needs is checked when it is made. */
export const STREAM_AUTH = (): RouteAuth => auth.user('read:statuses', 'read:notifications');

/** An SSE path's scopes as Mastodon's API document gives them (the stream's own need is checked as it is subscribed). */
export const streamAuth = (stream: StreamName): RouteAuth =>
  stream === 'user' || stream === 'user:notification' ? STREAM_AUTH() : auth.user('read:statuses');

export interface StreamingLimits {
  /** Unsent bytes a connection may hold before it is dropped (a slow reader never holds more). */
  maxBufferedBytes: number;
  /** Subscriptions one WebSocket may hold. */
  maxChannelsPerSocket: number;
  /** WebSocket ping interval (a peer that did not answer the previous ping is dropped). */
  heartbeatMs: number;
  /** SSE comment heartbeat interval. */
  sseHeartbeatMs: number;
}

export const DEFAULT_STREAMING_LIMITS: StreamingLimits = {
  maxBufferedBytes: 4 * 1024 * 1024,
  maxChannelsPerSocket: 100,
  heartbeatMs: 30_000,
  sseHeartbeatMs: 15_000,
};

/**
 * Bounds of the inbox. The largest activity of the fixtures corpus (Mastodon, Misskey, Pleroma, PeerTube,
 * Hubzilla… payloads) is 17 KB, a PeerTube video's Create: 256 KiB leaves room for long posts and big videos
 * while capping the work one request can cause.
 */
export interface InboxLimits {
  /** Largest activity body in bytes (413 beyond). */
  bodyBytes: number;
  /** Inbox requests taken at once, from their headers to their answer, bodies being read included (503 beyond). */
  requests: number;
  /** Of those, verified requests handed to Fedify at once (the others wait their turn). */
  handling: number;
  /**
   * Verified bodies larger than this are handed to Fedify one at a time, at most `largeWaiting` waiting (503
   * beyond): Fedify's JSON-LD reading of a verified 256 KiB activity costs seconds; a peer must not run many.
   */
  largeBytes: number;
  largeWaiting: number;
  /** Verified activities waiting in the queue for their listeners, and their size (503 beyond). */
  backlogMessages: number;
  backlogBytes: number;
  /** What a refused peer is told to wait (its own retry schedule decides in the end). */
  retryAfterSeconds: number;
  /** Signatures by keys already held are checked in a worker thread (inbox-verifier.ts), not the main one. */
  verifyInWorker: boolean;
}

export const DEFAULT_INBOX_LIMITS: InboxLimits = {
  bodyBytes: 256 * 1024,
  requests: 64,
  handling: 16,
  largeBytes: 32 * 1024,
  largeWaiting: 4,
  backlogMessages: 2_000,
  backlogBytes: 32 * 1024 * 1024,
  retryAfterSeconds: 60,
  verifyInWorker: true,
};

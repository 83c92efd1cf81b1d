export interface StoreLimits {
  /** Write requests waiting beyond this are refused with StoreBusyError. */
  maxQueuedRequests: number;
  /** Payload bytes waiting beyond this are refused with StoreBusyError. */
  maxQueuedBytes: number;
  /** Upper bounds for one group commit (a bigger backlog is split over several commits). */
  maxBatchRequests: number;
  maxBatchEvents: number;
  maxBatchBytes: number;
  /** Stream heads and metadata kept in memory. */
  streamCacheSize: number;
  /** How often an idle store looks for commits made by another process. */
  externalPollMs: number;
  /** Most events one filtered read examines, whatever max_search_window asks for (the client pages on). */
  maxSearchWindow: number;
  /**
   * Bytes of events one read reply may carry unless the caller says otherwise (the TCP server passes its
   * reply limit); a longer read is cut while it is built and the reader pages on.
   */
  maxReadBytes: number;
  /** Rows one scavenge step may delete before it yields. */
  scavengeChunkRows: number;
  /** Recent event ids kept for the idempotency check of ExpectedVersion.Any (about 42 bytes each, taken at start). */
  idempotencyWindow: number;
}

export const DEFAULT_STORE_LIMITS: StoreLimits = {
  maxQueuedRequests: 50_000,
  maxQueuedBytes: 512 * 1024 * 1024,
  maxBatchRequests: 5_000,
  maxBatchEvents: 20_000,
  maxBatchBytes: 32 * 1024 * 1024,
  streamCacheSize: 100_000,
  externalPollMs: 500,
  maxSearchWindow: 100_000,
  maxReadBytes: 16 * 1024 * 1024,
  scavengeChunkRows: 5_000,
  idempotencyWindow: 200_000,
};

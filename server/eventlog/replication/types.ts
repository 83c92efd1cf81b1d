/**
 * What the replicator moves and the two faces it moves it through. A source reads `$all` in order; a target
 * appends, deletes and keeps the replicator's checkpoint. Each side is the local store (a data directory), the
 * TCP protocol (node-eventstore-client) or the gRPC protocol (@kurrent/kurrentdb-client).
 */

/** A `$all` position of the source; compared as (commit, prepare). */
export interface LogPosition {
  commit: bigint;
  prepare: bigint;
}

export interface SourceEvent {
  streamId: string;
  /** The source's event number (the tombstone's is long.MaxValue). */
  eventNumber: bigint;
  eventId: string;
  eventType: string;
  isJson: boolean;
  data: Uint8Array;
  metadata: Uint8Array;
  /** Unix milliseconds of the source's commit. */
  created: number;
  position: LogPosition;
}

export interface ReplicationSource {
  /** Where it reads, without credentials (safe to print). */
  readonly description: string;
  /** Up to `maxCount` events of `$all` after `after` (null = from the beginning), in order, links not resolved. */
  read(after: LogPosition | null, maxCount: number): Promise<SourceEvent[]>;
  /** The position of the last event in the source (null when empty): for the ETA. */
  headPosition(): Promise<LogPosition | null>;
  /**
   * Rings `onNew` whenever the source commits something after the call (a live subscription used as a
   * doorbell: the events themselves are read in order by `read`), `onDrop` when the subscription ends.
   */
  watch(onNew: () => void, onDrop: (err: Error) => void): Promise<{ stop(): void }>;
  close(): Promise<void>;
}

/** One write the target makes for a run of source events. */
export type TargetWrite =
  | { kind: 'append'; streamId: string; events: SourceEvent[] }
  | { kind: 'tombstone'; streamId: string; event: SourceEvent };

export interface StreamTail {
  /** Ids of the stream's last events (as many as asked for). */
  eventIds: Set<string>;
  tombstoned: boolean;
}

export interface ReplicationTarget {
  readonly description: string;
  /**
   * Writes may be in flight together: the target commits them in the order they were sent, so after any
   * failure what it holds is still a prefix of them (one TCP connection, the local store's commit queue).
   */
  readonly ordered: boolean;
  /** Appends with ExpectedVersion.Any (idempotent by event id); a tombstone of a tombstoned stream succeeds. */
  write(write: TargetWrite): Promise<void>;
  /** The ids of a stream's last `count` events, to tell which events after a checkpoint already arrived. */
  streamTail(streamId: string, count: number): Promise<StreamTail>;
  /** The newest event of a stream (the checkpoint's), parsed as JSON; null when the stream has none. */
  lastJson(streamId: string): Promise<unknown | null>;
  /** Whether the target holds events of its users (any event whose type does not start with `$`). */
  hasUserEvents(): Promise<boolean>;
  close(): Promise<void>;
}

/** Thrown for what retrying cannot fix (access denied, a bad address, a target that refused a write). */
export class ReplicationError extends Error {
  readonly fatal = true;
}

/**
 * Stream heads and parsed metadata, cached in memory. Inside a group commit the batch holds working
 * copies; they replace the cached ones only after COMMIT, so a rolled-back commit leaves the cache as
 * it was. Everything is dropped when another process commits to the file (see ChangeFeed.sync).
 */
import {
  EMPTY_METADATA,
  isMetastream,
  metastreamOf,
  METASTREAM_METADATA,
  originalStreamOf,
  parseStreamMetadata,
  parseSystemSettings,
  SystemStreams,
  type LoadedMetadata,
  type SystemSettings,
} from './metadata.ts';
import { EventFlags } from './migrations.ts';
import { BatchEventIds } from './recent-event-ids.ts';
import type { EventRow, Statements, StreamRow } from './statements.ts';
import { EVENT_NUMBER_DELETED, type RecordedEvent, type StreamMetadata } from './types.ts';

export interface StreamState {
  readonly id: string;
  /** streams.stream_key; 0 while the stream has no row. */
  key: number;
  /** Last event number written (-1 none); stays the pre-deletion number when soft- or hard-deleted. */
  last: number;
  tombstoned: boolean;
  count: number;
  createdAt: number;
  updatedAt: number;
  /** This stream's metadata (from its `$$` stream), loaded lazily; unused for metastreams. */
  meta: LoadedMetadata | undefined;
  dirty: boolean;
}

/** The working state of one group commit; merged into the caches only after COMMIT. */
export class WriteBatch {
  readonly now: number;
  readonly startPosition: number;
  lastPosition: number;
  readonly streams = new Map<string, StreamState>();
  readonly events: RecordedEvent[] = [];
  readonly deleted: { streamId: string; hard: boolean }[] = [];
  readonly eventIds = new BatchEventIds();
  settings: SystemSettings | undefined;
  constructor(now: number, lastPosition: number) {
    this.now = now;
    this.startPosition = lastPosition;
    this.lastPosition = lastPosition;
  }
}

export class StreamCache {
  /** The group commit under way, whose working copies reads inside it see. */
  batch: WriteBatch | null = null;
  private readonly cache = new Map<string, StreamState>();
  private settings: SystemSettings | undefined;
  private readonly sql: Statements;
  private readonly maxStreams: number;

  constructor(sql: Statements, maxStreams: number) {
    this.sql = sql;
    this.maxStreams = maxStreams;
  }

  /** A stream's state: the batch's working copy when there is one, else the cached one. */
  get(id: string): StreamState {
    const b = this.batch;
    if (b) {
      const s = b.streams.get(id);
      if (s) return s;
    }
    let s = this.cache.get(id);
    if (!s) {
      s = this.load(id);
      this.cache.set(id, s);
      if (!b) this.evict();
    }
    return s;
  }

  /** The batch's working copy of a stream, created on first use. */
  writable(id: string): StreamState {
    const b = this.batch;
    if (!b) throw new Error('writable() outside a group commit');
    let s = b.streams.get(id);
    if (!s) {
      s = { ...this.get(id) };
      b.streams.set(id, s);
    }
    return s;
  }

  /** Makes a committed batch's working copies the cached state. */
  committed(b: WriteBatch): void {
    for (const [id, s] of b.streams) {
      s.dirty = false;
      this.cache.delete(id);
      this.cache.set(id, s);
    }
    this.evict();
    if (b.settings !== undefined) this.settings = b.settings;
  }

  /** Forgets everything (another process wrote to the database). */
  clear(): void {
    this.cache.clear();
    this.settings = undefined;
  }

  /** Last event number as EventStoreDB's index reports it: DELETED for hard-deleted streams and their metastreams. */
  lastNumberOf(id: string): number {
    if (isMetastream(id) && this.get(originalStreamOf(id)).tombstoned) return EVENT_NUMBER_DELETED;
    const s = this.get(id);
    return s.tombstoned ? EVENT_NUMBER_DELETED : s.last;
  }

  metadataOf(id: string): StreamMetadata {
    if (isMetastream(id)) return METASTREAM_METADATA;
    return this.loadedMetadataOf(this.get(id)).metadata;
  }

  loadedMetadataOf(s: StreamState): LoadedMetadata {
    if (s.meta === undefined) s.meta = this.readMetadataFromLog(s);
    return s.meta;
  }

  isSoftDeleted(id: string): boolean {
    return !isMetastream(id) && this.metadataOf(id).truncateBefore === EVENT_NUMBER_DELETED;
  }

  systemSettings(): SystemSettings {
    if (this.batch?.settings !== undefined) return this.batch.settings;
    if (this.settings === undefined) {
      const s = this.get(SystemStreams.Settings);
      const row =
        s.key !== 0 && s.last >= 0 && !s.tombstoned
          ? (this.sql.eventAt.get(s.key, s.last) as EventRow | undefined)
          : undefined;
      this.settings = row ? parseSystemSettings((row.flags & EventFlags.IsJson) !== 0, row.data) : {};
    }
    return this.settings;
  }

  private load(id: string): StreamState {
    const row = this.sql.streamById.get(id) as StreamRow | undefined;
    if (!row)
      return {
        id,
        key: 0,
        last: -1,
        tombstoned: false,
        count: 0,
        createdAt: 0,
        updatedAt: 0,
        meta: undefined,
        dirty: false,
      };
    return {
      id,
      key: row.stream_key,
      last: row.last_event_number,
      tombstoned: row.tombstoned === 1,
      count: row.event_count,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      meta: undefined,
      dirty: false,
    };
  }

  private evict(): void {
    if (this.cache.size <= this.maxStreams) return;
    let excess = this.cache.size - this.maxStreams;
    for (const id of this.cache.keys()) {
      if (excess-- <= 0) break;
      this.cache.delete(id);
    }
  }

  private readMetadataFromLog(s: StreamState): LoadedMetadata {
    if (s.tombstoned) return EMPTY_METADATA;
    const meta = this.get(metastreamOf(s.id));
    if (meta.key === 0 || meta.last < 0) return EMPTY_METADATA;
    const row = this.sql.eventAt.get(meta.key, meta.last) as EventRow | undefined;
    if (!row) return EMPTY_METADATA;
    return parseStreamMetadata((row.flags & EventFlags.IsJson) !== 0, row.data);
  }
}

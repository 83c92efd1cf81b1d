import type { Database } from '../../db/index.ts';
import type { DeleteResult, NewEvent, StreamMetadata, WriteResult } from './types.ts';

/*
 * What internal writers (users, scavenge) get from the store inside a group commit. Declared apart from
 * the store so those writers depend on this contract, not on the store's module (no import circle).
 */

export interface SystemWriter {
  readonly now: number;
  readonly db: Database;
  append(streamId: string, expectedVersion: number, events: NewEvent[]): WriteResult;
  deleteStream(streamId: string, expectedVersion: number, hardDelete: boolean): DeleteResult;
  streamInfo(streamId: string): StreamInfo;
  /** Scavenge removed rows of a stream: keeps the stream's event count right. */
  eventsRemoved(streamId: string, count: number): void;
}

export interface StreamInfo {
  key: number;
  lastEventNumber: number;
  tombstoned: boolean;
  eventCount: number;
  metadata: StreamMetadata;
}

import type { CheckpointTag } from './checkpoint-tag.ts';

/** An event a projection wants written, before it gets its id and metadata. */
export interface EmittedEvent {
  streamId: string;
  eventType: string;
  isJson: boolean;
  data: string;
  /** Metadata keys after the tag (`$o`, `$deleted`, a user's `emit` metadata…), values JSON-compatible. */
  extra?: Record<string, unknown>;
  /** The source event's id (`$causedBy`). */
  causedBy?: string;
  /** The source event's `$correlationId`, carried over. */
  correlationId?: string;
  /** Where the source event is in the projection's input. */
  tag: CheckpointTag;
}

/** Event numbers as EventStoreDB prints them: a hard-deleted stream's tombstone is long.MaxValue. */
export function eventNumberText(eventNumber: number): string {
  return eventNumber === Number.MAX_SAFE_INTEGER ? '9223372036854775807' : String(eventNumber);
}

/**
 * Bounds on what one read materializes: a reply is cut, while it is built, once its entries reach a byte
 * budget (the caller pages on from the next event number or position, as with any short page).
 */
import { Column } from './statements.ts';
import type { AllEventColumns, EventColumns, RecordedEvent, ResolvedIndexedEvent } from './types.ts';

/** The estimated encoded size of one read entry: its event and its link, with every field's framing. */
export function entryBytes(entry: ResolvedIndexedEvent): number {
  return 16 + recordBytes(entry.event) + recordBytes(entry.link);
}

function recordBytes(r: RecordedEvent | undefined): number {
  return r
    ? 96 + r.streamId.length * 3 + r.eventType.length * 3 + (r.data?.length ?? 0) + (r.metadata?.length ?? 0)
    : 0;
}

/** entryBytes of the entry a row of `streamId` becomes (no link): the blob is the id's 16 bytes, data and metadata. */
export function rowEntryBytes(row: EventColumns | AllEventColumns, streamId: string): number {
  return 96 + streamId.length * 3 + row[Column.eventType].length * 3 + row[Column.idDataAndMetadata].length;
}

/** Counts a reply's entries against its byte budget as they are added. */
export class ReplyBudget {
  private used = 0;
  private entries = 0;
  private readonly maxBytes: number;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /** Takes the entry into the reply if it fits (the first one always does); false means stop here. */
  admit(entry: ResolvedIndexedEvent): boolean {
    return this.admitBytes(entryBytes(entry));
  }

  /** admit for an entry of `size` bytes (entryBytes). */
  admitBytes(size: number): boolean {
    if (this.entries > 0 && this.used + size > this.maxBytes) return false;
    this.used += size;
    this.entries++;
    return true;
  }
}

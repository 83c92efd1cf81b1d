/**
 * ReadAllEventsCompleted written straight from a plain `$all` page's SQLite rows (ReadAllRowsResult): no record,
 * entry, id text or data and metadata Buffers per event, as event-encoder.ts needs. The bytes are those
 * encodeReadAllEventsCompleted makes of the same page's entries (row-encoder.test.ts checks them against protobufjs).
 */
import { Column, EventFlags, type AllEventColumns } from '../store/index.ts';
import { dotNetBinaryDate } from './codec.ts';
import { encodeAllReply, type ReadAllReply } from './event-encoder.ts';
import {
  CONTENT_TYPE_JSON,
  int64FieldSize,
  int64Words,
  lengthDelimitedSize,
  utf8Length,
  varint64Size,
  type Out,
} from './protobuf-out.ts';

/** ReadAllEventsCompleted of a page given as SQLite's rows (ReadAllRowsResult): the same bytes as its entries'. */
export function encodeReadAllRowsCompleted(
  reply: Omit<ReadAllReply, 'events' | 'isEndOfStream'> & { rows: readonly AllEventColumns[] },
): Uint8Array {
  const { rows } = reply;
  const recordSizes = rows.map(rowRecordSize);
  return encodeAllReply(
    reply,
    rows.map((row, i) => rowEventSize(row, recordSizes[i])),
    (out, i, size, at) => {
      writeRowEvent(out, rows[i], size, recordSizes[i]);
      return at;
    },
  );
}

/** Bytes of an event id at the head of a row's blob. */
const ROW_ID_BYTES = 16;

/** recordSize of the record a `$all` row stands for. */
function rowRecordSize(row: AllEventColumns): number {
  const created = row[Column.created];
  const blobLength = row[Column.idDataAndMetadata].byteLength;
  const dataLength = row[Column.dataLength];
  return (
    lengthDelimitedSize(utf8Length(row[Column.streamId], 0)) +
    int64FieldSize(row[Column.eventNumber]) +
    lengthDelimitedSize(16) +
    lengthDelimitedSize(utf8Length(row[Column.eventType], 1)) +
    4 +
    lengthDelimitedSize(dataLength) +
    lengthDelimitedSize(blobLength - ROW_ID_BYTES - dataLength) +
    1 +
    varint64Size(int64Words(dotNetBinaryDate(created))) +
    int64FieldSize(created)
  );
}

/** resolvedEventSize of a `$all` row: its record (no link) and its two positions. */
function rowEventSize(row: AllEventColumns, recordSize: number): number {
  return (
    lengthDelimitedSize(recordSize) + int64FieldSize(row[Column.commitPosition]) + int64FieldSize(row[Column.position])
  );
}

/** writeResolvedEvent of a `$all` row: data and metadata copied from the row's blob, the id from its head. */
function writeRowEvent(out: Out, row: AllEventColumns, size: number, recordSize: number): void {
  const blob = row[Column.idDataAndMetadata];
  const dataEnd = ROW_ID_BYTES + row[Column.dataLength];
  const contentType = (row[Column.flags] & EventFlags.IsJson) !== 0 ? CONTENT_TYPE_JSON : 0;
  const streamId = row[Column.streamId];
  const eventType = row[Column.eventType];
  out.varint32(size);
  out.byte(0x0a);
  out.varint32(recordSize);
  out.string(0x0a, streamId, utf8Length(streamId, 0));
  out.int64(0x10, row[Column.eventNumber]);
  out.guid(0x1a, blob);
  out.string(0x22, eventType, utf8Length(eventType, 1));
  out.byte(0x28);
  out.byte(contentType);
  out.byte(0x30);
  out.byte(contentType);
  out.bytesOf(0x3a, blob, ROW_ID_BYTES, dataEnd);
  out.bytesOf(0x42, blob, dataEnd, blob.byteLength);
  out.byte(0x48);
  out.varint64(int64Words(dotNetBinaryDate(row[Column.created])));
  out.int64(0x50, row[Column.created]);
  out.int64(0x18, row[Column.commitPosition]);
  out.int64(0x20, row[Column.position]);
}
